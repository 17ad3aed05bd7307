package query

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"

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
