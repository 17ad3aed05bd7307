package aggs_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/index"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/aggs"
	"github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
	"github.com/quarry-search/quarry/searchcore/query"
)

const numShards = 2

// fixture is a dataset indexed into numShards in-memory bluge indexes
// (document i goes to shard i%numShards) plus the decoded documents.
type fixture struct {
	m      *mapping.Mapping
	shards []*bluge.Reader
	docs   []map[string]any
}

var (
	fixMu    sync.Mutex
	fixtures = map[string]*fixture{}
)

const citiesMapping = `{"properties":{
	"id":{"type":"keyword"},"name":{"type":"text"},"country":{"type":"keyword"},
	"feature_code":{"type":"keyword"},"admin_code":{"type":"keyword"},
	"population":{"type":"long"},"location":{"type":"geo_point"}}}`

const emailsMapping = `{"properties":{
	"id":{"type":"keyword"},"group":{"type":"keyword"},"spam":{"type":"boolean"},
	"from":{"type":"keyword"},"to":{"type":"text"},"subject":{"type":"text"},
	"date":{"type":"date"},"body":{"type":"text"}}}`

func cities(tb testing.TB) *fixture {
	return load(tb, "cities", "/work/shared/datasets/cities.ndjson.gz", citiesMapping, 20000)
}

// citiesFull is the whole cities dataset (about 135k documents).
func citiesFull(tb testing.TB) *fixture {
	return load(tb, "cities-full", "/work/shared/datasets/cities.ndjson.gz", citiesMapping, 0)
}

func emails(tb testing.TB) *fixture {
	return load(tb, "emails", "/work/shared/datasets/emails.ndjson.gz", emailsMapping, 0)
}

