package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/quarry-search/quarry/clients/appsearchclient"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/appsearch"
)

func TestAppSearchDocuments(t *testing.T) {
	n := newASNode(t, asOptions{})
	ctx := context.Background()
	c := n.client(superuserBasic)
	if code, body := n.su("POST", "/engines", `{"name":"parks"}`); code != 200 {
		t.Fatal(body)
	}
	// Index: a generated id, a numeric id, an invalid field name, a nested
	// object, arrays, null.
	res, err := c.IndexDocumentsWithResponse(ctx, "parks", json.RawMessage(`[
		{"title":"Acadia","visitors":3303393,"states":["Maine"],"open":true,"note":null},
		{"id":176,"title":"Zion","acres":146597.6},
		{"id":"x","Title":"bad"},
		{"id":"y","location":{"lat":1,"lon":2}},
		{"id":"z","tags":[["a"]]},
		"not an object"
	]`))
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != 200 || res.JSON200 == nil {
		t.Fatalf("index = %d %s", res.StatusCode(), res.Body)
	}
	got, err := res.JSON200.AsDocumentResults()
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Id == nil || !regexp.MustCompile(`^doc-[0-9a-f]{24}$`).MatchString(*got[0].Id) || len(got[0].Errors) != 0 {
		t.Errorf("generated id = %+v", got[0])
	}
	genID := *got[0].Id
	want := fmt.Sprintf(`[{"errors":[],"id":%q},{"errors":[],"id":"176"},{"errors":["Fields can only contain lowercase letters, numbers, and underscores: Title."],"id":"x"},{"errors":["Nested objects are not supported (flatten them into top-level fields): location."],"id":"y"},{"errors":["Nested objects and arrays are not supported (flatten them into top-level fields): tags."],"id":"z"},{"errors":["Document must be a JSON object"],"id":null}]`, genID)
	if canon(t, string(res.Body)) != want {
		t.Errorf("index =\n%s\nwant\n%s", canon(t, string(res.Body)), want)
	}
	// A failed document writes nothing; new fields default to text.
	if code, body := n.su("GET", "/engines/parks/schema", ""); code != 200 || canon(t, body) != `{"acres":"text","note":"text","open":"text","states":"text","title":"text","visitors":"text"}` {
		t.Errorf("schema = %d %s", code, body)
	}
	// Get by ids: JSON body and ids[] parameters agree; unknown ids are null.
	wantDocs := fmt.Sprintf(`[{"acres":"146597.6","id":"176","title":"Zion"},null,{"id":%q,"note":null,"open":"true","states":["Maine"],"title":"Acadia","visitors":"3303393"}]`, genID)
	_, _, byBody := n.req("GET", "/engines/parks/documents", superuserBasic, "application/json", fmt.Sprintf(`["176","x",%q]`, genID))
	_, _, byQuery := n.req("GET", "/engines/parks/documents?ids[]=176&ids[]=x&ids[]="+genID, superuserBasic, "", "")
	_, _, byPlain := n.req("GET", "/engines/parks/documents?ids=176&ids=x&ids="+genID, superuserBasic, "", "")
	if canon(t, byBody) != wantDocs || byQuery != byBody || byPlain != byBody {
		t.Errorf("get =\n%s\n%s\n%s\nwant %s", byBody, byQuery, byPlain, wantDocs)
	}
	gres, err := c.GetDocumentsWithResponse(ctx, "parks", nil, appsearchclient.IDList{176})
	if err != nil || canon(t, string(gres.Body)) != `[{"acres":"146597.6","id":"176","title":"Zion"}]` {
		t.Errorf("client get = %v %s", err, gres.Body)
	}

	// Patch: existing fields only, id required, unknown ids reported.
	code, body := n.su("PATCH", "/engines/parks/documents", `[{"id":"176","title":"Zion NP"},{"title":"no id"},{"id":"nope","title":"t"},{"id":"176","colour":"red"}]`)
	if code != 200 || canon(t, body) != `[{"errors":[],"id":"176"},{"errors":["Missing required key 'id'"],"id":""},{"errors":["Document does not exist: nope"],"id":"nope"},{"errors":["Field does not exist in the schema (fields cannot be created with PATCH): colour."],"id":"176"}]` {
		t.Errorf("patch = %d %s", code, body)
	}
	if _, _, b := n.req("GET", "/engines/parks/documents?ids[]=176", superuserBasic, "", ""); canon(t, b) != `[{"acres":"146597.6","id":"176","title":"Zion NP"}]` {
		t.Errorf("after patch = %s", b)
	}
	// Replacing a document replaces it whole.
	if code, body := n.su("POST", "/engines/parks/documents", `{"id":"176","title":"Zion again"}`); code != 200 || canon(t, body) != `[{"errors":[],"id":"176"}]` {
		t.Errorf("single object = %d %s", code, body)
	}
	if _, _, b := n.req("GET", "/engines/parks/documents?ids[]=176", superuserBasic, "", ""); canon(t, b) != `[{"id":"176","title":"Zion again"}]` {
		t.Errorf("after replace = %s", b)
	}

	// List: 2 documents, pages of 1 (query and JSON body agree; sizes are
	// capped at 100; numbers may be strings).
	for _, tc := range []struct{ path, body, want string }{
		{"/engines/parks/documents/list?page[size]=1&page[current]=2", "", fmt.Sprintf(`{"meta":{"page":{"current":2,"size":1,"total_pages":2,"total_results":2}},"results":[{"id":%q,"note":null,"open":"true","states":["Maine"],"title":"Acadia","visitors":"3303393"}]}`, genID)},
		{"/engines/parks/documents/list", `{"page":{"size":"1","current":"2"}}`, ""},
		{"/engines/parks/documents/list?page[size]=1", `{"page":{"current":2}}`, ""},
		{"/engines/parks/documents/list", `{"page":{"size":500}}`, `{"meta":{"page":{"current":1,"size":100,"total_pages":1,"total_results":2}},"results":[{"id":"176","title":"Zion again"},` + fmt.Sprintf(`{"id":%q,"note":null,"open":"true","states":["Maine"],"title":"Acadia","visitors":"3303393"}]}`, genID)},
		{"/engines/parks/documents/list?page[current]=0", "", `{"errors":["Page current must be an integer greater than or equal to 1"]}`},
		{"/engines/parks/documents/list", `{"page":{"size":"ten"}}`, `{"errors":["Page size must be an integer greater than or equal to 1"]}`},
		{"/engines/parks/documents/list", `{"sort":"x"}`, `{"errors":["Options contains invalid key: sort"]}`},
	} {
		if tc.want == "" {
			tc.want = fmt.Sprintf(`{"meta":{"page":{"current":2,"size":1,"total_pages":2,"total_results":2}},"results":[{"id":%q,"note":null,"open":"true","states":["Maine"],"title":"Acadia","visitors":"3303393"}]}`, genID)
		}
		for _, method := range []string{"GET", "POST"} {
			ct := ""
			if tc.body != "" {
				ct = "application/json"
			}
			_, _, b := n.req(method, tc.path, superuserBasic, ct, tc.body)
			if canon(t, b) != canon(t, tc.want) {
				t.Errorf("%s %s %s =\n%s\nwant\n%s", method, tc.path, tc.body, b, tc.want)
			}
		}
	}
	lres, err := c.ListDocumentsWithResponse(ctx, "parks", &appsearchclient.ListDocumentsParams{Page: &appsearchclient.PageRequest{Size: ptr(1)}}, appsearchclient.PagedRequest{})
	if err != nil || lres.JSON200 == nil {
		t.Fatalf("client list = %v %s", err, lres.Body)
	}
	if l, err := lres.JSON200.AsDocumentList(); err != nil || l.Meta.Page.TotalPages != 2 || len(l.Results) != 1 {
		t.Errorf("client list = %v %s", err, lres.Body)
	}

	// Delete: deleted false for unknown ids.
	dres, err := c.DeleteDocumentsWithResponse(ctx, "parks", appsearchclient.IDList{"176", "nope"})
	if err != nil || canon(t, string(dres.Body)) != `[{"deleted":true,"id":"176"},{"deleted":false,"id":"nope"}]` {
		t.Errorf("delete = %v %s", err, dres.Body)
	}
	if _, _, b := n.req("GET", "/engines/parks/documents?ids[]=176", superuserBasic, "", ""); b != `[null]` {
		t.Errorf("after delete = %s", b)
	}

	// Request-level errors.
	hundredOne := "[" + strings.TrimSuffix(strings.Repeat(`{"title":"t"},`, 101), ",") + "]"
	for _, tc := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"POST", "/engines/parks/documents", `{}`, 200, `{"errors":["JSON must not be empty"]}`},
		{"POST", "/engines/parks/documents", `[]`, 200, `{"errors":["JSON must not be empty"]}`},
		{"POST", "/engines/parks/documents", `[{"title":`, 400, `{"errors":["decoding error, ensure request is valid"]}`},
		{"POST", "/engines/parks/documents", hundredOne, 200, `{"errors":["Too many documents in request (maximum is 100)"]}`},
		{"POST", "/engines/nope/documents", `[{"title":"t"}]`, 404, `{"errors":["Could not find engine."]}`},
		{"GET", "/engines/nope/documents/list", ``, 404, `{"errors":["Could not find engine."]}`},
		{"DELETE", "/engines/parks/documents", `{"x":1}`, 200, `{"errors":["Options contains invalid key: x"]}`},
		{"GET", "/engines/parks/documents", ``, 200, `{"errors":["Missing required parameter: ids"]}`},
		{"PATCH", "/engines/parks/documents", `{}`, 200, `{"errors":["JSON must not be empty"]}`},
	} {
		code, body := n.su(tc.method, tc.path, tc.body)
		if code != tc.code || canon(t, body) != canon(t, tc.want) {
			t.Errorf("%s %s = %d %s, want %d %s", tc.method, tc.path, code, body, tc.code, tc.want)
		}
	}
}

