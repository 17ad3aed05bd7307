package query

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strconv"
	"testing"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
	segment "github.com/blugelabs/bluge_segment_api"
)

// TestDisjunctionPruning checks MaxScore pruning where its bounds are
// tight: every term scores exactly its boost (a constant similarity whose
// MaxScore is that boost), so a document's score is the sum of its terms'
// boosts, and weights are chosen near one another's sums (2 + 3 against a
// rare 4.9). For each query and top size, a collector that keeps the best
// matches like the engine's (score descending, earlier documents winning
// ties, the worst kept score published through SetMinScore) gets the same
// matches and total from the pruned searcher as from the unpruned one, on
// an index of several segments with deletions.
func TestDisjunctionPruning(t *testing.T) {
	w, err := bluge.OpenWriter(bluge.InMemoryOnlyConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rnd := rand.New(rand.NewSource(9))
	// a, b and d are common; c is rare, held alone, and comes last in
	// index order (the last batch), so that a collector learns late the
	// score it takes to enter the top.
	freq := map[string]float64{"a": 0.5, "b": 0.4, "d": 0.3}
	hasC := map[string]bool{}
	for batch := 0; batch < 6; batch++ {
		bt := bluge.NewBatch()
		for k := 0; k < 400; k++ {
			id := strconv.Itoa(rnd.Intn(2000))
			if batch == 5 && k%5 == 0 {
				id = strconv.Itoa(2000 + k)
			}
			if rnd.Intn(12) == 0 {
				bt.Delete(bluge.Identifier(id))
				delete(hasC, id)
				continue
			}
			doc := bluge.NewDocument(id)
			if batch == 5 && k%5 == 0 {
				doc.AddField(bluge.NewKeywordField("f", "c"))
				hasC[id] = true
			} else {
				for _, term := range []string{"a", "b", "d"} {
					if rnd.Float64() < freq[term] {
						doc.AddField(bluge.NewKeywordField("f", term))
					}
				}
				delete(hasC, id)
			}
			bt.Update(doc.ID(), doc)
		}
		if err := w.Batch(bt); err != nil {
			t.Fatal(err)
		}
	}
	r, err := w.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	weights := []map[string]float64{
		{"a": 2, "b": 3, "c": 4.9},           // a+b beats a rare c alone
		{"a": 2, "b": 3, "c": 5},             // a+b ties c
		{"a": 1, "b": 1.5, "c": 6, "d": 2},   // c beats every common sum
		{"a": 2.5, "b": 2.5, "c": 5, "d": 0}, // a zero weight
		{"a": 3, "c": 2.9},                   // the rare term scores least
	}
	checked := 0
	for wi, wts := range weights {
		var terms []string
		for term := range wts {
			terms = append(terms, term)
		}
		sort.Strings(terms)
		for _, boost := range []float64{1, 0.5} {
			for _, keep := range []int{1, 3, 10, 40} {
				q := &boolQuery{boost: boost}
				for _, term := range terms {
					q.should = append(q.should, bluge.NewTermQuery(term).SetField("f").SetBoost(wts[term]))
				}
				var runs [2]collected
				for p, prune := range []bool{false, true} {
					c := &pruneProbe{q: q, keep: keep, prune: prune}
					if _, err := r.Search(context.Background(), bluge.NewTopNSearch(1, c)); err != nil {
						t.Fatal(err)
					}
					if c.err != nil {
						t.Fatal(c.err)
					}
					runs[p] = c.got
				}
				name := fmt.Sprintf("weights %d, boost %v, keep %d", wi, boost, keep)
				if !runs[1].pruned {
					t.Fatalf("%s: the searcher did not prune", name)
				}
				if !reflect.DeepEqual(runs[0].top, runs[1].top) || runs[0].total != runs[1].total {
					t.Fatalf("%s: pruned %v (total %d), unpruned %v (total %d)", name, runs[1].top, runs[1].total, runs[0].top, runs[0].total)
				}
				// Where c alone outscores every sum of the others, the
				// seed from c's postings leaves c's documents alone to
				// score; the collector alone would learn it at the end.
				if wi == 2 && runs[1].returned != uint64(len(hasC)) {
					t.Fatalf("%s: pruning returned %d matches, want c's %d", name, runs[1].returned, len(hasC))
				}
				checked++
			}
		}
	}
	if checked != 40 {
		t.Fatalf("%d cases", checked)
	}
}

// collected is what pruneProbe's collector kept.
type collected struct {
	top             []string // "doc:score", best first
	total, returned uint64
	pruned          bool
}

// pruneProbe runs q's searcher with constant scorers and collects the
// best keep matches as topNCollector does, pruning when asked.
type pruneProbe struct {
	q     *boolQuery
	keep  int
	prune bool
	got   collected
	err   error
}

func (p *pruneProbe) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	o.SimilarityForField = func(string) search.Similarity { return constSimilarity{} }
	s, err := p.q.Searcher(i, o)
	if err != nil {
		p.err = err
		return nil, err
	}
	defer s.Close()
	var pruner Pruner
	if p.prune {
		pr, ok := s.(Pruner)
		if !ok {
			p.err = fmt.Errorf("%T is no Pruner", s)
			return searcherNone(i, o)
		}
		total, on, err := pr.Prune(p.keep)
		if err != nil {
			p.err = err
			return searcherNone(i, o)
		}
		if on {
			pruner, p.got.total, p.got.pruned = pr, total, true
		}
	}
	type kept struct {
		doc   uint64
		score float64
	}
	var top []kept // best first
	ctx := search.NewSearchContext(s.DocumentMatchPoolSize()+1, 0)
	for {
		dm, err := s.Next(ctx)
		if err != nil {
			p.err = err
			return searcherNone(i, o)
		}
		if dm == nil {
			break
		}
		p.got.returned++
		if pruner == nil {
			p.got.total++
		}
		// A later match loses ties, as in topNCollector.
		if len(top) < p.keep || dm.Score > top[len(top)-1].score {
			at := sort.Search(len(top), func(k int) bool { return top[k].score < dm.Score })
			top = append(top[:at], append([]kept{{dm.Number, dm.Score}}, top[at:]...)...)
			if len(top) > p.keep {
				top = top[:p.keep]
			}
			if pruner != nil && len(top) == p.keep {
				pruner.SetMinScore(top[len(top)-1].score)
			}
		}
		ctx.DocumentMatchPool.Put(dm)
	}
	for _, k := range top {
		p.got.top = append(p.got.top, fmt.Sprintf("%d:%v", k.doc, k.score))
	}
	return searcherNone(i, o)
}

func searcherNone(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	return bluge.NewMatchNoneQuery().Searcher(i, o)
}

// constSimilarity scores every match of a term its boost.
type constSimilarity struct{}

func (constSimilarity) ComputeNorm(int) float32 { return 1 }

func (constSimilarity) Scorer(boost float64, _ segment.CollectionStats, _ segment.TermStats) search.Scorer {
	return constScorer(boost)
}

// constScorer is a scorer giving its value, which is also its MaxScore.
type constScorer float64

func (c constScorer) Score(int, float64) float64 { return float64(c) }

func (c constScorer) Explain(int, float64) *search.Explanation {
	return search.NewExplanation(float64(c), "constant")
}

func (c constScorer) MaxScore() float64 { return float64(c) }
