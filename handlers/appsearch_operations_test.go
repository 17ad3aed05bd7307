package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/quarry-search/quarry/clients/appsearchclient"
)

// asCall checks one generated-client answer: status and canonical body
// (want is a JSON text, or a regexp when it starts with "~").
func asCall(t *testing.T, name string, res any, err error, code int, want string) string {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	v := reflect.ValueOf(res)
	got := v.MethodByName("StatusCode").Call(nil)[0].Interface().(int)
	body := string(v.Elem().FieldByName("Body").Bytes())
	if strings.HasPrefix(want, "~") {
		if got != code || !regexp.MustCompile(want[1:]).MatchString(body) {
			t.Errorf("%s = %d %s, want %d matching %s", name, got, body, code, want[1:])
		}
		return body
	}
	if body == "" && want == "" {
		if got != code {
			t.Errorf("%s = %d, want %d", name, got, code)
		}
		return body
	}
	if got != code || canon(t, body) != canon(t, want) {
		t.Errorf("%s = %d %s, want %d %s", name, got, body, code, want)
	}
	return body
}

// TestAppSearchEveryOperation calls every operation of openapi/appsearch.yaml
// through the generated client (the transport validates each answer
// against the spec) with exact expected answers.
func TestAppSearchEveryOperation(t *testing.T) {
	n := newASNode(t, asOptions{})
	ctx := context.Background()
	su := n.client(superuserBasic)
	const js = "application/json"
	body := strings.NewReader
	one, two := 1, 2
	page := &appsearchclient.PageParam{Current: &one, Size: &two}

	// Credentials (the superuser may call them; so may an admin key).
	res, err := su.CreateCredentialWithBodyWithResponse(ctx, js, body(`{"name":"admin","type":"admin"}`))
	created := asCall(t, "CreateCredential", res, err, 200, `~^\{"id":"quarry:[0-9a-f]+\|name:admin","name":"admin","type":"admin","key":"admin-[a-z0-9]{24}"`)
	var adminKey struct{ Key string }
	_ = json.Unmarshal([]byte(created), &adminKey)
	admin := n.client("Bearer " + adminKey.Key)
	cres, err := admin.CreateCredentialWithBodyWithResponse(ctx, js, body(`{"name":"writer","type":"private","read":true,"write":true,"access_all_engines":true}`))
	created = asCall(t, "CreateCredential private", cres, err, 200, `~"key":"private-[a-z0-9]{24}"`)
	var privKey struct{ Key string }
	_ = json.Unmarshal([]byte(created), &privKey)
	c := n.client("Bearer " + privKey.Key)
	last4 := privKey.Key[len(privKey.Key)-4:]
	gres, err := admin.GetCredentialWithResponse(ctx, "writer")
	asCall(t, "GetCredential", gres, err, 200, `~"name":"writer","type":"private","key":"private-\*+`+last4+`","read":true,"write":true,"access_all_engines":true`)
	lres, err := admin.ListCredentialsWithBodyWithResponse(ctx, &appsearchclient.ListCredentialsParams{Page: page}, "", nil)
	asCall(t, "ListCredentials", lres, err, 200, `~^\{"meta":\{"page":\{"current":1,"total_pages":1,"total_results":2,"size":2\}\},"results":\[`)

	// Engines.
	eres, err := c.CreateEngineWithBodyWithResponse(ctx, nil, js, body(`{"name":"ops","language":"en"}`))
	asCall(t, "CreateEngine", eres, err, 200, `{"name":"ops","type":"default","language":"en","document_count":0,"index_create_settings_override":{}}`)
	su.CreateEngineWithBodyWithResponse(ctx, nil, js, body(`{"name":"other"}`))
	mres, err := su.CreateEngineWithBodyWithResponse(ctx, nil, js, body(`{"name":"meta","type":"meta","source_engines":["ops"]}`))
	asCall(t, "CreateEngine meta", mres, err, 200, `{"name":"meta","type":"meta","language":null,"document_count":0,"index_create_settings_override":{},"source_engines":["ops"]}`)
	ares, err := su.AddMetaEngineSourceWithBodyWithResponse(ctx, "meta", js, body(`["other"]`))
	asCall(t, "AddMetaEngineSource", ares, err, 200, `{"name":"meta","type":"meta","language":null,"document_count":0,"index_create_settings_override":{},"source_engines":["ops","other"]}`)
	dres, err := su.DeleteMetaEngineSourceWithBodyWithResponse(ctx, "meta", js, body(`["other"]`))
	asCall(t, "DeleteMetaEngineSource", dres, err, 200, `{"name":"meta","type":"meta","language":null,"document_count":0,"index_create_settings_override":{},"source_engines":["ops"]}`)
	// Scope the key to ops.
	ures, err := admin.UpdateCredentialWithBodyWithResponse(ctx, "writer", js, body(`{"name":"writer","type":"private","read":true,"write":true,"access_all_engines":false,"engines":["ops"]}`))
	asCall(t, "UpdateCredential", ures, err, 200, `~"read":true,"write":true,"access_all_engines":false,"engines":\["ops"\]`)
	geres, err := c.GetEngineWithResponse(ctx, "ops")
	asCall(t, "GetEngine", geres, err, 200, `{"name":"ops","type":"default","language":"en","document_count":0,"index_create_settings_override":{}}`)
	// The key is scoped to ops: other engines are invisible to it.
	geres, err = c.GetEngineWithResponse(ctx, "other")
	asCall(t, "GetEngine out of scope", geres, err, 404, `{"errors":["Could not find engine."]}`)
	leres, err := c.ListEnginesWithBodyWithResponse(ctx, &appsearchclient.ListEnginesParams{Page: page}, "", nil)
	asCall(t, "ListEngines", leres, err, 200, `{"meta":{"page":{"current":1,"total_pages":1,"total_results":1,"size":2}},"results":[{"name":"ops","type":"default","language":"en","document_count":0,"index_create_settings_override":{}}]}`)

	// Documents and schema.
	ires, err := c.IndexDocumentsWithBodyWithResponse(ctx, "ops", js, body(`[{"id":"a","title":"Moon rocket","year":1969},{"id":"b","title":"Moon men","year":"1990"},{"id":"c","title":"Sun"}]`))
	asCall(t, "IndexDocuments", ires, err, 200, `[{"id":"a","errors":[]},{"id":"b","errors":[]},{"id":"c","errors":[]}]`)
	pres, err := c.UpdateDocumentsWithBodyWithResponse(ctx, "ops", js, body(`[{"id":"c","title":"Sun dial"},{"id":"zz","title":"x"}]`))
	asCall(t, "UpdateDocuments", pres, err, 200, `[{"id":"c","errors":[]},{"id":"zz","errors":["Document does not exist: zz"]}]`)
	ids := []string{"c", "nope"}
	gdres, err := c.GetDocumentsWithBodyWithResponse(ctx, "ops", &appsearchclient.GetDocumentsParams{IDsBracketed: &ids}, "", nil)
	asCall(t, "GetDocuments", gdres, err, 200, `[{"id":"c","title":"Sun dial"},null]`)
	ldres, err := c.ListDocumentsWithBodyWithResponse(ctx, "ops", &appsearchclient.ListDocumentsParams{Page: page}, "", nil)
	asCall(t, "ListDocuments", ldres, err, 200, `{"meta":{"page":{"current":1,"total_pages":2,"total_results":3,"size":2}},"results":[{"id":"a","title":"Moon rocket","year":"1969"},{"id":"b","title":"Moon men","year":"1990"}]}`)
	lpres, err := c.ListDocumentsPostWithBodyWithResponse(ctx, "ops", nil, js, body(`{"page":{"current":"2","size":"2"}}`))
	asCall(t, "ListDocumentsPost", lpres, err, 200, `{"meta":{"page":{"current":2,"total_pages":2,"total_results":3,"size":2}},"results":[{"id":"c","title":"Sun dial"}]}`)
	usres, err := c.UpdateSchemaWithBodyWithResponse(ctx, "ops", js, body(`{"year":"number"}`))
	asCall(t, "UpdateSchema", usres, err, 200, `{"title":"text","year":"number"}`)
	gsres, err := c.GetSchemaWithResponse(ctx, "ops")
	asCall(t, "GetSchema", gsres, err, 200, `{"title":"text","year":"number"}`)

	// Search side.
	sres, err := c.SearchWithBodyWithResponse(ctx, "ops", js, body(`{"query":"moon","sort":{"year":"desc"},"result_fields":{"title":{"raw":{}}}}`))
	asCall(t, "Search", sres, err, 200, `~"page":\{"current":1,"total_pages":1,"total_results":2,"size":10\},"engine":\{"name":"ops","type":"default"\},"request_id":"[0-9a-f-]{36}"\},"results":\[\{"id":\{"raw":"b"\},"title":\{"raw":"Moon men"\},"_meta":\{"id":"b","engine":"ops","score":null\}\},\{"id":\{"raw":"a"\}`)
	sgres, err := c.SearchGetWithBodyWithResponse(ctx, "ops", js, body(`{"query":"sun","result_fields":{"title":{"snippet":{}}}}`))
	asCall(t, "SearchGet", sgres, err, 200, `~"results":\[\{"id":\{"raw":"c"\},"title":\{"snippet":"<em>Sun</em> dial"\},"_meta":\{"id":"c","engine":"ops","score":[0-9.]+\}\}\]\}$`)
	msres, err := c.MultiSearchWithBodyWithResponse(ctx, "ops", js, body(`{"queries":[{"query":"moon","page":{"size":1}},{"query":"","filters":{"year":{"from":1980}}}]}`))
	asCall(t, "MultiSearch", msres, err, 200, `~^\[\{"meta":\{"alerts":\[\],"warnings":\[\],"precision":2,"page":\{"current":1,"total_pages":2,"total_results":2,"size":1\}.*"results":\[\{"id":\{"raw":"b"\},"title":\{"raw":"Moon men"\},"year":\{"raw":1990(\.0)?\},"_meta":\{"id":"b","engine":"ops","score":[0-9.]+\}\}\]\}\]$`)
	mgres, err := c.MultiSearchGetWithBodyWithResponse(ctx, "ops", js, body(`{"queries":[{"query":"sun"},{"query":"x","bad":1}]}`))
	asCall(t, "MultiSearchGet", mgres, err, 200, `[{"errors":[]},{"errors":["Options contains invalid key: bad"]}]`)
	qres, err := c.QuerySuggestionWithBodyWithResponse(ctx, "ops", js, body(`{"query":"moo","types":{"documents":{"fields":["title"]}},"size":5}`))
	asCall(t, "QuerySuggestion", qres, err, 200, `~^\{"results":\{"documents":\[\{"suggestion":"moon"\}`)
	qgres, err := c.QuerySuggestionGetWithBodyWithResponse(ctx, "ops", js, body(`{"query":"su"}`))
	asCall(t, "QuerySuggestionGet", qgres, err, 200, `~^\{"results":\{"documents":\[\{"suggestion":"sun"\}`)
	clres, err := c.LogClickthroughWithBodyWithResponse(ctx, "ops", js, body(`{"query":"moon","document_id":"a","tags":["web"]}`))
	asCall(t, "LogClickthrough", clres, err, 200, ``)

	// Search settings, synonyms, curations.
	ssres, err := c.GetSearchSettingsWithResponse(ctx, "ops")
	defaults := `{"search_fields":{"id":{"weight":1},"title":{"weight":1}},"result_fields":{"id":{"raw":{}},"title":{"raw":{}},"year":{"raw":{}}},"boosts":{},"precision":2,"precision_enabled":true}`
	asCall(t, "GetSearchSettings", ssres, err, 200, defaults)
	psres, err := c.PutSearchSettingsWithBodyWithResponse(ctx, "ops", js, body(`{"search_fields":{"title":{"weight":5}},"boosts":{"year":[{"type":"functional","function":"linear","factor":2}]}}`))
	asCall(t, "PutSearchSettings", psres, err, 200, `{"search_fields":{"title":{"weight":5}},"result_fields":{"id":{"raw":{}},"title":{"raw":{}},"year":{"raw":{}}},"boosts":{"year":[{"type":"functional","function":"linear","factor":2}]},"precision":2,"precision_enabled":true}`)
	rsres, err := c.ResetSearchSettingsWithResponse(ctx, "ops")
	asCall(t, "ResetSearchSettings", rsres, err, 200, defaults)

	synres, err := c.CreateSynonymSetWithBodyWithResponse(ctx, "ops", js, body(`{"synonyms":["moon","luna"]}`))
	synBody := asCall(t, "CreateSynonymSet", synres, err, 200, `~^\{"id":"syn-[0-9a-f]{24}","synonyms":\["moon","luna"\]\}$`)
	var syn struct{ ID string }
	_ = json.Unmarshal([]byte(synBody), &syn)
	gsynres, err := c.GetSynonymSetWithResponse(ctx, "ops", syn.ID)
	asCall(t, "GetSynonymSet", gsynres, err, 200, `{"id":"`+syn.ID+`","synonyms":["moon","luna"]}`)
	psynres, err := c.PutSynonymSetWithBodyWithResponse(ctx, "ops", syn.ID, js, body(`{"synonyms":["moon","luna","selene"]}`))
	asCall(t, "PutSynonymSet", psynres, err, 200, `{"id":"`+syn.ID+`","synonyms":["moon","luna","selene"]}`)
	lsynres, err := c.ListSynonymSetsWithBodyWithResponse(ctx, "ops", nil, "", nil)
	asCall(t, "ListSynonymSets", lsynres, err, 200, `{"meta":{"page":{"current":1,"total_pages":1,"total_results":1,"size":25}},"results":[{"id":"`+syn.ID+`","synonyms":["moon","luna","selene"]}]}`)
	sres, err = c.SearchWithBodyWithResponse(ctx, "ops", js, body(`{"query":"selene","result_fields":{"title":{"raw":{}}},"sort":{"year":"asc"}}`))
	asCall(t, "Search with synonyms", sres, err, 200, `~"total_results":2,.*"results":\[\{"id":\{"raw":"a"\}.*\{"id":\{"raw":"b"\}`)
	dsynres, err := c.DeleteSynonymSetWithResponse(ctx, "ops", syn.ID)
	asCall(t, "DeleteSynonymSet", dsynres, err, 200, `{"deleted":true}`)

	curres, err := c.CreateCurationWithBodyWithResponse(ctx, "ops", js, body(`{"queries":["moon"],"promoted":["c"],"hidden":["b"]}`))
	curBody := asCall(t, "CreateCuration", curres, err, 200, `~^\{"id":"cur-[0-9a-f]{24}"\}$`)
	var cur struct{ ID string }
	_ = json.Unmarshal([]byte(curBody), &cur)
	sres, err = c.SearchWithBodyWithResponse(ctx, "ops", js, body(`{"query":"moon","result_fields":{"title":{"raw":{}}}}`))
	asCall(t, "Search curated", sres, err, 200, `~"total_results":2,.*"results":\[\{"id":\{"raw":"c"\},.*\{"id":\{"raw":"a"\}.*\]\}$`)
	pcurres, err := c.PutCurationWithBodyWithResponse(ctx, "ops", cur.ID, js, body(`{"queries":["moon","luna"],"promoted":["a"]}`))
	asCall(t, "PutCuration", pcurres, err, 200, `{"id":"`+cur.ID+`"}`)
	gcurres, err := c.GetCurationWithResponse(ctx, "ops", cur.ID)
	asCall(t, "GetCuration", gcurres, err, 200, `{"id":"`+cur.ID+`","queries":["moon","luna"],"promoted":["a"],"hidden":[]}`)
	lcurres, err := c.ListCurationsWithBodyWithResponse(ctx, "ops", nil, "", nil)
	asCall(t, "ListCurations", lcurres, err, 200, `{"meta":{"page":{"current":1,"total_pages":1,"total_results":1,"size":25}},"results":[{"id":"`+cur.ID+`","queries":["moon","luna"],"promoted":["a"],"hidden":[]}]}`)
	ecurres, err := c.PutCurationWithBodyWithResponse(ctx, "ops", cur.ID, js, body(`{"queries":["moon"]}`))
	asCall(t, "PutCuration empty", ecurres, err, 200, `{"errors":["A curation must contain promoted or hidden documents"]}`)
	dcurres, err := c.DeleteCurationWithResponse(ctx, "ops", cur.ID)
	asCall(t, "DeleteCuration", dcurres, err, 200, `{"deleted":true}`)
	gcurres, err = c.GetCurationWithResponse(ctx, "ops", cur.ID)
	asCall(t, "GetCuration deleted", gcurres, err, 404, `{"errors":["Curation not found with id: `+cur.ID+`"]}`)

	// Analytics count the searches and the click above (the fake clock is
	// at 2026-11-22; counts cover the last seven days and today, by day).
	days := func(queriesToday, clicksToday int) string {
		var b strings.Builder
		b.WriteString(`{"results":[`)
		for d := 15; d <= 22; d++ {
			if d > 15 {
				b.WriteByte(',')
			}
			q, c := 0, 0
			if d == 22 {
				q, c = queriesToday, clicksToday
			}
			fmt.Fprintf(&b, `{"from":"2026-11-%02dT00:00:00+00:00","to":"2026-11-%02dT00:00:00+00:00","queries":%d,"clicks":%d}`, d, d+1, q, c)
		}
		b.WriteString(`]}`)
		return b.String()
	}
	tqres, err := c.PostTopQueriesAnalyticsWithBodyWithResponse(ctx, "ops", js, body(`{"page":{"size":2}}`))
	asCall(t, "PostTopQueriesAnalytics", tqres, err, 200, `{"meta":{"page":{"current":1,"size":2}},"results":[{"term":"moon","queries":3,"clicks":1},{"term":"","queries":1,"clicks":0}]}`)
	tqgres, err := c.GetTopQueriesAnalyticsWithBodyWithResponse(ctx, "ops", js, body(`{"filters":{"tag":"nope"}}`))
	asCall(t, "GetTopQueriesAnalytics", tqgres, err, 200, `{"meta":{"page":{"current":1,"size":0}},"results":[]}`)
	tcres, err := c.PostTopClicksAnalyticsWithBodyWithResponse(ctx, "ops", js, body(`{"query":"moon"}`))
	asCall(t, "PostTopClicksAnalytics", tcres, err, 200, `{"meta":{"page":{"current":1,"size":1}},"results":[{"document_id":"a","clicks":1}]}`)
	tcgres, err := c.GetTopClicksAnalyticsWithBodyWithResponse(ctx, "ops", js, body(`{"filters":{"tag":"web"}}`))
	asCall(t, "GetTopClicksAnalytics", tcgres, err, 200, `{"meta":{"page":{"current":1,"size":1}},"results":[{"document_id":"a","clicks":1}]}`)
	cntres, err := c.PostCountAnalyticsWithBodyWithResponse(ctx, "ops", js, body(`{"interval":"day"}`))
	asCall(t, "PostCountAnalytics", cntres, err, 200, days(6, 1))
	cntgres, err := c.GetCountAnalyticsWithBodyWithResponse(ctx, "ops", js, body(`{"filters":{"tag":"nope"}}`))
	asCall(t, "GetCountAnalytics", cntgres, err, 200, days(0, 0))

	// Deletions.
	ddres, err := c.DeleteDocumentsWithBodyWithResponse(ctx, "ops", js, body(`["a","nope"]`))
	asCall(t, "DeleteDocuments", ddres, err, 200, `[{"id":"a","deleted":true},{"id":"nope","deleted":false}]`)
	deres, err := su.DeleteEngineWithResponse(ctx, "meta")
	asCall(t, "DeleteEngine meta", deres, err, 200, `{"deleted":true}`)
	deres, err = c.DeleteEngineWithResponse(ctx, "ops")
	asCall(t, "DeleteEngine", deres, err, 200, `{"deleted":true}`)
	geres, err = c.GetEngineWithResponse(ctx, "ops")
	asCall(t, "GetEngine deleted", geres, err, 404, `{"errors":["Could not find engine."]}`)
	dcres, err := admin.DeleteCredentialWithResponse(ctx, "writer")
	asCall(t, "DeleteCredential", dcres, err, 200, `{"deleted":true}`)
	gcres, err := admin.GetCredentialWithResponse(ctx, "writer")
	asCall(t, "GetCredential deleted", gcres, err, 404, `{"errors":["Could not find credential with name: writer"]}`)

	ores, err := su.AppsearchOpenapiWithResponse(ctx)
	asCall(t, "AppsearchOpenapi", ores, err, 200, `~^\{"components":|"openapi":"3`)
}