func load(tb testing.TB, name, path, mappingJSON string, limit int) *fixture {
	tb.Helper()
	fixMu.Lock()
	defer fixMu.Unlock()
	if f := fixtures[name]; f != nil {
		return f
	}
	m, err := mapping.Parse(json.RawMessage(mappingJSON), nil)
	if err != nil {
		tb.Fatal(err)
	}
	fh, err := os.Open(path)
	if err != nil {
		tb.Skipf("dataset not available: %v", err)
	}
	defer fh.Close()
	gz, err := gzip.NewReader(fh)
	if err != nil {
		tb.Fatal(err)
	}
	f := &fixture{m: m}
	var writers []*bluge.Writer
	var batches []*index.Batch
	for i := 0; i < numShards; i++ {
		w, err := bluge.OpenWriter(bluge.InMemoryOnlyConfig())
		if err != nil {
			tb.Fatal(err)
		}
		writers = append(writers, w)
		batches = append(batches, bluge.NewBatch())
	}
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for n := 0; sc.Scan() && (limit == 0 || n < limit); n++ {
		line := append([]byte(nil), sc.Bytes()...)
		var d map[string]any
		if err := json.Unmarshal(line, &d); err != nil {
			tb.Fatal(err)
		}
		id := fmt.Sprint(d["id"])
		doc := bluge.NewDocument(id)
		if _, err := m.ParseDocument(id, line, nil, doc); err != nil {
			tb.Fatalf("doc %s: %v", id, err)
		}
		doc.AddField(bluge.NewStoredOnlyField("_source", line))
		f.docs = append(f.docs, d)
		batches[n%numShards].Update(doc.ID(), doc)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	for i, w := range writers {
		if err := w.Batch(batches[i]); err != nil {
			tb.Fatal(err)
		}
		r, err := w.Reader()
		if err != nil {
			tb.Fatal(err)
		}
		f.shards = append(f.shards, r)
	}
	fixtures[name] = f
	return f
}

// shardOf is the shard document i lives on.
func shardOf(i int) int { return i % numShards }

// opts are the per-search options of run.
type opts struct {
	sort      []string // bluge sort keys ("population", "-population")
	typedKeys bool
	q         bluge.Query
	// fast runs the column-wise path (Root.Fast); the request must qualify.
	fast bool
	// cols are the shards' column caches for the fast path (nil: none).
	cols []*aggs.Columns
}

// readerCapture is a search that remembers the shard's search.Reader, which
// a fast partial's Complete needs.
type readerCapture struct {
	*bluge.TopNSearch
	got search.Reader
}

func (c *readerCapture) Searcher(i search.Reader, config bluge.Config) (search.Searcher, error) {
	c.got = i
	return c.TopNSearch.Searcher(i, config)
}

// run executes the aggregations on every shard and reduces them.
func (f *fixture) run(tb testing.TB, body string, o opts) (json.RawMessage, error) {
	tb.Helper()
	req, err := aggs.Parse(json.RawMessage(body))
	if err != nil {
		return nil, err
	}
	var sortFields []string
	for _, s := range o.sort {
		sortFields = append(sortFields, strings.TrimPrefix(s, "-"))
	}
	root, err := req.Prepare(&query.Context{Mapping: f.m}, sortFields)
	if err != nil {
		return nil, err
	}
	return f.runPrepared(tb, req, root, o)
}

// runPrepared runs an already prepared request on every shard and reduces.
func (f *fixture) runPrepared(tb testing.TB, req *aggs.Request, root *aggs.Root, o opts) (json.RawMessage, error) {
	tb.Helper()
	var parts []*search.Bucket
	for i, r := range f.shards {
		q := o.q
		if q == nil {
			q = bluge.NewMatchAllQuery()
		}
		sr := bluge.NewTopNSearch(10, q)
		if len(o.sort) > 0 {
			sr = sr.SortBy(o.sort)
		}
		shardRoot := root
		if root.NeedsBind() {
			var err error
			if shardRoot, err = root.Bind(context.Background(), r); err != nil {
				return nil, err
			}
		}
		if o.fast {
			fr, ok := shardRoot.Fast()
			if !ok {
				tb.Fatal("request does not qualify for the fast path")
			}
			shardRoot = fr
		}
		sr.AddAggregation(aggs.RootName, shardRoot)
		rc := &readerCapture{TopNSearch: sr}
		it, err := r.Search(context.Background(), rc)
		if err != nil {
			tb.Fatal(err)
		}
		for m, err := it.Next(); m != nil || err != nil; m, err = it.Next() {
			if err != nil {
				tb.Fatal(err)
			}
		}
		var cols *aggs.Columns
		if o.cols != nil {
			cols = o.cols[i]
		}
		if err := aggs.PartialOf(it.Aggregations()).Complete(rc.got, cols); err != nil {
			return nil, err
		}
		parts = append(parts, it.Aggregations())
	}
	return req.Reduce(parts, o.typedKeys)
}

// mustRun is run that fails the test on error and decodes the result.
func (f *fixture) mustRun(tb testing.TB, body string, o opts) map[string]any {
	tb.Helper()
	raw, err := f.run(tb, body, o)
	if err != nil {
		tb.Fatalf("aggs %s: %v", body, err)
	}
	return decode(tb, raw)
}

func decode(tb testing.TB, raw json.RawMessage) map[string]any {
	tb.Helper()
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("invalid JSON %s: %v", raw, err)
	}
	return v
}

// get walks a decoded result by dotted path; numeric segments index arrays.
func get(tb testing.TB, v any, path string) any {
	tb.Helper()
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[p]; !ok {
				tb.Fatalf("path %s: no member %q in %v", path, p, keys(x))
			}
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i >= len(x) {
				tb.Fatalf("path %s: bad index %q (len %d)", path, p, len(x))
			}
			v = x[i]
		default:
			tb.Fatalf("path %s: cannot descend into %T at %q", path, v, p)
		}
	}
	return v
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// num converts a decoded JSON number (nil stays NaN).
func num(tb testing.TB, v any) float64 {
	tb.Helper()
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			tb.Fatal(err)
		}
		return f
	case nil:
		return math.NaN()
	}
	tb.Fatalf("not a number: %#v", v)
	return 0
}

