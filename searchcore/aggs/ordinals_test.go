package aggs_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/blugelabs/bluge"

	"github.com/quarry-search/quarry/searchcore/aggs"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// ordFixture indexes docs into one in-memory shard, then deletes the
// documents of ids del and re-indexes those of upd (with their new
// content), so that the reader holds deleted documents.
func ordFixture(t *testing.T, docs []map[string]any, del []string, upd []map[string]any) *fixture {
	t.Helper()
	m, err := mapping.Parse(json.RawMessage(`{"properties":{"id":{"type":"keyword"},"tags":{"type":"keyword"},"kind":{"type":"keyword"},"n":{"type":"long"}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := bluge.OpenWriter(bluge.InMemoryOnlyConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	index := func(ds []map[string]any) {
		b := bluge.NewBatch()
		for _, d := range ds {
			line, _ := json.Marshal(d)
			id := fmt.Sprint(d["id"])
			doc := bluge.NewDocument(id)
			if _, err := m.ParseDocument(id, line, nil, doc); err != nil {
				t.Fatal(err)
			}
			doc.AddField(bluge.NewStoredOnlyField("_source", line))
			b.Update(doc.ID(), doc)
		}
		if err := w.Batch(b); err != nil {
			t.Fatal(err)
		}
	}
	index(docs)
	b := bluge.NewBatch()
	for _, id := range del {
		b.Delete(bluge.Identifier(id))
	}
	if err := w.Batch(b); err != nil {
		t.Fatal(err)
	}
	index(upd)
	r, err := w.Reader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	live := map[string]map[string]any{}
	for _, d := range docs {
		live[fmt.Sprint(d["id"])] = d
	}
	for _, id := range del {
		delete(live, id)
	}
	for _, d := range upd {
		live[fmt.Sprint(d["id"])] = d
	}
	f := &fixture{m: m, shards: []*bluge.Reader{r}}
	for _, d := range live {
		f.docs = append(f.docs, d)
	}
	return f
}

// TestFastPathOrdinalColumns runs terms through the cached ordinal columns
// (multi-valued and single-valued keywords, documents without the field,
// among them the last ones, deleted and updated documents,
// include/exclude) and requires the per-document path's bytes and the
// buckets counted from the live documents.
func TestFastPathOrdinalColumns(t *testing.T) {
	var docs []map[string]any
	for i := 0; i < 400; i++ {
		d := map[string]any{"id": fmt.Sprint(i)}
		switch {
		case i >= 380: // the last documents have neither keyword
		case i%5 == 0: // no tags
			d["kind"] = fmt.Sprint("k", i%4)
		case i%3 == 0: // one tag
			d["tags"] = fmt.Sprint("t", i%11)
			d["kind"] = fmt.Sprint("k", i%4)
		default: // several tags, one repeated
			d["tags"] = []string{fmt.Sprint("t", i%11), fmt.Sprint("t", i%7), fmt.Sprint("t", i%11)}
		}
		if i%6 != 0 {
			d["n"] = i%53 - 10
		}
		docs = append(docs, d)
	}
	var del []string
	for i := 1; i < 400; i += 9 {
		del = append(del, fmt.Sprint(i))
	}
	// the last document (number) has neither keyword
	upd := []map[string]any{
		{"id": "400", "tags": "t3", "kind": "k1"},
		{"id": "2", "tags": []string{"t0", "new"}, "kind": "k9", "n": 1000},
		{"id": "3", "n": 5},
	}
	f := ordFixture(t, docs, del, upd)
	cols := []*aggs.Columns{aggs.NewColumns()}
	bodies := []string{
		`{"t":{"terms":{"field":"tags","size":100}}}`,
		`{"t":{"terms":{"field":"kind","size":100}}}`,
		`{"t":{"terms":{"field":"tags","size":3,"shard_size":4,"show_term_doc_count_error":true}}}`,
		`{"t":{"terms":{"field":"tags","size":100,"min_doc_count":30}}}`,
		`{"t":{"terms":{"field":"tags","include":"t[0-4]","exclude":["t2"]}}}`,
		`{"t":{"terms":{"field":"tags","exclude":"t1.*"}}}`,
		`{"t":{"terms":{"field":"tags","include":{"partition":0,"num_partitions":2}}}}`,
		`{"t":{"terms":{"field":"tags","size":4,"order":{"_key":"desc"}},"aggs":{"a":{"avg":{"field":"n"}},"x":{"extended_stats":{"field":"n"}},"m":{"sum":{"field":"n","missing":7}}}}}`,
		`{"t":{"terms":{"field":"kind","size":2,"order":{"a":"asc"}},"aggs":{"a":{"avg":{"field":"n"}},"c":{"value_count":{"field":"tags"}}}}}`,
		`{"t":{"terms":{"field":"tags","size":5},"aggs":{"c":{"value_count":{"field":"kind"}},"a":{"avg":{"field":"n"}}}}}`,
		`{"t":{"terms":{"field":"tags","exclude":["t1"]},"aggs":{"a":{"avg":{"field":"n"}}}}}`,
		`{"t":{"terms":{"field":"kind"},"aggs":{"m":{"sum":{"field":"n","missing":7}}}}}`,
		`{"t":{"terms":{"field":"kind"},"aggs":{"s":{"stats":{"field":"n","missing":-3}}}}}`,
		`{"t":{"terms":{"field":"kind"},"aggs":{"c":{"value_count":{"field":"n"}}}}}`,
		`{"t":{"terms":{"field":"kind","order":{"m":"desc"}},"aggs":{"m":{"min":{"field":"n"}}}}}`,
		`{"t":{"terms":{"field":"tags","order":{"m":"desc"}},"aggs":{"m":{"max":{"field":"n","missing":99}}}}}`,
		`{"t":{"terms":{"field":"kind","exclude":"k1"},"aggs":{"a":{"avg":{"field":"n"}}}}}`,
		`{"t":{"terms":{"field":"kind"},"aggs":{"a":{"avg":{"field":"n"}},"x":{"extended_stats":{"field":"n","missing":1}}}}}`,
		`{"a":{"terms":{"field":"kind"},"aggs":{"mx":{"max":{"field":"n"}}}},"b":{"terms":{"field":"tags","size":2},"aggs":{"mn":{"min":{"field":"n"}}}}}`,
	}
	for _, body := range bodies {
		checkFastMatches(t, f, body, cols)
	}
	// the exact buckets, counted from the live documents
	for _, field := range []string{"tags", "kind"} {
		want := map[string]int{}
		for _, d := range f.docs {
			seen := map[string]bool{}
			switch v := d[field].(type) {
			case string:
				seen[v] = true
			case []string:
				for _, s := range v {
					seen[s] = true
				}
			}
			for k := range seen {
				want[k]++
			}
		}
		res := decode(t, mustRaw(t, f, `{"t":{"terms":{"field":"`+field+`","size":100}}}`, opts{fast: true, cols: cols}))
		bs := get(t, res, "t.buckets").([]any)
		if len(bs) != len(want) {
			t.Fatalf("%s: %d buckets, want %d (%v)", field, len(bs), len(want), want)
		}
		var keys []string
		for _, b := range bs {
			k := get(t, b, "key").(string)
			keys = append(keys, k)
			eqInt(t, field+" "+k, get(t, b, "doc_count"), int64(want[k]))
		}
		if !sort.SliceIsSorted(keys, func(i, j int) bool {
			if want[keys[i]] != want[keys[j]] {
				return want[keys[i]] > want[keys[j]]
			}
			return keys[i] < keys[j]
		}) {
			t.Errorf("%s: buckets out of order: %v", field, keys)
		}
	}
}
