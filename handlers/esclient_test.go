package handlers_test

// The official Go client (github.com/elastic/go-elasticsearch/v7) against a
// real node: every call below is what an application using the client sends,
// and every expectation is computed from the documents the test indexes.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elastic/go-elasticsearch/v7"
	"github.com/elastic/go-elasticsearch/v7/esapi"
	"github.com/elastic/go-elasticsearch/v7/esutil"
)

// ---------------------------------------------------------------------------
// Test data: 1,000 generated products (the same generator as
// .ci/clients/node/clients.test.js).

var (
	ecColors  = []string{"red", "green", "blue", "amber", "violet"}
	ecAnimals = []string{"fox", "owl", "bear", "wolf", "hare", "lynx", "crow"}
	ecDay0    = time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
)

type ecProduct struct {
	ID       string
	Name     string
	SKU      string
	Tag      string
	Qty      int
	Price    string // JSON number text; "" when the document has no price
	Released time.Time
	Active   bool
}

func (p ecProduct) priceValue() float64 {
	f, _ := strconv.ParseFloat(p.Price, 64)
	return f
}

func (p ecProduct) millis() int64 { return p.Released.UnixMilli() }

// source is the exact JSON indexed for the product.
func (p ecProduct) source() string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"name":%q,"sku":%q,"tag":%q,"qty":%d,`, p.Name, p.SKU, p.Tag, p.Qty)
	if p.Price != "" {
		fmt.Fprintf(&b, `"price":%s,`, p.Price)
	}
	fmt.Fprintf(&b, `"released":%q,"active":%t}`, p.Released.Format("2006-01-02"), p.Active)
	return b.String()
}

func ecProducts() []ecProduct {
	out := make([]ecProduct, 1000)
	for i := range out {
		p := ecProduct{
			ID:       fmt.Sprintf("p%04d", i),
			Name:     ecColors[i%5] + " " + ecAnimals[i%7],
			SKU:      fmt.Sprintf("SKU-%04d", i),
			Tag:      fmt.Sprintf("t%d", i%10),
			Qty:      (i * 37) % 1000, // a permutation of 0..999
			Released: ecDay0.AddDate(0, 0, (i*7)%365),
			Active:   i%3 == 0,
		}
		if i%50 != 7 {
			p.Price = strconv.FormatFloat(float64((i*13)%400)/4, 'f', -1, 64)
		}
		out[i] = p
	}
	return out
}

func ecFilter(ps []ecProduct, keep func(ecProduct) bool) []ecProduct {
	var out []ecProduct
	for _, p := range ps {
		if keep(p) {
			out = append(out, p)
		}
	}
	return out
}

func ecSorted(ps []ecProduct, less func(a, b ecProduct) bool) []ecProduct {
	out := append([]ecProduct(nil), ps...)
	sort.SliceStable(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

func ecPage(ps []ecProduct, from, size int) []ecProduct {
	if from > len(ps) {
		return nil
	}
	end := from + size
	if end > len(ps) {
		end = len(ps)
	}
	return ps[from:end]
}

func ecIDs(ps []ecProduct) []string {
	ids := []string{}
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	return ids
}

func ecHas(tokens string, want ...string) []bool {
	set := map[string]bool{}
	for _, t := range strings.Fields(strings.ToLower(tokens)) {
		set[t] = true
	}
	out := make([]bool, len(want))
	for i, w := range want {
		out[i] = set[w]
	}
	return out
}

// ---------------------------------------------------------------------------
// Helpers.

// headerCheck records every response that lacks X-Elastic-Product.
type headerCheck struct {
	base    http.RoundTripper
	mu      sync.Mutex
	seen    int
	missing []string
}

func (h *headerCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := h.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.seen++
	if res.Header.Get("X-Elastic-Product") != "Elasticsearch" {
		h.missing = append(h.missing, req.Method+" "+req.URL.RequestURI())
	}
	h.mu.Unlock()
	return res, nil
}

// ecDecode reads and closes an esapi response, decoding numbers as json.Number.
// Use it as ecDecode(t, what)(es.Call(...)).
func ecDecode(t *testing.T, what string) func(*esapi.Response, error) (int, map[string]any, []byte) {
	return func(res *esapi.Response, err error) (int, map[string]any, []byte) {
		t.Helper()
		return ecRead(t, what, res, err)
	}
}

func ecRead(t *testing.T, what string, res *esapi.Response, err error) (int, map[string]any, []byte) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: client error: %v", what, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s: read body: %v", what, err)
	}
	if got := res.Header.Get("X-Elastic-Product"); got != "Elasticsearch" {
		t.Errorf("%s: X-Elastic-Product = %q, want Elasticsearch", what, got)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return res.StatusCode, nil, raw
	}
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("%s: invalid JSON (%d) %q: %v", what, res.StatusCode, truncate(raw, 400), err)
	}
	return res.StatusCode, out, raw
}

// ecJSON decodes a literal expectation the same way as responses.
func ecJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("bad expectation %s: %v", s, err)
	}
	return ecCanon(v)
}

// ecCanon makes decoded JSON comparable: numbers are compared by value
// (99.0 and 99 are the same double), everything else exactly.
func ecCanon(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = ecCanon(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = ecCanon(x)
		}
		return out
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return strconv.FormatInt(i, 10)
		}
		if f, err := strconv.ParseFloat(string(t), 64); err == nil {
			if f == float64(int64(f)) && f < 1e15 && f > -1e15 {
				return strconv.FormatInt(int64(f), 10)
			}
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
		return string(t)
	case float64:
		return ecCanon(json.Number(strconv.FormatFloat(t, 'f', -1, 64)))
	case int:
		return strconv.Itoa(t)
	case int64:
		return strconv.FormatInt(t, 10)
	default:
		return v
	}
}

// ecEqual compares decoded JSON with an expectation given as JSON text.
func ecEqual(t *testing.T, what string, got any, want string) {
	t.Helper()
	if g, w := ecCanon(got), ecJSON(t, want); !reflect.DeepEqual(g, w) {
		t.Errorf("%s = %s\n want %s", what, str(got), want)
	}
}

func ecHitIDs(body map[string]any) []string {
	ids := []string{}
	hits, _ := jsonPath(body, "hits.hits").([]any)
	for _, h := range hits {
		id, _ := jsonPath(h, "_id").(string)
		ids = append(ids, id)
	}
	return ids
}

func ecSortValues(body map[string]any) []any {
	out := []any{}
	hits, _ := jsonPath(body, "hits.hits").([]any)
	for _, h := range hits {
		out = append(out, jsonPath(h, "sort"))
	}
	return out
}

func ecNum(v any) float64 {
	n, _ := v.(json.Number)
	f, _ := strconv.ParseFloat(string(n), 64)
	return f
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// ---------------------------------------------------------------------------

func TestOfficialGoClient(t *testing.T) {
	n := newTestNode(t)
	hc := &headerCheck{base: n.HTTP.Transport}
	es, err := elasticsearch.NewClient(elasticsearch.Config{Addresses: []string{n.URL}, Transport: hc})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	products := ecProducts()
	byID := map[string]ecProduct{}
	for _, p := range products {
		byID[p.ID] = p
	}
	// The steps run in order and build on each other's data; a failing
	// step does not stop the later ones, which report their own problems.
	step := func(name string, f func(t *testing.T)) { t.Run(name, f) }

	step("info", func(t *testing.T) {
		code, body, _ := ecDecode(t, "GET /")(es.Info(es.Info.WithContext(ctx)))
		if code != 200 {
			t.Fatalf("status = %d: %v", code, body)
		}
		for path, want := range map[string]string{
			"name":                   `"node-1"`,
			"cluster_name":           `"test-cluster"`,
			"version.number":         `"7.17.0"`,
			"version.build_flavor":   `"default"`,
			"version.lucene_version": `"8.11.1"`,
			"tagline":                `"You Know, for Search"`,
		} {
			ecEqual(t, "GET / "+path, jsonPath(body, path), want)
		}
	})

	step("cluster health, no indices", func(t *testing.T) {
		code, body, _ := ecDecode(t, "GET /_cluster/health")(es.Cluster.Health(es.Cluster.Health.WithContext(ctx)))
		if code != 200 {
			t.Fatalf("status = %d: %v", code, body)
		}
		ecEqual(t, "health", body, `{"cluster_name":"test-cluster","status":"green","timed_out":false,
			"number_of_nodes":1,"number_of_data_nodes":1,"active_primary_shards":0,"active_shards":0,
			"relocating_shards":0,"initializing_shards":0,"unassigned_shards":0,"delayed_unassigned_shards":0,
			"number_of_pending_tasks":0,"number_of_in_flight_fetch":0,"task_max_waiting_in_queue_millis":0,
			"active_shards_percent_as_number":100.0}`)
	})

	mappings := `{"properties":{"name":{"type":"text"},"sku":{"type":"keyword"},"tag":{"type":"keyword"},
		"qty":{"type":"integer"},"price":{"type":"double"},"released":{"type":"date"},"active":{"type":"boolean"}}}`

	step("create index with mappings", func(t *testing.T) {
		create := `{"settings":{"number_of_shards":2,"number_of_replicas":0},"mappings":` + mappings + `}`
		code, body, _ := ecDecode(t, "PUT /catalog")(es.Indices.Create("catalog",
			es.Indices.Create.WithContext(ctx), es.Indices.Create.WithBody(strings.NewReader(create))))
		if code != 200 {
			t.Fatalf("status = %d: %v", code, body)
		}
		ecEqual(t, "create catalog", body, `{"acknowledged":true,"shards_acknowledged":true,"index":"catalog"}`)
		for _, idx := range []string{"scored", "rawbulk"} {
			settings := `{"settings":{"number_of_shards":1,"number_of_replicas":0},"mappings":{"properties":{"title":{"type":"text"},"n":{"type":"integer"}}}}`
			code, body, _ := ecDecode(t, "PUT /"+idx)(es.Indices.Create(idx,
				es.Indices.Create.WithContext(ctx), es.Indices.Create.WithBody(strings.NewReader(settings))))
			if code != 200 {
				t.Fatalf("create %s: status = %d: %v", idx, code, body)
			}
			ecEqual(t, "create "+idx, body, `{"acknowledged":true,"shards_acknowledged":true,"index":"`+idx+`"}`)
		}
		code, body, _ = ecDecode(t, "PUT /catalog again")(es.Indices.Create("catalog", es.Indices.Create.WithContext(ctx)))
		if code != 400 || jsonPath(body, "error.type") != "resource_already_exists_exception" {
			t.Errorf("create existing index = %d %v, want 400 resource_already_exists_exception", code, body)
		}
	})

	step("cluster health of an index", func(t *testing.T) {
		code, body, _ := ecDecode(t, "GET /_cluster/health/catalog")(es.Cluster.Health(
			es.Cluster.Health.WithContext(ctx), es.Cluster.Health.WithIndex("catalog"), es.Cluster.Health.WithWaitForStatus("green")))
		if code != 200 {
			t.Fatalf("status = %d: %v", code, body)
		}
		for path, want := range map[string]string{
			"status": `"green"`, "timed_out": "false", "number_of_nodes": "1", "active_primary_shards": "2",
			"active_shards": "2", "unassigned_shards": "0", "active_shards_percent_as_number": "100",
		} {
			ecEqual(t, "health "+path, jsonPath(body, path), want)
		}
	})

	step("put mapping and get mapping", func(t *testing.T) {
		code, body, _ := ecDecode(t, "PUT /catalog/_mapping")(es.Indices.PutMapping(
			strings.NewReader(`{"properties":{"note":{"type":"keyword","ignore_above":64}}}`),
			es.Indices.PutMapping.WithContext(ctx), es.Indices.PutMapping.WithIndex("catalog")))
		if code != 200 {
			t.Fatalf("status = %d: %v", code, body)
		}
		ecEqual(t, "put mapping", body, `{"acknowledged":true}`)
		code, body, _ = ecDecode(t, "GET /catalog/_mapping")(es.Indices.GetMapping(
			es.Indices.GetMapping.WithContext(ctx), es.Indices.GetMapping.WithIndex("catalog")))
		if code != 200 {
			t.Fatalf("status = %d: %v", code, body)
		}
		ecEqual(t, "new field", jsonPath(body, "catalog.mappings.properties.note"), `{"type":"keyword","ignore_above":64}`)
		ecEqual(t, "whole mapping", body, `{"catalog":{"mappings":{"properties":{"active":{"type":"boolean"},
			"name":{"type":"text"},"note":{"type":"keyword","ignore_above":64},"price":{"type":"double"},
			"qty":{"type":"integer"},"released":{"type":"date"},"sku":{"type":"keyword"},"tag":{"type":"keyword"}}}}}`)
	})

	scored := []struct{ id, title string }{
		{"s1", "fox fox fox"}, {"s2", "fox fox dog"}, {"s3", "fox dog cat"}, {"s4", "dog cat owl"},
	}
	step("index with refresh", func(t *testing.T) {
		for i, d := range scored {
			src := fmt.Sprintf(`{"title":%q,"n":%d}`, d.title, i+1)
			code, body, _ := ecDecode(t, "PUT /scored/_doc/"+d.id)(es.Index("scored", strings.NewReader(src),
				es.Index.WithContext(ctx), es.Index.WithDocumentID(d.id), es.Index.WithRefresh("true")))
			if code != 201 {
				t.Fatalf("index %s: status = %d: %v", d.id, code, body)
			}
			ecEqual(t, "index "+d.id, body, fmt.Sprintf(`{"_index":"scored","_type":"_doc","_id":%q,"_version":1,
				"result":"created","forced_refresh":true,"_shards":{"total":1,"successful":1,"failed":0},
				"_seq_no":%d,"_primary_term":1}`, d.id, i))
		}
		// Visible without any further refresh.
		code, body, _ := ecDecode(t, "GET /scored/_count")(es.Count(es.Count.WithContext(ctx), es.Count.WithIndex("scored")))
		if code != 200 {
			t.Fatalf("count status = %d: %v", code, body)
		}
		ecEqual(t, "count after refresh=true", body["count"], "4")
	})

	step("bulk indexer 1000 documents", func(t *testing.T) {
		var mismatched atomic.Int64
		var failures sync.Map
		bi, err := esutil.NewBulkIndexer(esutil.BulkIndexerConfig{
			Client:     es,
			Index:      "catalog",
			NumWorkers: 2,
			FlushBytes: 16 << 10, // several requests per worker
			OnError:    func(_ context.Context, err error) { t.Errorf("bulk indexer error: %v", err) },
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range products {
			err := bi.Add(ctx, esutil.BulkIndexerItem{
				Action:     "index",
				DocumentID: p.ID,
				Body:       strings.NewReader(p.source()),
				OnSuccess: func(_ context.Context, item esutil.BulkIndexerItem, res esutil.BulkIndexerResponseItem) {
					// The indexer pairs request and response items by position.
					if res.DocumentID != item.DocumentID || res.Index != "catalog" || res.Status != 201 || res.Result != "created" {
						mismatched.Add(1)
					}
				},
				OnFailure: func(_ context.Context, item esutil.BulkIndexerItem, res esutil.BulkIndexerResponseItem, err error) {
					failures.Store(item.DocumentID, fmt.Sprintf("%d %s: %s %v", res.Status, res.Error.Type, res.Error.Reason, err))
				},
			})
			if err != nil {
				t.Fatalf("add %s: %v", p.ID, err)
			}
		}
		if err := bi.Close(ctx); err != nil {
			t.Fatalf("close: %v", err)
		}
		st := bi.Stats()
		if st.NumAdded != 1000 || st.NumFlushed != 1000 || st.NumFailed != 0 || st.NumIndexed != 1000 {
			t.Errorf("stats = %+v, want 1000 added/flushed/indexed and 0 failed", st)
		}
		if st.NumRequests < 2 {
			t.Errorf("NumRequests = %d, want several bulk requests", st.NumRequests)
		}
		if m := mismatched.Load(); m != 0 {
			t.Errorf("%d response items did not match their request item (id, index, 201, created)", m)
		}
		failures.Range(func(k, v any) bool { t.Errorf("failed %v: %v", k, v); return true })
		code, body, _ := ecDecode(t, "POST /catalog/_refresh")(es.Indices.Refresh(es.Indices.Refresh.WithContext(ctx), es.Indices.Refresh.WithIndex("catalog")))
		if code != 200 {
			t.Fatalf("refresh = %d %v", code, body)
		}
		ecEqual(t, "refresh _shards", body["_shards"], `{"total":2,"successful":2,"failed":0}`)
	})

	step("raw bulk 1000 items in request order", func(t *testing.T) {
		var buf strings.Builder
		type item struct{ action, id string }
		var sent []item
		for i := 0; i < 1000; i++ {
			id := fmt.Sprintf("r%03d", (i*7919)%1000) // not in id order
			action := "index"
			if i%2 == 1 {
				action = "create"
			}
			sent = append(sent, item{action, id})
			fmt.Fprintf(&buf, "{%q:{\"_id\":%q}}\n{\"title\":\"raw item %d\",\"n\":%d}\n", action, id, i, i)
		}
		code, body, raw := ecDecode(t, "POST /rawbulk/_bulk")(es.Bulk(strings.NewReader(buf.String()),
			es.Bulk.WithContext(ctx), es.Bulk.WithIndex("rawbulk"), es.Bulk.WithRefresh("true")))
		if code != 200 {
			t.Fatalf("status = %d: %s", code, truncate(raw, 600))
		}
		if e, ok := body["errors"].(bool); !ok || e {
			t.Errorf(`"errors" = %#v, want exactly false`, body["errors"])
		}
		if _, ok := body["took"].(json.Number); !ok {
			t.Errorf(`"took" = %#v, want a number`, body["took"])
		}
		items, _ := body["items"].([]any)
		if len(items) != len(sent) {
			t.Fatalf("items = %d, want %d", len(items), len(sent))
		}
		bad := 0
		for i, it := range items {
			m, _ := it.(map[string]any)
			r, _ := m[sent[i].action].(map[string]any)
			if len(m) != 1 || r == nil || r["_id"] != sent[i].id || r["_index"] != "rawbulk" ||
				str(r["status"]) != "201" || r["result"] != "created" || str(r["_version"]) != "1" {
				if bad++; bad <= 5 {
					t.Errorf("items[%d] = %s, want %s of %s created with status 201", i, str(it), sent[i].action, sent[i].id)
				}
			}
		}
		if bad > 5 {
			t.Errorf("... %d items wrong in all", bad)
		}
		code, body, _ = ecDecode(t, "GET /rawbulk/_count")(es.Count(es.Count.WithContext(ctx), es.Count.WithIndex("rawbulk")))
		if code != 200 {
			t.Fatalf("count = %d %v", code, body)
		}
		ecEqual(t, "rawbulk count", body["count"], "1000")
	})

	step("count", func(t *testing.T) {
		tests := []struct {
			name, body string
			want       int
		}{
			{"all", "", len(products)},
			{"term", `{"query":{"term":{"tag":"t3"}}}`, len(ecFilter(products, func(p ecProduct) bool { return p.Tag == "t3" }))},
			{"match", `{"query":{"match":{"name":"fox"}}}`, len(ecFilter(products, func(p ecProduct) bool { return ecHas(p.Name, "fox")[0] }))},
		}
		for _, tc := range tests {
			opts := []func(*esapi.CountRequest){es.Count.WithContext(ctx), es.Count.WithIndex("catalog")}
			if tc.body != "" {
				opts = append(opts, es.Count.WithBody(strings.NewReader(tc.body)))
			}
			code, body, _ := ecDecode(t, "count "+tc.name)(es.Count(opts...))
			if code != 200 {
				t.Fatalf("count %s = %d %v", tc.name, code, body)
			}
			ecEqual(t, "count "+tc.name, body, fmt.Sprintf(`{"count":%d,"_shards":{"total":2,"successful":2,"skipped":0,"failed":0}}`, tc.want))
		}
	})

	step("get", func(t *testing.T) {
		p := byID["p0042"]
		code, body, _ := ecDecode(t, "GET /catalog/_doc/p0042")(es.Get("catalog", "p0042", es.Get.WithContext(ctx)))
		if code != 200 {
			t.Fatalf("status = %d: %v", code, body)
		}
		if _, ok := body["_seq_no"].(json.Number); !ok {
			t.Errorf("_seq_no = %v, want a number", body["_seq_no"])
		}
		delete(body, "_seq_no")
		ecEqual(t, "get found", body, `{"_index":"catalog","_type":"_doc","_id":"p0042","_version":1,"_primary_term":1,"found":true,"_source":`+p.source()+`}`)

		code, body, _ = ecDecode(t, "GET /catalog/_doc/p0042?_source=false")(es.Get("catalog", "p0042", es.Get.WithContext(ctx), es.Get.WithSource("false")))
		if code != 200 || body["_source"] != nil || body["found"] != true {
			t.Errorf("get _source=false = %d %v, want found without _source", code, body)
		}

		code, body, _ = ecDecode(t, "GET /catalog/_doc/p9999")(es.Get("catalog", "p9999", es.Get.WithContext(ctx)))
		if code != 404 {
			t.Errorf("missing doc status = %d, want 404", code)
		}
		ecEqual(t, "get not found", body, `{"_index":"catalog","_type":"_doc","_id":"p9999","found":false}`)

		code, body, _ = ecDecode(t, "GET /nosuchindex/_doc/1")(es.Get("nosuchindex", "1", es.Get.WithContext(ctx)))
		if code != 404 || jsonPath(body, "error.type") != "index_not_found_exception" {
			t.Errorf("get from missing index = %d %v, want 404 index_not_found_exception", code, body)
		}
	})

	step("delete", func(t *testing.T) {
		code, body, _ := ecDecode(t, "DELETE /scored/_doc/s4")(es.Delete("scored", "s4", es.Delete.WithContext(ctx), es.Delete.WithRefresh("true")))
		if code != 200 {
			t.Fatalf("status = %d: %v", code, body)
		}
		ecEqual(t, "delete", body, `{"_index":"scored","_type":"_doc","_id":"s4","_version":2,"result":"deleted",
			"forced_refresh":true,"_shards":{"total":1,"successful":1,"failed":0},"_seq_no":4,"_primary_term":1}`)
		code, body, _ = ecDecode(t, "DELETE /scored/_doc/s4 again")(es.Delete("scored", "s4", es.Delete.WithContext(ctx)))
		if code != 404 || body["result"] != "not_found" {
			t.Errorf("second delete = %d %v, want 404 not_found", code, body)
		}
		code, body, _ = ecDecode(t, "GET /scored/_doc/s4")(es.Get("scored", "s4", es.Get.WithContext(ctx)))
		if code != 404 || body["found"] != false {
			t.Errorf("get deleted = %d %v, want 404 found:false", code, body)
		}
		code, body, _ = ecDecode(t, "GET /scored/_count")(es.Count(es.Count.WithContext(ctx), es.Count.WithIndex("scored")))
		if code != 200 {
			t.Fatalf("count = %d %v", code, body)
		}
		ecEqual(t, "count after delete", body["count"], "3")
	})

	t.Run("search", func(t *testing.T) { ecSearchCases(t, es, products) })

	if hc.seen == 0 {
		t.Errorf("no responses observed")
	}
	for _, m := range hc.missing {
		t.Errorf("%s: response without X-Elastic-Product: Elasticsearch", m)
	}
}

