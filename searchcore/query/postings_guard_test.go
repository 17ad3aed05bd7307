package query

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
	segment "github.com/blugelabs/bluge_segment_api"

	"github.com/quarry-search/quarry/searchcore/analysis"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// spied searches its query on a reader whose postings iterators record,
// in misuse, every advance to a document at or before the last one
// returned and every second close. guard puts GuardReader above the spy.
type spied struct {
	q      bluge.Query
	guard  bool
	misuse *[]string
}

func (s spied) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	var r search.Reader = spyReader{Reader: i, misuse: s.misuse}
	if s.guard {
		r = GuardReader(r)
	}
	return s.q.Searcher(r, o)
}

type spyReader struct {
	search.Reader
	misuse *[]string
}

func (r spyReader) PostingsIterator(term []byte, field string, a, b, c bool) (segment.PostingsIterator, error) {
	it, err := r.Reader.PostingsIterator(term, field, a, b, c)
	if err != nil {
		return nil, err
	}
	return &spyPostings{PostingsIterator: it, name: field + ":" + string(term), misuse: r.misuse}, nil
}

type spyPostings struct {
	segment.PostingsIterator
	name    string
	misuse  *[]string
	last    uint64
	started bool
	closed  bool
}

func (s *spyPostings) Next() (segment.Posting, error) {
	p, err := s.PostingsIterator.Next()
	if p != nil {
		s.last, s.started = p.Number(), true
	}
	return p, err
}

func (s *spyPostings) Advance(n uint64) (segment.Posting, error) {
	if s.started && n <= s.last {
		*s.misuse = append(*s.misuse, fmt.Sprintf("%s: advance to %d after %d", s.name, n, s.last))
	}
	p, err := s.PostingsIterator.Advance(n)
	if p != nil {
		s.last, s.started = p.Number(), true
	}
	return p, err
}

func (s *spyPostings) Close() error {
	if s.closed {
		*s.misuse = append(*s.misuse, s.name+": closed twice")
	}
	s.closed = true
	return s.PostingsIterator.Close()
}

func (s *spyPostings) Optimize(kind string, octx segment.OptimizableContext) (segment.OptimizableContext, error) {
	if o, ok := s.PostingsIterator.(segment.Optimizable); ok {
		return o.Optimize(kind, octx)
	}
	return nil, nil
}

// TestGuardedPostings: bluge's searchers advance exhausted terms
// backwards (here a bool of term clauses with minimum_should_match 2 under
// a conjunction), which makes bluge's snapshot iterator restart by handing
// itself back to the snapshot's pool while in use. Through GuardReader no
// such advance reaches the snapshot's iterators, nothing is closed twice,
// and the documents found are those holding the key and two of the terms.
func TestGuardedPostings(t *testing.T) {
	reg, err := analysis.NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := mapping.Parse(json.RawMessage(`{"properties":{"t":{"type":"text"},"k":{"type":"keyword"}}}`), reg)
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"san", "jose", "la", "paz", "santa", "cruz", "del", "rio"}
	rnd := rand.New(rand.NewSource(3))
	ix := buildChurnedIndex(t, m, reg, rnd, 80, 400, func() string {
		parts := make([]string, 1+rnd.Intn(5))
		for i := range parts {
			parts[i] = words[rnd.Intn(len(words))]
		}
		return fmt.Sprintf(`{"t":%q,"k":%q}`, strings.Join(parts, " "), words[rnd.Intn(3)])
	})
	key := bluge.NewTermQuery("san").SetField("k")
	var unguarded, guardedMisuse []string
	var queries []bluge.Query
	for n := 0; n < 100; n++ {
		var should []bluge.Query
		for c := 0; c < 3+rnd.Intn(3); c++ {
			should = append(should, viaBluge{bluge.NewTermQuery(words[rnd.Intn(len(words))]).SetField("t")})
		}
		q := &boolQuery{must: []bluge.Query{key, &boolQuery{should: should, minShould: 2, boost: 1}}, boost: 1}
		queries = append(queries, q)
		got := ix.run(t, spied{q: q, guard: true, misuse: &guardedMisuse}, nil, nil)
		// The reference: the conjunction of the key with each pair of
		// terms, evaluated with plain term conjunctions only.
		want := map[string]bool{}
		for a := range should {
			for b := a + 1; b < len(should); b++ {
				pair := &boolQuery{must: []bluge.Query{key, should[a], should[b]}, boost: 1}
				for _, h := range ix.run(t, pair, nil, nil) {
					want[h.id] = true
				}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("query %d: %d hits, want %d", n, len(got), len(want))
		}
		for _, h := range got {
			if !want[h.id] {
				t.Fatalf("query %d: unexpected hit %s", n, h.id)
			}
		}
	}
	// Unguarded last: the misuse spoils the snapshot's pool of iterators.
	for _, q := range queries {
		ix.run(t, spied{q: q, misuse: &unguarded}, nil, nil)
	}
	if len(unguarded) == 0 {
		t.Fatal("bluge's searchers never advanced backwards: the test does not reach the case")
	}
	if len(guardedMisuse) != 0 {
		t.Fatalf("through GuardReader: %d misuses, first %s", len(guardedMisuse), guardedMisuse[0])
	}
}
