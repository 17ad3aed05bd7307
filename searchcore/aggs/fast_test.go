package aggs_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/blugelabs/bluge"

	"github.com/quarry-search/quarry/searchcore/aggs"
	"github.com/quarry-search/quarry/searchcore/query"
)

// TestFastPathEquivalence runs each request through the per-document path
// and the column-wise path (Root.Fast) on the cities data and requires
// byte-identical reduced JSON.
func TestFastPathEquivalence(t *testing.T) {
	f := cities(t)
	bigCities := bluge.NewNumericRangeInclusiveQuery(100000, bluge.MaxNumeric, true, true).SetField("population")
	cases := []struct {
		name, body string
		o          opts
	}{
		{"term query", `{"t":{"terms":{"field":"country","size":6},"aggs":{"a":{"max":{"field":"population"}}}}}`, opts{q: bluge.NewTermQuery("PPLC").SetField("feature_code")}},
		{"range query", `{"t":{"terms":{"field":"country","size":6},"aggs":{"a":{"avg":{"field":"population"}}}}}`, opts{q: bigCities}},
		{"terms", `{"t":{"terms":{"field":"country"}}}`, opts{}},
		{"terms size 3", `{"t":{"terms":{"field":"country","size":3}}}`, opts{}},
		{"terms shard_size", `{"t":{"terms":{"field":"country","size":5,"shard_size":6}}}`, opts{}},
		{"terms error bounds", `{"t":{"terms":{"field":"feature_code","size":4,"show_term_doc_count_error":true}}}`, opts{}},
		{"terms key asc", `{"t":{"terms":{"field":"country","size":7,"order":{"_key":"asc"}}}}`, opts{}},
		{"terms key desc", `{"t":{"terms":{"field":"admin_code","size":7,"order":{"_key":"desc"}}}}`, opts{}},
		{"terms count asc", `{"t":{"terms":{"field":"country","size":7,"order":{"_count":"asc"}}}}`, opts{}},
		{"terms min_doc_count", `{"t":{"terms":{"field":"country","size":50,"min_doc_count":200}}}`, opts{}},
		{"terms include regex", `{"t":{"terms":{"field":"country","include":"[A-F].*","exclude":"C[AN]"}}}`, opts{}},
		{"terms include list", `{"t":{"terms":{"field":"country","include":["US","FR","DE","ZZ"]}}}`, opts{}},
		{"terms exclude list", `{"t":{"terms":{"field":"country","exclude":["US","IN"]}}}`, opts{}},
		{"terms partition", `{"t":{"terms":{"field":"country","size":100,"include":{"partition":1,"num_partitions":3}}}}`, opts{}},
		{"terms typed_keys", `{"t":{"terms":{"field":"country","size":2},"aggs":{"a":{"avg":{"field":"population"}}}}}`, opts{typedKeys: true}},
		{"terms avg", `{"t":{"terms":{"field":"country","size":10},"aggs":{"a":{"avg":{"field":"population"}}}}}`, opts{}},
		{"terms metrics", `{"t":{"terms":{"field":"feature_code","size":8},"aggs":{
			"a":{"avg":{"field":"population"}},"s":{"sum":{"field":"population"}},
			"mn":{"min":{"field":"population"}},"mx":{"max":{"field":"population"}},
			"c":{"value_count":{"field":"population"}},"k":{"value_count":{"field":"admin_code"}},
			"st":{"stats":{"field":"population"}},"x":{"extended_stats":{"field":"population","sigma":3}},
			"m":{"sum":{"field":"population","missing":7}},"u":{"avg":{"field":"nope"}}}}}`, opts{}},
		{"terms order by metric", `{"t":{"terms":{"field":"country","size":5,"order":{"a":"desc"}},"aggs":{"a":{"avg":{"field":"population"}}}}}`, opts{}},
		{"terms order by stats", `{"t":{"terms":{"field":"country","size":5,"order":[{"s.max":"asc"},{"_key":"asc"}]},"aggs":{"s":{"stats":{"field":"population"}}}}}`, opts{}},
		{"two terms same field", `{"a":{"terms":{"field":"country","size":3}},"b":{"terms":{"field":"country","size":4},"aggs":{"s":{"sum":{"field":"population"}}}}}`, opts{}},
		{"sort on sub field", `{"t":{"terms":{"field":"country","size":6},"aggs":{"s":{"sum":{"field":"population"}},"c":{"value_count":{"field":"population"}}}}}`, opts{sort: []string{"-population"}}},
		{"no matches", `{"t":{"terms":{"field":"country"},"aggs":{"a":{"avg":{"field":"population"}}}}}`, opts{q: bluge.NewTermQuery("none").SetField("country")}},
	}
	// one cache per shard for all cases, as a shard reader keeps it: the
	// first cases (few matches) build short columns that later ones extend
	var shared []*aggs.Columns
	for range f.shards {
		shared = append(shared, aggs.NewColumns())
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			slow, err := f.run(t, tc.body, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			// column-wise reading doc values, then with column caches
			// (cold, then warm)
			fo := tc.o
			fo.fast = true
			cached := fo
			cached.cols = shared
			for i, o := range []opts{fo, cached, cached} {
				fast, err := f.run(t, tc.body, o)
				if err != nil {
					t.Fatal(err)
				}
				if string(slow) != string(fast) {
					t.Errorf("fast path %d differs:\nper-document %s\ncolumn-wise  %s", i, slow, fast)
				}
			}
			if len(slow) < 60 && tc.name != "no matches" {
				t.Errorf("suspiciously small response %s", slow)
			}
		})
	}
}