// ecSearchCase is one search with its independently computed answer.
type ecSearchCase struct {
	name  string
	index string
	body  string
	// total is the exact hits.total JSON ("" means absent).
	total string
	// ids are the expected hit ids; unordered compares them as sets
	// (score ties among equal documents have no defined order).
	ids       []string
	unordered bool
	// sortVals is the expected JSON of every hit's "sort" (nil: not checked).
	sortVals []any
	check    func(t *testing.T, body map[string]any)
}

func ecSearchCases(t *testing.T, es *elasticsearch.Client, products []ecProduct) {
	ctx := context.Background()
	byQty := func(a, b ecProduct) bool { return a.Qty < b.Qty }
	bySKU := func(a, b ecProduct) bool { return a.SKU < b.SKU }
	eq := func(n int) string { return fmt.Sprintf(`{"value":%d,"relation":"eq"}`, n) }
	sortOf := func(ps []ecProduct, f func(p ecProduct) []any) []any {
		out := []any{}
		for _, p := range ps {
			out = append(out, f(p))
		}
		return out
	}
	all := products
	fox := ecFilter(all, func(p ecProduct) bool { return ecHas(p.Name, "fox")[0] })
	redOrFox := ecFilter(all, func(p ecProduct) bool { h := ecHas(p.Name, "red", "fox"); return h[0] || h[1] })
	redAndFox := ecFilter(all, func(p ecProduct) bool { h := ecHas(p.Name, "red", "fox"); return h[0] && h[1] })
	t3 := ecFilter(all, func(p ecProduct) bool { return p.Tag == "t3" })
	active := ecFilter(all, func(p ecProduct) bool { return p.Active })
	t1t2 := ecFilter(all, func(p ecProduct) bool { return p.Tag == "t1" || p.Tag == "t2" })
	qty100 := ecFilter(all, func(p ecProduct) bool { return p.Qty >= 100 && p.Qty < 110 })
	priced := ecFilter(all, func(p ecProduct) bool { return p.Price != "" })
	unpriced := ecFilter(all, func(p ecProduct) bool { return p.Price == "" })
	pricey := ecFilter(priced, func(p ecProduct) bool { return p.priceValue() > 99 })
	march := ecFilter(all, func(p ecProduct) bool {
		return !p.Released.Before(time.Date(2021, 3, 1, 0, 0, 0, 0, time.UTC)) && !p.Released.After(time.Date(2021, 3, 7, 0, 0, 0, 0, time.UTC))
	})
	boolSet := ecFilter(all, func(p ecProduct) bool { return ecHas(p.Name, "fox")[0] && p.Active && p.Tag != "t0" })
	shouldSet := ecFilter(all, func(p ecProduct) bool {
		h := ecHas(p.Name, "owl")
		return (h[0] || p.Tag == "t9") && p.Qty < 500
	})
	qtyAsc := ecSorted(all, byQty)
	skuDesc := ecSorted(all, func(a, b ecProduct) bool { return a.SKU > b.SKU })
	priceDesc := ecSorted(priced, func(a, b ecProduct) bool {
		if a.priceValue() != b.priceValue() {
			return a.priceValue() > b.priceValue()
		}
		return a.SKU < b.SKU
	})
	dateDesc := ecSorted(all, func(a, b ecProduct) bool {
		if !a.Released.Equal(b.Released) {
			return a.Released.After(b.Released)
		}
		return a.SKU < b.SKU
	})
	qtySort := func(p ecProduct) []any { return []any{p.Qty} }
	skuSort := func(p ecProduct) []any { return []any{p.SKU} }

	cases := []ecSearchCase{
		{name: "match_all sorted by sku", index: "catalog", body: `{"query":{"match_all":{}},"sort":[{"sku":"asc"}],"size":5}`,
			total: eq(1000), ids: ecIDs(ecPage(ecSorted(all, bySKU), 0, 5)), sortVals: sortOf(ecPage(ecSorted(all, bySKU), 0, 5), skuSort)},
		{name: "match_all default size", index: "catalog", body: `{"query":{"match_all":{}}}`,
			total: eq(1000), check: func(t *testing.T, b map[string]any) {
				hits, _ := jsonPath(b, "hits.hits").([]any)
				if len(hits) != 10 {
					t.Errorf("hits = %d, want 10", len(hits))
				}
				for _, h := range hits {
					if !reflect.DeepEqual(ecCanon(jsonPath(h, "_score")), "1") || jsonPath(h, "sort") != nil {
						t.Errorf("match_all hit %s: want _score 1.0 and no sort", str(h))
						break
					}
				}
				ecEqual(t, "max_score", jsonPath(b, "hits.max_score"), "1.0")
			}},
		{name: "match", index: "catalog", body: `{"query":{"match":{"name":"fox"}},"sort":[{"qty":"asc"}]}`,
			total: eq(len(fox)), ids: ecIDs(ecPage(ecSorted(fox, byQty), 0, 10)), sortVals: sortOf(ecPage(ecSorted(fox, byQty), 0, 10), qtySort)},
		{name: "match or", index: "catalog", body: `{"query":{"match":{"name":"Red FOX"}},"sort":[{"qty":"asc"}],"size":20}`,
			total: eq(len(redOrFox)), ids: ecIDs(ecPage(ecSorted(redOrFox, byQty), 0, 20))},
		{name: "match and", index: "catalog", body: `{"query":{"match":{"name":{"query":"red fox","operator":"and"}}},"size":100}`,
			total: eq(len(redAndFox)), ids: ecIDs(redAndFox), unordered: true},
		{name: "term keyword", index: "catalog", body: `{"query":{"term":{"tag":"t3"}},"sort":[{"sku":"desc"}],"size":4}`,
			total: eq(len(t3)), ids: ecIDs(ecPage(ecSorted(t3, func(a, b ecProduct) bool { return a.SKU > b.SKU }), 0, 4))},
		{name: "term keyword is exact", index: "catalog", body: `{"query":{"term":{"sku":"sku-0042"}}}`, total: eq(0), ids: []string{}},
		{name: "term single", index: "catalog", body: `{"query":{"term":{"sku":{"value":"SKU-0042"}}}}`, total: eq(1), ids: []string{"p0042"}},
		{name: "term boolean", index: "catalog", body: `{"query":{"term":{"active":true}},"size":0}`, total: eq(len(active)), ids: []string{}},
		{name: "terms", index: "catalog", body: `{"query":{"terms":{"tag":["t1","t2","nope"]}},"sort":["sku"],"size":3}`,
			total: eq(len(t1t2)), ids: ecIDs(ecPage(ecSorted(t1t2, bySKU), 0, 3)), sortVals: sortOf(ecPage(ecSorted(t1t2, bySKU), 0, 3), skuSort)},
		{name: "range integer", index: "catalog", body: `{"query":{"range":{"qty":{"gte":100,"lt":110}}},"sort":[{"qty":{"order":"asc"}}]}`,
			total: eq(len(qty100)), ids: ecIDs(ecSorted(qty100, byQty)), sortVals: sortOf(ecSorted(qty100, byQty), qtySort)},
		{name: "range double", index: "catalog", body: `{"query":{"range":{"price":{"gt":99}}},"sort":[{"price":"desc"},{"sku":"asc"}]}`,
			total: eq(len(pricey)), ids: ecIDs(ecSorted(pricey, func(a, b ecProduct) bool {
				if a.priceValue() != b.priceValue() {
					return a.priceValue() > b.priceValue()
				}
				return a.SKU < b.SKU
			}))},
		{name: "range date", index: "catalog", body: `{"query":{"range":{"released":{"gte":"2021-03-01","lte":"2021-03-07"}}},"sort":[{"released":"asc"},{"sku":"asc"}],"size":50}`,
			total: eq(len(march)), ids: ecIDs(ecSorted(march, func(a, b ecProduct) bool {
				if !a.Released.Equal(b.Released) {
					return a.Released.Before(b.Released)
				}
				return a.SKU < b.SKU
			})), sortVals: sortOf(ecSorted(march, func(a, b ecProduct) bool {
				if !a.Released.Equal(b.Released) {
					return a.Released.Before(b.Released)
				}
				return a.SKU < b.SKU
			}), func(p ecProduct) []any { return []any{p.millis(), p.SKU} })},
		{name: "bool must filter must_not", index: "catalog", body: `{"query":{"bool":{"must":[{"match":{"name":"fox"}}],"filter":[{"term":{"active":true}}],"must_not":[{"term":{"tag":"t0"}}]}},"sort":[{"qty":"desc"}],"size":5}`,
			total: eq(len(boolSet)), ids: ecIDs(ecPage(ecSorted(boolSet, func(a, b ecProduct) bool { return a.Qty > b.Qty }), 0, 5))},
		{name: "bool should minimum_should_match", index: "catalog", body: `{"query":{"bool":{"should":[{"match":{"name":"owl"}},{"term":{"tag":"t9"}}],"minimum_should_match":1,"filter":{"range":{"qty":{"lt":500}}}}},"sort":["qty"],"size":1000}`,
			total: eq(len(shouldSet)), ids: ecIDs(ecSorted(shouldSet, byQty))},
		{name: "exists", index: "catalog", body: `{"query":{"exists":{"field":"price"}},"size":0}`, total: eq(len(priced)), ids: []string{}},
		{name: "not exists", index: "catalog", body: `{"query":{"bool":{"must_not":{"exists":{"field":"price"}}}},"sort":["sku"],"size":100}`,
			total: eq(len(unpriced)), ids: ecIDs(ecSorted(unpriced, bySKU))},
		{name: "ids", index: "catalog", body: `{"query":{"ids":{"values":["p0500","p0005","nope"]}}}`,
			total: eq(2), ids: []string{"p0005", "p0500"}, unordered: true},
		{name: "from size", index: "catalog", body: `{"sort":[{"qty":"asc"}],"from":5,"size":3}`,
			total: eq(1000), ids: ecIDs(ecPage(qtyAsc, 5, 3)), sortVals: sortOf(ecPage(qtyAsc, 5, 3), qtySort)},
		{name: "from size past the end", index: "catalog", body: `{"sort":[{"qty":"asc"}],"from":995,"size":20}`,
			total: eq(1000), ids: ecIDs(ecPage(qtyAsc, 995, 20))},
		{name: "sort keyword desc", index: "catalog", body: `{"sort":[{"sku":{"order":"desc"}}],"size":3}`,
			total: eq(1000), ids: ecIDs(ecPage(skuDesc, 0, 3)), sortVals: sortOf(ecPage(skuDesc, 0, 3), skuSort),
			check: func(t *testing.T, b map[string]any) {
				ecEqual(t, "_score with field sort", jsonPath(b, "hits.hits.0._score"), "null")
				ecEqual(t, "max_score with field sort", jsonPath(b, "hits.max_score"), "null")
			}},
		{name: "sort numeric double", index: "catalog", body: `{"sort":[{"price":"desc"},{"sku":"asc"}],"size":6}`,
			total: eq(1000), ids: ecIDs(ecPage(priceDesc, 0, 6)),
			sortVals: sortOf(ecPage(priceDesc, 0, 6), func(p ecProduct) []any { return []any{json.Number(p.Price), p.SKU} })},
		{name: "sort date", index: "catalog", body: `{"sort":[{"released":"desc"},{"sku":"asc"}],"size":4}`,
			total: eq(1000), ids: ecIDs(ecPage(dateDesc, 0, 4)),
			sortVals: sortOf(ecPage(dateDesc, 0, 4), func(p ecProduct) []any { return []any{p.millis(), p.SKU} })},
		{name: "sort _score", index: "scored", body: `{"query":{"match":{"title":"fox"}},"sort":["_score"]}`,
			total: eq(3), ids: []string{"s1", "s2", "s3"}, check: func(t *testing.T, b map[string]any) {
				hits, _ := jsonPath(b, "hits.hits").([]any)
				prev := 0.0
				for i, h := range hits {
					s := ecNum(jsonPath(h, "_score"))
					if s <= 0 || (i > 0 && s >= prev) {
						t.Errorf("hit %d _score = %v, want positive and strictly below %v", i, jsonPath(h, "_score"), prev)
					}
					prev = s
					// Sorting on _score alone is Elasticsearch's default order: no sort values.
					if v := jsonPath(h, "sort"); v != nil {
						t.Errorf("hit %d has sort %s, want none for a plain _score sort", i, str(v))
					}
				}
				if len(hits) > 0 && ecNum(jsonPath(b, "hits.max_score")) != ecNum(jsonPath(hits[0], "_score")) {
					t.Errorf("max_score = %v, want the first _score %v", jsonPath(b, "hits.max_score"), jsonPath(hits[0], "_score"))
				}
			}},
		{name: "sort _score then field", index: "scored", body: `{"query":{"match":{"title":"dog"}},"sort":[{"_score":"desc"},{"n":"desc"}]}`,
			total: eq(2), ids: []string{"s3", "s2"}, check: func(t *testing.T, b map[string]any) {
				// Equal length, one "dog" each: equal scores, so n decides.
				hits, _ := jsonPath(b, "hits.hits").([]any)
				for i, h := range hits {
					sv, _ := jsonPath(h, "sort").([]any)
					if len(sv) != 2 || ecNum(sv[0]) <= 0 || ecNum(sv[0]) != ecNum(jsonPath(hits[0], "sort.0")) {
						t.Errorf("hit %d sort = %s, want [equal positive score, n]", i, str(jsonPath(h, "sort")))
					}
				}
				ecEqual(t, "n sort values", []any{jsonPath(b, "hits.hits.0.sort.1"), jsonPath(b, "hits.hits.1.sort.1")}, "[3,2]")
			}},
		{name: "track_total_hits true", index: "catalog", body: `{"track_total_hits":true,"size":0}`, total: eq(1000), ids: []string{}},
		{name: "track_total_hits false", index: "catalog", body: `{"track_total_hits":false,"size":1,"sort":["sku"]}`, total: "", ids: []string{"p0000"}},
		{name: "track_total_hits 100", index: "catalog", body: `{"track_total_hits":100,"size":0}`, total: `{"value":100,"relation":"gte"}`, ids: []string{}},
		{name: "track_total_hits above the count", index: "catalog", body: `{"track_total_hits":5000,"query":{"term":{"tag":"t3"}},"size":0}`, total: eq(len(t3)), ids: []string{}},
		{name: "_source on", index: "catalog", body: `{"query":{"ids":{"values":["p0007","p0010"]}},"sort":["sku"]}`,
			total: eq(2), ids: []string{"p0007", "p0010"}, check: func(t *testing.T, b map[string]any) {
				for _, id := range []string{"p0007", "p0010"} {
					i := map[string]int{"p0007": 0, "p0010": 1}[id]
					ecEqual(t, id+" _source", jsonPath(b, fmt.Sprintf("hits.hits.%d._source", i)), ecProductsByID(products)[id].source())
					ecEqual(t, id+" _index", jsonPath(b, fmt.Sprintf("hits.hits.%d._index", i)), `"catalog"`)
					ecEqual(t, id+" _type", jsonPath(b, fmt.Sprintf("hits.hits.%d._type", i)), `"_doc"`)
				}
			}},
		{name: "_source off", index: "catalog", body: `{"_source":false,"query":{"ids":{"values":["p0007"]}}}`,
			total: eq(1), ids: []string{"p0007"}, check: func(t *testing.T, b map[string]any) {
				if h, _ := jsonPath(b, "hits.hits.0").(map[string]any); h == nil || h["_source"] != nil {
					t.Errorf("hit = %s, want no _source", str(jsonPath(b, "hits.hits.0")))
				}
			}},
		{name: "_source includes", index: "catalog", body: `{"_source":["sku","qty"],"query":{"ids":{"values":["p0007"]}}}`,
			total: eq(1), ids: []string{"p0007"}, check: func(t *testing.T, b map[string]any) {
				p := ecProductsByID(products)["p0007"]
				ecEqual(t, "_source", jsonPath(b, "hits.hits.0._source"), fmt.Sprintf(`{"sku":%q,"qty":%d}`, p.SKU, p.Qty))
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body, raw := ecDecode(t, "POST /"+tc.index+"/_search")(es.Search(es.Search.WithContext(ctx),
				es.Search.WithIndex(tc.index), es.Search.WithBody(strings.NewReader(tc.body))))
			if code != 200 {
				t.Fatalf("status = %d: %s", code, truncate(raw, 600))
			}
			if tc.total == "" {
				hits, _ := jsonPath(body, "hits").(map[string]any)
				if v, ok := hits["total"]; ok {
					t.Errorf("hits.total = %s, want absent", str(v))
				}
			} else {
				ecEqual(t, "hits.total", jsonPath(body, "hits.total"), tc.total)
			}
			got := ecHitIDs(body)
			want := append([]string{}, tc.ids...)
			if tc.unordered {
				sort.Strings(got)
				sort.Strings(want)
			}
			if tc.ids != nil && strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("ids = %v\n want %v", got, want)
			}
			if tc.sortVals != nil {
				ecEqual(t, "sort values", ecSortValues(body), jsonText(tc.sortVals))
			}
			if str(body["timed_out"]) != "false" || jsonPath(body, "_shards.failed") == nil {
				t.Errorf("envelope: timed_out %v, _shards %v", body["timed_out"], body["_shards"])
			}
			if tc.check != nil {
				tc.check(t, body)
			}
		})
	}
}

func ecProductsByID(ps []ecProduct) map[string]ecProduct {
	m := make(map[string]ecProduct, len(ps))
	for _, p := range ps {
		m[p.ID] = p
	}
	return m
}
