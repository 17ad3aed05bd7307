package handlers_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// jsonOf renders v as JSON for request bodies.
func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// words returns n distinct words prefix0, prefix1, ....
func words(prefix string, n int) []string {
	l := make([]string, n)
	for i := range l {
		l[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return l
}

// TestAppSearchLimitsTable walks the limits of APPSEARCH.md section 9 over
// HTTP: a request exactly at a limit succeeds, one past it is refused with
// its exact message (status 200 {errors} for request errors, 413 for an
// oversize payload).
func TestAppSearchLimitsTable(t *testing.T) {
	n := newASNode(t, asOptions{})
	n.su("POST", "/engines", `{"name":"lim"}`)
	n.su("POST", "/engines/lim/documents", `[{"id":"1","title":"alpha","tags":["x"],"n":1,"when":"2020-01-01T00:00:00Z"}]`)
	n.su("POST", "/engines/lim/schema", `{"n":"number","when":"date"}`)
	for i := 0; i < 16; i++ {
		n.su("POST", "/engines", fmt.Sprintf(`{"name":"src%d"}`, i))
	}

	search := func(opts map[string]any) string {
		if _, ok := opts["query"]; !ok {
			opts["query"] = ""
		}
		return jsonOf(t, opts)
	}
	valueBoosts := func(k int) map[string]any {
		l := make([]any, k)
		for i := range l {
			l[i] = map[string]any{"type": "value", "value": fmt.Sprint(i)}
		}
		return map[string]any{"boosts": map[string]any{"title": l}}
	}
	filterList := func(k int) map[string]any {
		l := make([]any, k)
		for i := range l {
			l[i] = map[string]any{"title": fmt.Sprint(i)}
		}
		return map[string]any{"filters": map[string]any{"any": l}}
	}
	nested := func(depth int) map[string]any {
		var c any = map[string]any{"title": "alpha"}
		for i := 0; i < depth; i++ {
			c = map[string]any{"all": []any{c}}
		}
		return map[string]any{"filters": c}
	}
	sorts := func(k int) map[string]any {
		l := make([]any, k)
		for i := range l {
			l[i] = map[string]any{"n": "asc"}
		}
		return map[string]any{"sort": l}
	}
	docs := func(k int) string {
		l := make([]any, k)
		for i := range l {
			l[i] = map[string]any{"id": fmt.Sprint("bulk", i)}
		}
		return jsonOf(t, l)
	}
	one := func(doc map[string]any) string { return jsonOf(t, []any{doc}) }
	queries := func(k int) string {
		l := make([]any, k)
		for i := range l {
			l[i] = map[string]any{"query": ""}
		}
		return jsonOf(t, map[string]any{"queries": l})
	}
	long := func(k int) string { return strings.Repeat("q", k) }
	meta := func(k int) string {
		return jsonOf(t, map[string]any{"name": fmt.Sprint("meta", k), "type": "meta", "source_engines": words("src", k)})
	}
	fieldDoc := func(k int) map[string]any {
		d := map[string]any{"id": "wide"}
		for i := 0; i < k; i++ {
			d[fmt.Sprint("w", i)] = "v"
		}
		return d
	}

	type limit struct {
		name, method, path string
		ok, over           string
		want               string // the error of over (status 200)
	}
	for _, tc := range []limit{
		{"words per synonym set", "POST", "/engines/lim/synonyms", jsonOf(t, map[string]any{"synonyms": words("s", 32)}), jsonOf(t, map[string]any{"synonyms": words("s", 33)}), "Synonym set must contain 32 synonyms or fewer"},
		{"promoted and hidden documents", "POST", "/engines/lim/curations",
			jsonOf(t, map[string]any{"queries": []string{"a"}, "promoted": words("p", 25), "hidden": words("h", 25)}),
			jsonOf(t, map[string]any{"queries": []string{"b"}, "promoted": words("p", 25), "hidden": words("h", 26)}),
			"A curation must contain 50 promoted and hidden documents or fewer"},
		{"boosts", "POST", "/engines/lim/search", search(valueBoosts(32)), search(valueBoosts(33)), "Boosts must contain 32 boosts or fewer"},
		{"field name length", "POST", "/engines/lim/documents", one(map[string]any{"id": "f64", long(64): "v"}), one(map[string]any{"id": "f65", long(65): "v"}), ""},
		{"id length", "POST", "/engines/lim/documents", one(map[string]any{"id": long(800)}), one(map[string]any{"id": long(801)}), ""},
		{"document size", "POST", "/engines/lim/documents",
			one(map[string]any{"id": "big", "body": long(100<<10 - 30)}), one(map[string]any{"id": "big", "body": long(100 << 10)}), ""},
		{"documents per request", "POST", "/engines/lim/documents", docs(100), docs(101), "Too many documents in request (maximum is 100)"},
		{"source engines per meta engine", "POST", "/engines", meta(15), meta(16), "Meta engines can have at most 15 source engines"},
		{"queries per multi search", "POST", "/engines/lim/multi_search", queries(10), queries(11), "Queries must contain 10 queries or fewer"},
		{"query length", "POST", "/engines/lim/search", search(map[string]any{"query": long(128)}), search(map[string]any{"query": long(129)}), "Query must be 128 characters or less"},
		{"result pages", "POST", "/engines/lim/search", search(map[string]any{"page": map[string]any{"current": 100}}), search(map[string]any{"page": map[string]any{"current": 101}}), "Page current must be an integer between 1 and 100"},
		{"results per page", "POST", "/engines/lim/search", search(map[string]any{"page": map[string]any{"size": 1000}}), search(map[string]any{"page": map[string]any{"size": 1001}}), "Page size must be an integer between 0 and 1000"},
		{"snippet size", "POST", "/engines/lim/search",
			search(map[string]any{"result_fields": map[string]any{"title": map[string]any{"snippet": map[string]any{"size": 1000}}}}),
			search(map[string]any{"result_fields": map[string]any{"title": map[string]any{"snippet": map[string]any{"size": 1001}}}}),
			"Result field title snippet size must be an integer between 20 and 1000"},
		{"raw size", "POST", "/engines/lim/search",
			search(map[string]any{"result_fields": map[string]any{"title": map[string]any{"raw": map[string]any{"size": 1000}}}}),
			search(map[string]any{"result_fields": map[string]any{"title": map[string]any{"raw": map[string]any{"size": 1001}}}}),
			"Result field title raw size must be an integer between 20 and 1000"},
		{"facet values", "POST", "/engines/lim/search",
			search(map[string]any{"facets": map[string]any{"tags": map[string]any{"type": "value", "size": 250}}}),
			search(map[string]any{"facets": map[string]any{"tags": map[string]any{"type": "value", "size": 251}}}),
			"Facet tags size must be an integer between 1 and 250"},
		{"filters", "POST", "/engines/lim/search", search(filterList(32)), search(filterList(33)), "Filters must contain 32 filters or fewer"},
		{"filter array items", "POST", "/engines/lim/search",
			search(map[string]any{"filters": map[string]any{"title": words("v", 1024)}}),
			search(map[string]any{"filters": map[string]any{"title": words("v", 1025)}}),
			"Filter title must contain 1024 values or fewer"},
		{"filter nesting", "POST", "/engines/lim/search", search(nested(4)), search(nested(5)), "Filters must not be nested more than 5 levels deep"},
		{"sort fields", "POST", "/engines/lim/search", search(sorts(10)), search(sorts(11)), "Sort must contain 10 fields or fewer"},
		{"group size", "POST", "/engines/lim/search", search(map[string]any{"group": map[string]any{"field": "tags", "size": 10}}), search(map[string]any{"group": map[string]any{"field": "tags", "size": 11}}), "Group size must be an integer between 1 and 10"},
		{"analytics tags", "POST", "/engines/lim/search", search(map[string]any{"analytics": map[string]any{"tags": words("t", 16)}}), search(map[string]any{"analytics": map[string]any{"tags": words("t", 17)}}), "Analytics tags must contain 16 tags or fewer"},
		{"analytics tag length", "POST", "/engines/lim/search", search(map[string]any{"analytics": map[string]any{"tags": []string{long(64)}}}), search(map[string]any{"analytics": map[string]any{"tags": []string{long(65)}}}), "Analytics tags must be 64 characters or fewer"},
		{"query suggestion size", "POST", "/engines/lim/query_suggestion", `{"query":"al","size":20}`, `{"query":"al","size":21}`, "Size must be an integer between 1 and 20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n.su(tc.method, tc.path, tc.ok)
			if code != 200 || strings.Contains(body, `"errors":["`) {
				t.Fatalf("at the limit: %d %s", code, body[max(0, len(body)-300):])
			}
			code, body = n.su(tc.method, tc.path, tc.over)
			if tc.want == "" {
				return // per-document rows are checked below
			}
			if want := jsonOf(t, map[string]any{"errors": []string{tc.want}}); code != 200 || body != want {
				t.Errorf("past the limit: %d %.300s, want 200 %s", code, body, want)
			}
		})
	}

	// Per-document limits are per-document errors that echo the given id.
	code, body := n.su("POST", "/engines/lim/documents", jsonOf(t, []any{
		map[string]any{"id": "f65", long(65): "v"},
		map[string]any{"id": long(801)},
		map[string]any{"id": "big", "body": long(100 << 10)},
	}))
	want := `[{"id":"f65","errors":["Field name is too long (maximum is 64 characters): ` + long(65) + `."]},` +
		`{"id":null,"errors":["Invalid field value: id must be at most 800 characters"]},` +
		`{"id":"big","errors":["Document exceeds maximum size of 102400 bytes"]}]`
	if code != 200 || body != want {
		t.Errorf("per-document limits = %d %.600s", code, body)
	}

	// An 800-character id is a full document: patched, read, filtered and deleted.
	if code, body := n.su("PATCH", "/engines/lim/documents", one(map[string]any{"id": long(800), "title": "long id"})); code != 200 || body != `[{"id":"`+long(800)+`","errors":[]}]` {
		t.Errorf("patch long id = %d %s", code, body)
	}
	if code, body := n.su("GET", "/engines/lim/documents", jsonOf(t, []string{long(800)})); code != 200 || body != `[{"title":"long id","id":"`+long(800)+`"}]` {
		t.Errorf("get long id = %d %s", code, body)
	}
	if code, body := n.su("POST", "/engines/lim/search", search(map[string]any{"filters": map[string]any{"id": long(800)}, "result_fields": map[string]any{"title": map[string]any{"raw": map[string]any{}}}})); code != 200 || !strings.Contains(body, `"results":[{"id":{"raw":"`+long(800)+`"},"title":{"raw":"long id"},"_meta":{"id":"`+long(800)+`","engine":"lim","score":`) {
		t.Errorf("search long id = %d %s", code, body)
	}
	if code, body := n.su("DELETE", "/engines/lim/documents", jsonOf(t, []string{long(800)})); code != 200 || body != `[{"id":"`+long(800)+`","deleted":true}]` {
		t.Errorf("delete long id = %d %s", code, body)
	}

	// 64 schema fields per engine: the engine has title, tags, n, when,
	// body and the 64-character field (6); 58 more fit, the 59th does not.
	if code, body := n.su("POST", "/engines/lim/documents", one(fieldDoc(58))); code != 200 || body != `[{"id":"wide","errors":[]}]` {
		t.Errorf("64 fields = %d %s", code, body)
	}
	if code, body := n.su("POST", "/engines/lim/documents", one(map[string]any{"id": "wider", "one_more": "v"})); code != 200 || body != `[{"id":"wider","errors":["Adding fields would exceed the limit of 64 fields per engine"]}]` {
		t.Errorf("65th field = %d %s", code, body)
	}

	// 256 synonym sets per engine (one set already exists).
	for i := 1; i < 256; i++ {
		if code, body := n.su("POST", "/engines/lim/synonyms", jsonOf(t, map[string]any{"synonyms": []string{fmt.Sprint("a", i), fmt.Sprint("b", i)}})); code != 200 || strings.Contains(body, "errors") {
			t.Fatalf("synonym set %d = %d %s", i, code, body)
		}
	}
	if code, body := n.su("POST", "/engines/lim/synonyms", `{"synonyms":["c","d"]}`); code != 200 || body != `{"errors":["Engines can have 256 synonym sets or fewer"]}` {
		t.Errorf("257th synonym set = %d %s", code, body)
	}

	// The 10 MB indexing payload is a 413.
	big := `[{"id":"huge","body":"` + long(10<<20) + `"}]`
	if code, body := n.su("POST", "/engines/lim/documents", big); code != 413 || body != `{"errors":["Request body is too large (maximum is 10485760 bytes)"]}` {
		t.Errorf("payload = %d %.300s", code, body)
	}
}