func TestAppSearchDocumentLimits(t *testing.T) {
	n := newASNode(t, asOptions{Limits: appsearch.Limits{PayloadBytes: 400, DocumentBytes: 60, SchemaFields: 3}})
	n.su("POST", "/engines", `{"name":"e"}`)
	big := `[{"title":"` + strings.Repeat("x", 500) + `"}]`
	if code, body := n.su("POST", "/engines/e/documents", big); code != 413 || body != `{"errors":["Request body is too large (maximum is 400 bytes)"]}` {
		t.Errorf("payload = %d %s", code, body)
	}
	code, body := n.su("POST", "/engines/e/documents", `[{"id":"1","title":"`+strings.Repeat("y", 60)+`"},{"title":"`+strings.Repeat("w", 60)+`"},{"id":"2","a":"1","b":"2","c":"3","d":"4"},{"id":"3","a":"1","b":"2","c":"3"}]`)
	if code != 200 || canon(t, body) != `[{"errors":["Document exceeds maximum size of 60 bytes"],"id":"1"},{"errors":["Document exceeds maximum size of 60 bytes"],"id":null},{"errors":["Adding fields would exceed the limit of 3 fields per engine"],"id":"2"},{"errors":[],"id":"3"}]` {
		t.Errorf("limits = %d %s", code, body)
	}
	if code, body := n.su("POST", "/engines/e/schema", `{"z":"text"}`); code != 200 || body != `{"errors":["Adding fields would exceed the limit of 3 fields per engine"]}` {
		t.Errorf("schema limit = %d %s", code, body)
	}
}

