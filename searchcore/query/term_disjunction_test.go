package query

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/similarity"

	"github.com/quarry-search/quarry/searchcore/analysis"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// viaBluge hides a query's type, so that a bool query over it takes
// bluge's searchers (the reference of termDisjunctionSearcher).
type viaBluge struct{ q bluge.Query }

func (v viaBluge) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	return v.q.Searcher(i, o)
}

// TestTermDisjunctionMatchesBluge: bool queries of term clauses find the
// same documents with bit-identical scores through termDisjunctionSearcher
// as through bluge's boolean and disjunction searchers, on an index of
// several segments with updates and deletes: repeated terms, boosts, two
// fields, minimum_should_match, alone, under a conjunction (Advance), as a
// clause of another bool and in a filter.
func TestTermDisjunctionMatchesBluge(t *testing.T) {
	reg, err := analysis.NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := mapping.Parse(json.RawMessage(`{"properties":{"t":{"type":"text"},"u":{"type":"text"},"k":{"type":"keyword"}}}`), reg)
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"san", "jose", "la", "paz", "santa", "cruz", "del", "rio", "san", "la", "x", "y"}
	rnd := rand.New(rand.NewSource(9))
	text := func() string {
		parts := make([]string, 1+rnd.Intn(6))
		for i := range parts {
			parts[i] = words[rnd.Intn(len(words))]
		}
		return strings.Join(parts, " ")
	}
	ix := buildChurnedIndex(t, m, reg, rnd, 80, 400, func() string {
		return fmt.Sprintf(`{"t":%q,"u":%q,"k":%q}`, text(), text(), words[rnd.Intn(3)])
	})
	key := bluge.NewTermQuery("san").SetField("k")
	compared, matched := 0, 0
	for n := 0; n < 300; n++ {
		var fast, slow []bluge.Query
		for c := 0; c < 2+rnd.Intn(5); c++ {
			field := "t"
			if rnd.Intn(3) == 0 {
				field = "u"
			}
			tq := bluge.NewTermQuery(words[rnd.Intn(len(words))]).SetField(field)
			if rnd.Intn(3) == 0 {
				tq.SetBoost(float64(1+rnd.Intn(4)) / 2)
			}
			fast, slow = append(fast, tq), append(slow, viaBluge{tq})
		}
		minShould := rnd.Intn(3)
		boost := []float64{1, 1, 0.5, 3}[rnd.Intn(4)]
		f := &boolQuery{should: fast, minShould: minShould, boost: boost}
		s := &boolQuery{should: slow, minShould: minShould, boost: boost}
		variants := []struct {
			name       string
			fast, slow bluge.Query
		}{
			{"alone", f, s},
			{"conjunction", &boolQuery{must: []bluge.Query{key, f}, boost: 1}, &boolQuery{must: []bluge.Query{key, s}, boost: 1}},
			{"clause", &boolQuery{should: []bluge.Query{key, f}, boost: 1}, &boolQuery{should: []bluge.Query{key, s}, boost: 1}},
			{"filter", &boolQuery{filter: []bluge.Query{f}, must: []bluge.Query{key}, boost: 1}, &boolQuery{filter: []bluge.Query{s}, must: []bluge.Query{key}, boost: 1}},
		}
		for _, v := range variants {
			desc := fmt.Sprintf("%s #%d min %d boost %v:", v.name, n, minShould, boost)
			for _, q := range fast {
				tq := q.(*bluge.TermQuery)
				desc += fmt.Sprintf(" %s:%s^%v", tq.Field(), tq.Term(), tq.Boost())
			}
			got := sameHits(t, ix, v.fast, v.slow, desc)
			compared++
			matched += got
		}
	}
	if compared < 1000 || matched < 20000 {
		t.Fatalf("compared %d queries with %d hits: too few", compared, matched)
	}
}

// BenchmarkTermSearchers compares the term-level searchers with bluge's
// (the reference path) on 50,000 documents of a six-word text field: a
// two-term match (disjunction) and a two-term phrase.
func BenchmarkTermSearchers(b *testing.B) {
	reg, err := analysis.NewRegistry(nil)
	if err != nil {
		b.Fatal(err)
	}
	m, err := mapping.Parse(json.RawMessage(`{"properties":{"t":{"type":"text"}}}`), reg)
	if err != nil {
		b.Fatal(err)
	}
	words := []string{"san", "jose", "la", "paz", "santa", "cruz", "del", "rio", "de", "el", "los", "mar"}
	rnd := rand.New(rand.NewSource(1))
	docs := make([][2]string, 50_000)
	for i := range docs {
		parts := make([]string, 2+rnd.Intn(6))
		for k := range parts {
			parts[k] = words[rnd.Intn(len(words))]
		}
		docs[i] = [2]string{fmt.Sprint(i), fmt.Sprintf(`{"t":%q}`, strings.Join(parts, " "))}
	}
	ix := buildIndex(b, m, reg, docs)
	san, jose := bluge.NewTermQuery("san").SetField("t"), bluge.NewTermQuery("jose").SetField("t")
	phrase := newPhraseQuery([][]string{{"san"}, {"jose"}}, "t", 0)
	cases := []struct {
		name string
		q    bluge.Query
	}{
		{"match/own", &boolQuery{should: []bluge.Query{san, jose}, boost: 1}},
		{"match/bluge", &boolQuery{should: []bluge.Query{viaBluge{san}, viaBluge{jose}}, boost: 1}},
		{"phrase/own", phrase},
		{"phrase/bluge", phrase.MultiPhraseQuery},
	}
	// The searchers alone, on the snapshot's reader: every match visited
	// and handed back, as a collector does.
	var rd search.Reader
	if _, err := ix.reader.Search(context.Background(), bluge.NewTopNSearch(1, readerGrab{&rd})); err != nil {
		b.Fatal(err)
	}
	opts := search.SearcherOptions{SimilarityForField: func(string) search.Similarity { return similarity.NewBM25Similarity() }}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			hits := 0
			for b.Loop() {
				s, err := c.q.Searcher(GuardReader(rd), opts)
				if err != nil {
					b.Fatal(err)
				}
				ctx := search.NewSearchContext(s.DocumentMatchPoolSize()+1, 0)
				hits = 0
				for d, err := s.Next(ctx); d != nil || err != nil; d, err = s.Next(ctx) {
					if err != nil {
						b.Fatal(err)
					}
					hits++
					ctx.DocumentMatchPool.Put(d)
				}
				_ = s.Close()
			}
			b.ReportMetric(float64(hits), "hits")
		})
	}
}

// readerGrab is a query that keeps the reader it searches.
type readerGrab struct{ r *search.Reader }

func (g readerGrab) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	*g.r = i
	return bluge.NewMatchNoneQuery().Searcher(i, o)
}
