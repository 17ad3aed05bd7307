package query

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/blugelabs/bluge"

	"github.com/quarry-search/quarry/searchcore/analysis"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// TestExactPhraseMatchesBluge: the exact-phrase searcher finds the same
// documents with bit-identical scores as bluge's phrase searcher, on an
// index of several segments with updates and deletes: phrases with
// repeated terms, stop-word gaps (leading, inner, trailing), multi-valued
// fields, inside a conjunction (Advance) and in a filter (no scores).
func TestExactPhraseMatchesBluge(t *testing.T) {
	reg, err := analysis.NewRegistry(json.RawMessage(`{"analyzer":{"stopper":{"type":"stop"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := mapping.Parse(json.RawMessage(`{"properties":{"t":{"type":"text"},"s":{"type":"text","analyzer":"stopper"},"k":{"type":"keyword"}}}`), reg)
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"la", "red", "fox", "the", "jumps", "over", "a", "dog", "red", "la"}
	rnd := rand.New(rand.NewSource(5))
	text := func() string {
		n := 1 + rnd.Intn(12)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = words[rnd.Intn(len(words))]
		}
		return strings.Join(parts, " ")
	}
	ix := buildChurnedIndex(t, m, reg, rnd, 60, 300, func() string {
		if rnd.Intn(4) == 0 {
			return fmt.Sprintf(`{"t":[%q,%q],"s":[%q,%q],"k":"red"}`, text(), text(), text(), text())
		}
		return fmt.Sprintf(`{"t":%q,"s":%q,"k":%q}`, text(), text(), words[rnd.Intn(4)])
	})
	term := bluge.NewTermQuery("red").SetField("k")
	compared, matched := 0, 0
	for n := 0; n < 300; n++ {
		field := "t"
		if n%2 == 1 {
			field = "s" // "the", "a", "over" are stop words: gaps
		}
		phrase := make([]string, 2+rnd.Intn(3))
		for i := range phrase {
			phrase[i] = words[rnd.Intn(len(words))]
		}
		q := ix.compile(t, fmt.Sprintf(`{"match_phrase":{%q:%q}}`, field, strings.Join(phrase, " ")))
		pq, ok := unwrapBoost(q).(*phraseQuery)
		if !ok {
			continue // a single term after analysis
		}
		slow := pq.MultiPhraseQuery
		variants := []struct {
			name       string
			fast, slow bluge.Query
		}{
			{"phrase", pq, slow},
			{"conjunction", &boolQuery{must: []bluge.Query{term, pq}, boost: 1}, &boolQuery{must: []bluge.Query{term, slow}, boost: 1}},
			{"filter", &boolQuery{filter: []bluge.Query{pq}, boost: 1}, &boolQuery{filter: []bluge.Query{slow}, boost: 1}},
		}
		for _, v := range variants {
			got := sameHits(t, ix, v.fast, v.slow, fmt.Sprintf("%s %s %q", v.name, field, phrase))
			compared++
			matched += got
		}
	}
	if compared < 500 || matched < 1000 {
		t.Fatalf("compared %d queries with %d hits: too few", compared, matched)
	}
}

// unwrapBoost returns the query under a boost wrapper.
func unwrapBoost(q bluge.Query) bluge.Query {
	if s, ok := q.(*scaleQuery); ok {
		return s.q
	}
	return q
}

// buildChurnedIndex indexes eight batches of documents made by source
// (about perBatch each, ids below maxID) with updates and deletes, into an
// index of several segments.
func buildChurnedIndex(t *testing.T, m *mapping.Mapping, reg *analysis.Registry, rnd *rand.Rand, perBatch, maxID int, source func() string) *testIndex {
	t.Helper()
	w, err := bluge.OpenWriter(bluge.InMemoryOnlyConfig())
	if err != nil {
		t.Fatal(err)
	}
	for b := 0; b < 8; b++ {
		batch := bluge.NewBatch()
		seen := map[string]bool{}
		for k := 0; k < perBatch; k++ {
			id := strconv.Itoa(rnd.Intn(maxID))
			if seen[id] {
				continue
			}
			seen[id] = true
			if rnd.Intn(8) == 0 {
				batch.Delete(bluge.Identifier(id))
				continue
			}
			doc := bluge.NewDocument(id)
			updated, _, err := m.ParseDocumentWith(id, []byte(source()), reg, doc, mapping.DocOptions{NestedLimit: mapping.NestedObjectsLimit, NumericStep: mapping.NumericStep})
			if err != nil {
				t.Fatal(err)
			}
			if updated != nil {
				m = updated
			}
			batch.Update(doc.ID(), doc)
		}
		if err := w.Batch(batch); err != nil {
			t.Fatal(err)
		}
	}
	r, err := w.Reader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
	segs := 0
	if err := probeSegments(r, &segs); err != nil || segs < 2 {
		t.Fatalf("%d segments (%v), want several", segs, err)
	}
	return &testIndex{reader: r, ctx: &Context{Mapping: m, Analyzers: reg, Now: fixedNow, Index: "test", IndexUUID: "uuid"}}
}

// sameHits runs fast and its reference slow (on a GuardReader, as the
// engine searches) and fails unless they find
// the same documents in the same order with bit-identical scores; it
// returns the number of hits.
func sameHits(t *testing.T, ix *testIndex, fast, slow bluge.Query, name string) int {
	t.Helper()
	got, want := ix.run(t, Guarded(fast), nil, nil), ix.run(t, Guarded(slow), nil, nil)
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, bluge %d", name, len(got), len(want))
	}
	for i := range got {
		if got[i].id != want[i].id || got[i].score != want[i].score {
			t.Fatalf("%s: hit %d %s %v, bluge %s %v", name, i, got[i].id, got[i].score, want[i].id, want[i].score)
		}
	}
	return len(got)
}