func TestAppSearchSchema(t *testing.T) {
	for _, rev := range []appsearch.Revision{appsearch.RevisionEarlier, appsearch.RevisionLater} {
		t.Run(string(rev), func(t *testing.T) {
			n := newASNode(t, asOptions{Revision: rev})
			ctx := context.Background()
			c := n.client(superuserBasic)
			n.su("POST", "/engines", `{"name":"e"}`)
			n.su("POST", "/engines/e/documents", `[{"id":"1","title":"a","year":"1985","loc":"40.5, -70.25","when":"2020-01-02T03:04:05Z"},{"id":"2","title":"b","year":2000.5,"loc":"40.5,-70.25","when":"2021-06-01"},{"id":"3","year":"n/a","loc":"POINT (-70.25 40.5)"},{"id":"4","year":"1e39","loc":["-70.25","40.5"]},{"id":"5","loc":"u4pruydqqvj"}]`)
			res, err := c.UpdateSchemaWithResponse(ctx, "e", appsearchclient.Schema{"year": "number", "loc": "geolocation", "when": "date", "extra": "number"})
			if err != nil || res.StatusCode() != 200 || canon(t, string(res.Body)) != `{"extra":"number","loc":"geolocation","title":"text","when":"date","year":"number"}` {
				t.Fatalf("update = %v %d %s", err, res.StatusCode(), res.Body)
			}
			// Stored values keep their form; typed fields are coerced per revision.
			if _, _, b := n.req("GET", "/engines/e/documents?ids[]=2&ids[]=4", superuserBasic, "", ""); canon(t, b) != `[{"id":"2","loc":"40.5,-70.25","title":"b","when":"2021-06-01","year":"2000.5"},{"id":"4","loc":["-70.25","40.5"],"year":"1e39"}]` {
				t.Errorf("stored = %s", b)
			}
			e, _ := n.Svc.Engine("e")
			idx, _ := n.Svc.CoreIndex(e)
			count := func(q string) int64 {
				t.Helper()
				got, err := n.Svc.Core().Count(ctx, []*searchcore.Index{idx}, json.RawMessage(q), 0)
				if err != nil {
					t.Fatalf("count %s: %v", q, err)
				}
				return got.Count
			}
			// earlier: 1e39 is a double, geolocations are "lat, lon" (space
			// optional) only; later: 1e39 is too large for a float, "lat, lon"
			// with a space is refused, WKT, [lon, lat] and geohashes work.
			wantYears, wantGeo, wantHash := int64(2), int64(3), int64(1)
			geoIDs := `["2","3","4"]`
			if rev == appsearch.RevisionEarlier {
				wantYears, wantGeo, wantHash = 3, 2, 0
				geoIDs = `["1","2"]`
			}
			if got := count(`{"range":{"year":{"gte":1000}}}`); got != wantYears {
				t.Errorf("numbers = %d, want %d", got, wantYears)
			}
			if got := count(`{"geo_distance":{"distance":"10km","loc":{"lat":40.5,"lon":-70.25}}}`); got != wantGeo {
				t.Errorf("geolocations = %d, want %d (%s)", got, wantGeo, geoIDs)
			}
			if got := count(`{"geo_distance":{"distance":"1km","loc":{"lat":57.64911,"lon":10.40744}}}`); got != wantHash {
				t.Errorf("geohash = %d, want %d", got, wantHash)
			}
			if got := count(`{"range":{"when":{"gte":"2021-01-01"}}}`); got != 1 {
				t.Errorf("dates = %d, want 1", got)
			}
			if got := count(`{"match":{"title":"a"}}`); got != 1 {
				t.Errorf("text = %d", got)
			}
			// Back to text: reindexed again, values intact.
			if code, body := n.su("POST", "/engines/e/schema", `{"year":"text"}`); code != 200 || canon(t, body) != `{"extra":"number","loc":"geolocation","title":"text","when":"date","year":"text"}` {
				t.Errorf("to text = %d %s", code, body)
			}
			e, _ = n.Svc.Engine("e")
			if e.Index != ".as-engine-e.2" {
				t.Errorf("index = %s", e.Index)
			}
			idx, _ = n.Svc.CoreIndex(e)
			if got := count(`{"match":{"year":"n/a"}}`); got != 1 {
				t.Errorf("year as text = %d", got)
			}
		})
	}
}

