package searchcore

import (
	"strings"
	"testing"
)

func TestParseBulk(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		index     string
		wantOps   string // op:index:id per item, comma separated
		wantErr   string
		preErrIdx int // item with an item-level error, -1 none
	}{
		{"basic", "{\"index\":{\"_index\":\"a\",\"_id\":\"1\"}}\n{\"f\":1}\n{\"delete\":{\"_index\":\"a\",\"_id\":\"2\"}}\n", "", "index:a:1,delete:a:2", "", -1},
		{"crlf and blank lines", "{\"create\":{\"_id\":\"1\"}}\r\n{\"f\":1}\r\n\r\n{\"update\":{\"_id\":\"1\"}}\r\n{\"doc\":{\"f\":2}}\r\n", "dflt", "create:dflt:1,update:dflt:1", "", -1},
		{"op_type create", "{\"index\":{\"_index\":\"a\",\"op_type\":\"create\"}}\n{\"f\":1}\n", "", "create:a:", "", -1},
		{"empty id is an item error", "{\"index\":{\"_index\":\"a\",\"_id\":\"\"}}\n{\"f\":1}\n", "", "index:a:", "", 0},
		{"source not object is an item error", "{\"index\":{\"_index\":\"a\",\"_id\":\"1\"}}\n[1]\n", "", "index:a:1", "", 0},
		{"missing index", "{\"index\":{\"_id\":\"1\"}}\n{\"f\":1}\n", "", "", "Validation Failed: 1: index is missing;", -1},
		{"no newline", "{\"index\":{\"_index\":\"a\"}}\n{\"f\":1}", "", "", "The bulk request must be terminated by a newline [\\n]", -1},
		{"empty", "\n\n", "", "", "Validation Failed: 1: no requests added;", -1},
		{"action not object", "[1]\n", "", "", "Malformed action/metadata line [1], expected START_OBJECT or END_OBJECT but found [START_ARRAY]", -1},
		{"two actions in one line", "{\"index\":{},\"delete\":{}}\n", "a", "", "Malformed action/metadata line [1], expected END_OBJECT but found [FIELD_NAME]", -1},
		{"meta not object", "{\"index\":1}\n", "a", "", "Malformed action/metadata line [1], expected START_OBJECT but found [VALUE_NUMBER]", -1},
		{"bad if_seq_no", "{\"index\":{\"_index\":\"a\",\"if_seq_no\":\"x\"}}\n{}\n", "", "", "Malformed action/metadata line [1], failed to parse [if_seq_no] value [x]", -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			items, err := ParseBulk([]byte(tc.body), BulkDefaults{Index: tc.index})
			if tc.wantErr != "" {
				e, ok := AsError(err)
				if !ok || e.Reason != tc.wantErr {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ops []string
			for i, it := range items {
				ops = append(ops, string(it.Req.Op)+":"+it.Req.Index+":"+it.Req.ID)
				if (it.PreErr != nil) != (i == tc.preErrIdx) {
					t.Errorf("item %d PreErr = %v", i, it.PreErr)
				}
			}
			if got := strings.Join(ops, ","); got != tc.wantOps {
				t.Errorf("ops = %q, want %q", got, tc.wantOps)
			}
		})
	}
}

func FuzzParseBulk(f *testing.F) {
	seeds := []string{
		"{\"index\":{\"_index\":\"a\",\"_id\":\"1\"}}\n{\"f\":1}\n",
		"{\"update\":{\"_index\":\"a\",\"_id\":\"1\",\"retry_on_conflict\":3}}\n{\"doc\":{\"x\":1},\"doc_as_upsert\":true}\n",
		"{\"delete\":{\"_index\":\"a\",\"_id\":\"1\"}}\n",
		"{}\n", "\n", "{\"index\":[]}\n", "{\"create\":{\"version\":\"1\",\"version_type\":\"external\"}}\n{}\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		items, err := ParseBulk([]byte(body), BulkDefaults{Index: "dflt"})
		if err != nil {
			if _, ok := AsError(err); !ok {
				t.Fatalf("error %v is not a *searchcore.Error", err)
			}
			return
		}
		for _, it := range items {
			if it.Req == nil {
				t.Fatal("nil request")
			}
			if it.PreErr != nil {
				if _, ok := AsError(it.PreErr); !ok {
					t.Fatalf("item error %v is not a *searchcore.Error", it.PreErr)
				}
			}
		}
	})
}

func TestFlattenSettings(t *testing.T) {
	flat, err := flattenSettings([]byte(`{"number_of_shards":2,"index":{"refresh_interval":"5s","analysis":{"analyzer":{"a":{"type":"custom","tokenizer":"standard","filter":["lowercase"]}}}},"index.max_result_window":"500"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"index.number_of_shards":              "2",
		"index.refresh_interval":              "5s",
		"index.max_result_window":             "500",
		"index.analysis.analyzer.a.type":      "custom",
		"index.analysis.analyzer.a.tokenizer": "standard",
	}
	for k, v := range want {
		if got, _ := flat[k].(string); got != v {
			t.Errorf("%s = %v, want %s", k, flat[k], v)
		}
	}
	if got, _ := flat["index.analysis.analyzer.a.filter"].([]string); len(got) != 1 || got[0] != "lowercase" {
		t.Errorf("filter list = %v", flat["index.analysis.analyzer.a.filter"])
	}
	st, err := parseIndexSettings(flat)
	if err != nil {
		t.Fatal(err)
	}
	if st.NumberOfShards != 2 || st.MaxResultWindow != 500 || st.RefreshInterval.String() != "5s" || string(st.Analysis) != `{"analyzer":{"a":{"filter":["lowercase"],"tokenizer":"standard","type":"custom"}}}` {
		t.Errorf("settings = %+v analysis %s", st, st.Analysis)
	}
	for _, bad := range []struct{ body, reason string }{
		{`{"index.foo":1}`, "unknown setting [index.foo] please check that any required plugins are installed, or check the breaking changes documentation for removed settings"},
		{`{"number_of_shards":0}`, "Failed to parse value [0] for setting [index.number_of_shards] must be >= 1"},
		{`{"refresh_interval":"soon"}`, "failed to parse setting [index.refresh_interval] with value [soon] as a time value: unit is missing or unrecognized"},
	} {
		flat, err := flattenSettings([]byte(bad.body))
		if err == nil {
			_, err = parseIndexSettings(flat)
		}
		if e, ok := AsError(err); !ok || e.Reason != bad.reason {
			t.Errorf("%s: err = %v, want %q", bad.body, err, bad.reason)
		}
	}
}

func TestMatchPattern(t *testing.T) {
	for _, tc := range []struct {
		pat, s string
		want   bool
	}{
		{"*", "abc", true}, {"a*", "abc", true}, {"*c", "abc", true}, {"a*c", "abc", true},
		{"a?c", "abc", false}, {"a?c", "a?c", true}, {"b*", "abc", false}, {"abc", "abc", true}, {"[a]*", "[a]x", true},
	} {
		if got := matchPattern(tc.pat, tc.s); got != tc.want {
			t.Errorf("matchPattern(%q, %q) = %v, want %v", tc.pat, tc.s, got, tc.want)
		}
	}
}