// TestFastPathEligibility: only terms on keyword fields with numeric metric
// sub-aggregations take the column-wise path.
func TestFastPathEligibility(t *testing.T) {
	f := cities(t)
	cases := []struct {
		body string
		want bool
	}{
		{`{"t":{"terms":{"field":"country"}}}`, true},
		{`{"t":{"terms":{"field":"country"},"aggs":{"a":{"avg":{"field":"population"}}}}}`, true},
		{`{"t":{"terms":{"field":"population"}}}`, false},
		{`{"t":{"terms":{"field":"nope"}}}`, false},
		{`{"t":{"terms":{"field":"country","missing":"ZZ"}}}`, false},
		{`{"t":{"terms":{"field":"country","min_doc_count":0}}}`, false},
		{`{"t":{"terms":{"field":"country"},"aggs":{"c":{"cardinality":{"field":"population"}}}}}`, false},
		{`{"t":{"terms":{"field":"country"},"aggs":{"u":{"terms":{"field":"feature_code"}}}}}`, false},
		{`{"t":{"terms":{"field":"country"}},"a":{"avg":{"field":"population"}}}`, false},
		{`{"a":{"avg":{"field":"population"}}}`, false},
	}
	for _, tc := range cases {
		req, err := aggs.Parse([]byte(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		root, err := req.Prepare(&query.Context{Mapping: f.m}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if root.NeedsBind() {
			if tc.want {
				t.Errorf("%s needs bind", tc.body)
			}
			continue
		}
		if _, got := root.Fast(); got != tc.want {
			t.Errorf("Fast(%s) = %v, want %v", tc.body, got, tc.want)
		}
	}
}

// TestFastPathMissingValues: documents without the metric's field (with and
// without "missing") and multi-valued keywords give identical responses.
func TestFastPathMissingValues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sparse.ndjson.gz")
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	for i := 0; i < 300; i++ {
		d := map[string]any{"id": fmt.Sprint(i), "country": []string{"C" + fmt.Sprint(i%7), "C" + fmt.Sprint(i%3)}}
		if i%4 != 0 {
			d["population"] = i*37%101 - 20
		}
		line, _ := json.Marshal(d)
		gz.Write(append(line, '\n'))
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	f := load(t, "sparse", path, citiesMapping, 0)
	var cols []*aggs.Columns
	for range f.shards {
		cols = append(cols, aggs.NewColumns())
	}
	for _, body := range []string{
		`{"t":{"terms":{"field":"country","size":4},"aggs":{"s":{"sum":{"field":"population","missing":1000}},"a":{"avg":{"field":"population"}},"c":{"value_count":{"field":"population"}},"x":{"extended_stats":{"field":"population"}}}}}`,
		`{"t":{"terms":{"field":"country","size":3,"order":{"m":"asc"}},"aggs":{"m":{"min":{"field":"population","missing":-500}}}}}`,
	} {
		checkFastMatches(t, f, body, cols)
	}
	// the fixture exercises "missing": sum = sum of values + 1000 per
	// document without one
	res := decode(t, mustRaw(t, f, `{"t":{"terms":{"field":"country","size":4},"aggs":{"s":{"sum":{"field":"population","missing":1000}},"x":{"stats":{"field":"population"}}}}}`, opts{fast: true, cols: cols}))
	for i := 0; i < 4; i++ {
		p := fmt.Sprintf("t.buckets.%d.", i)
		dc, cnt := num(t, get(t, res, p+"doc_count")), num(t, get(t, res, p+"x.count"))
		if cnt >= dc {
			t.Fatalf("bucket %d: every document has a value", i)
		}
		eqNum(t, p+"s.value", get(t, res, p+"s.value"), num(t, get(t, res, p+"x.sum"))+1000*(dc-cnt))
	}
}

func mustRaw(t *testing.T, f *fixture, body string, o opts) json.RawMessage {
	t.Helper()
	raw, err := f.run(t, body, o)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