func TestAppSearchSchemaErrors(t *testing.T) {
	n := newASNode(t, asOptions{})
	n.su("POST", "/engines", `{"name":"e"}`)
	n.su("POST", "/engines", `{"name":"m","type":"meta","source_engines":["e"]}`)
	n.su("POST", "/engines/e/schema", `{"n":"number"}`)
	for _, tc := range []struct {
		path, body string
		code       int
		want       string
	}{
		{"/engines/e/schema", `{"x":"not-a-valid-type"}`, 200, `{"errors":["Invalid field type \"not-a-valid-type\" for field x: must be one of text, number, date, geolocation"]}`},
		{"/engines/e/schema", `{"id":"number"}`, 200, `{"errors":["The type of the id field cannot be changed"]}`},
		{"/engines/e/schema", `{"Bad":"text","_x":"text","12":"text"}`, 200, `{"errors":["Fields must contain at least one letter: 12.","Fields can only contain lowercase letters, numbers, and underscores: Bad.","Fields cannot begin with an underscore: _x."]}`},
		{"/engines/e/schema", `{"x":1}`, 200, `{"errors":["Invalid field type for field x: must be one of text, number, date, geolocation"]}`},
		{"/engines/e/schema", `{}`, 200, `{"errors":["JSON must not be empty"]}`},
		{"/engines/e/schema", `{"n":"number"}`, 200, `{"n":"number"}`},
		{"/engines/m/schema", `{"x":"text"}`, 200, `{"errors":["The schema of a meta engine is the union of its source engines' schemas and cannot be changed"]}`},
		{"/engines/nope/schema", `{"x":"text"}`, 404, `{"errors":["Could not find engine."]}`},
	} {
		code, body := n.su("POST", tc.path, tc.body)
		if code != tc.code || canon(t, body) != canon(t, tc.want) {
			t.Errorf("POST %s %s = %d %s, want %d %s", tc.path, tc.body, code, body, tc.code, tc.want)
		}
	}
	if code, body := n.su("GET", "/engines/m/schema", ""); code != 200 || body != `{"n":"number"}` {
		t.Errorf("meta schema = %d %s", code, body)
	}
}