// eqNum asserts a number within a relative 1e-9 (exact for integers).
func eqNum(tb testing.TB, what string, got any, want float64) {
	tb.Helper()
	g := num(tb, got)
	if math.IsNaN(want) {
		if got != nil {
			tb.Errorf("%s = %v, want null", what, got)
		}
		return
	}
	if g != want && math.Abs(g-want) > 1e-9*math.Max(1, math.Abs(want)) {
		tb.Errorf("%s = %v, want %v", what, got, want)
	}
}

// eqInt asserts an integer JSON number literal (no fraction).
func eqInt(tb testing.TB, what string, got any, want int64) {
	tb.Helper()
	n, ok := got.(json.Number)
	if !ok || n.String() != strconv.FormatInt(want, 10) {
		tb.Errorf("%s = %v, want %d", what, got, want)
	}
}

func checkErr(tb testing.TB, err error, typ, reason string) {
	tb.Helper()
	var e *eserr.Error
	if !errors.As(err, &e) {
		tb.Fatalf("err = %v (%T), want %s: %s", err, err, typ, reason)
	}
	if e.Type != typ || (reason != "" && e.Reason != reason) {
		tb.Errorf("error = %s: %q\nwant    %s: %q", e.Type, e.Reason, typ, reason)
	}
}

// field helpers over decoded documents
func fnum(d map[string]any, k string) (float64, bool) {
	v, ok := d[k].(float64)
	return v, ok
}

func fstr(d map[string]any, k string) (string, bool) {
	v, ok := d[k].(string)
	return v, ok
}

// expBucket is an expected terms bucket.
type expBucket struct {
	key   string
	count int64
}

// esTerms computes an ES terms result over 2+ shards: each shard keeps its
// top shardSize buckets (count desc, key asc); returns buckets, error bound
// and sum_other_doc_count.
func esTerms(docs []map[string]any, keyOf func(d map[string]any) (string, bool), size, shardSize int, less func(a, b expBucket) bool) ([]expBucket, int64, int64) {
	per := make([]map[string]int64, numShards)
	for i := range per {
		per[i] = map[string]int64{}
	}
	for i, d := range docs {
		if k, ok := keyOf(d); ok {
			per[shardOf(i)][k]++
		}
	}
	merged := map[string]int64{}
	var errSum, other int64
	for _, m := range per {
		var bs []expBucket
		for k, c := range m {
			bs = append(bs, expBucket{k, c})
		}
		sort.Slice(bs, func(i, j int) bool { return less(bs[i], bs[j]) })
		if len(bs) > shardSize {
			for _, b := range bs[shardSize:] {
				other += b.count
			}
			bs = bs[:shardSize]
		}
		if len(bs) == shardSize {
			errSum += bs[len(bs)-1].count
		}
		for _, b := range bs {
			merged[b.key] += b.count
		}
	}
	var all []expBucket
	for k, c := range merged {
		all = append(all, expBucket{k, c})
	}
	sort.Slice(all, func(i, j int) bool { return less(all[i], all[j]) })
	if len(all) > size {
		for _, b := range all[size:] {
			other += b.count
		}
		all = all[:size]
	}
	return all, errSum, other
}

func countDesc(a, b expBucket) bool {
	if a.count != b.count {
		return a.count > b.count
	}
	return a.key < b.key
}

func citiesMappingParsed(tb testing.TB) *mapping.Mapping {
	m, err := mapping.Parse(json.RawMessage(citiesMapping), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// checkFastMatches runs body per document, then column-wise without a
// column cache and twice with cols (building, then reusing the cached
// columns), and fails unless all four answers are the same bytes.
func checkFastMatches(t *testing.T, f *fixture, body string, cols []*aggs.Columns) {
	t.Helper()
	slow, err := f.run(t, body, opts{})
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range []opts{{fast: true}, {fast: true, cols: cols}, {fast: true, cols: cols}} {
		fast, err := f.run(t, body, o)
		if err != nil {
			t.Fatal(err)
		}
		if string(slow) != string(fast) {
			t.Errorf("%s: fast path %d differs:\nper-document %s\ncolumn-wise  %s", body, i, slow, fast)
		}
	}
}
