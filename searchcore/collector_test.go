package searchcore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/index"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/aggregations"

	"github.com/quarry-search/quarry/searchcore/query"
)

// collectorIndex builds a bluge index of n documents over several
// segments: "body" text of varying length (scores vary and tie), "pop" a
// number with many ties and some documents without it, "cat" a keyword.
func collectorIndex(t testing.TB, n int) *bluge.Reader {
	t.Helper()
	w, err := bluge.OpenWriter(bluge.DefaultConfig(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	for start := 0; start < n; start += n / 4 {
		b := index.NewBatch()
		for i := start; i < min(start+n/4, n); i++ {
			d := bluge.NewDocument(fmt.Sprintf("d%05d", i))
			words := []string{"a"}
			for j := 0; j < i%7; j++ {
				words = append(words, "b")
			}
			if i%3 == 0 {
				words = append(words, "a")
			}
			d.AddField(bluge.NewTextField("body", strings.Join(words, " ")))
			if i%11 != 0 {
				d.AddField(bluge.NewNumericField("pop", float64(i%17)).Sortable().Aggregatable())
			}
			d.AddField(bluge.NewKeywordField("cat", fmt.Sprintf("c%d", i%5)).Sortable().Aggregatable())
			b.Update(d.ID(), d)
		}
		if err := w.Batch(b); err != nil {
			t.Fatal(err)
		}
	}
	r, err := w.Reader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// collSearch is a TopNSearch collected by a topNCollector.
type collSearch struct {
	*bluge.TopNSearch
	coll *topNCollector
}

func (s *collSearch) Collector() search.Collector { return s.coll }

// hitKey renders what a hit carries for comparison.
func hitKey(d *search.DocumentMatch) string {
	return fmt.Sprintf("%d/%d/%v/%x", d.Number, d.HitNumber, d.Score, d.SortValue)
}

// runBoth runs the search with bluge's collector and with ours and
// requires the same hits, order, aggregations and hit count.
func runBoth(t *testing.T, r *bluge.Reader, q bluge.Query, order search.SortOrder, n, from int, after [][]byte, scoreOnly bool, withAggs bool) []*search.DocumentMatch {
	t.Helper()
	mk := func() *bluge.TopNSearch {
		s := bluge.NewTopNSearch(n, q).SortByCustom(order).SetFrom(from)
		if after != nil {
			s.After(after)
		}
		if withAggs {
			s.AddAggregation("count", aggregations.CountMatches())
			s.AddAggregation("cats", aggregations.NewTermsAggregation(search.Field("cat"), 10))
			s.AddAggregation("max", aggregations.Max(search.Field("pop")))
		}
		return s
	}
	drain := func(req bluge.SearchRequest) ([]*search.DocumentMatch, *search.Bucket) {
		it, err := r.Search(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		var out []*search.DocumentMatch
		for {
			d, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if d == nil {
				return out, it.Aggregations()
			}
			out = append(out, d)
		}
	}
	want, wantAggs := drain(mk())
	coll := newTopNCollector(n, from, order, after, scoreOnly)
	got, gotAggs := drain(&collSearch{TopNSearch: mk(), coll: coll})
	if len(got) != len(want) {
		t.Fatalf("%d hits, want %d", len(got), len(want))
	}
	for i := range want {
		if hitKey(got[i]) != hitKey(want[i]) {
			t.Fatalf("hit %d: %s, want %s", i, hitKey(got[i]), hitKey(want[i]))
		}
	}
	if withAggs {
		if g, w := gotAggs.Count(), wantAggs.Count(); g != w {
			t.Fatalf("count aggregation %d, want %d", g, w)
		}
		if int64(gotAggs.Count()) != coll.count {
			t.Fatalf("collector count %d, want %d", coll.count, gotAggs.Count())
		}
		if g, w := gotAggs.Metric("max"), wantAggs.Metric("max"); g != w {
			t.Fatalf("max aggregation %v, want %v", g, w)
		}
		gb, wb := gotAggs.Buckets("cats"), wantAggs.Buckets("cats")
		if len(gb) != len(wb) {
			t.Fatalf("%d term buckets, want %d", len(gb), len(wb))
		}
		counts := map[string]uint64{}
		for _, b := range wb {
			counts[b.Name()] = b.Count()
		}
		for _, b := range gb {
			if counts[b.Name()] != b.Count() {
				t.Fatalf("bucket %s: %d, want %d", b.Name(), b.Count(), counts[b.Name()])
			}
		}
	} else if len(gotAggs.Aggregations()) != 0 {
		t.Fatalf("aggregations %v, want none", gotAggs.Aggregations())
	}
	return want
}

func TestTopNCollectorMatchesBluge(t *testing.T) {
	r := collectorIndex(t, 800)
	scoreOrder, _, err := query.CompileSort([]query.SortField{{Field: "_score"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	popAsc := search.SortOrder{search.SortBy(search.Field("pop"))}
	popDesc := search.SortOrder{search.SortBy(search.Field("pop")).Desc()}
	popScore := search.SortOrder{search.SortBy(search.Field("pop")).Desc(), search.SortBy(search.DocumentScore()).Desc()}
	catPop := search.SortOrder{search.SortBy(search.Field("cat")), search.SortBy(search.Field("pop")).MissingFirst()}
	queries := map[string]bluge.Query{
		"match_all": bluge.NewMatchAllQuery(),
		"term":      bluge.NewTermQuery("a").SetField("body"),
		"match":     bluge.NewMatchQuery("a b").SetField("body"),
		"none":      bluge.NewTermQuery("zzz").SetField("body"),
	}
	orders := []struct {
		name      string
		order     search.SortOrder
		scoreOnly bool
	}{
		{"score", scoreOrder, true},
		{"score generic", scoreOrder, false},
		{"pop asc", popAsc, false},
		{"pop desc", popDesc, false},
		{"pop desc score", popScore, false},
		{"cat pop", catPop, false},
	}
	windows := []struct{ n, from int }{{0, 0}, {1, 0}, {3, 0}, {10, 0}, {25, 0}, {5, 7}, {20, 30}, {10, 3000}, {1000, 0}}
	for qn, q := range queries {
		for _, o := range orders {
			for _, w := range windows {
				for _, withAggs := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s/%d+%d/aggs=%v", qn, o.name, w.from, w.n, withAggs)
					t.Run(name, func(t *testing.T) {
						all := runBoth(t, r, q, o.order, w.n, w.from, nil, o.scoreOnly, withAggs)
						if w.from != 0 || w.n < 3 {
							return
						}
						// search_after each of a few hits, including ties
						for _, i := range []int{0, 1, len(all) / 2, len(all) - 1} {
							if i < 0 || i >= len(all) {
								continue
							}
							after := append([][]byte(nil), all[i].SortValue...)
							runBoth(t, r, q, o.order, w.n, 0, after, o.scoreOnly, withAggs)
						}
					})
				}
			}
		}
	}
}

// BenchmarkTopNCollector collects the top 10 of every document (all
// scores equal) and of a field sort with bluge's collector and ours.
func BenchmarkTopNCollector(b *testing.B) {
	r := collectorIndex(b, 40000)
	scoreOrder, _, err := query.CompileSort([]query.SortField{{Field: "_score"}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	popDesc := search.SortOrder{search.SortBy(search.Field("pop")).Desc()}
	run := func(b *testing.B, req func() bluge.SearchRequest) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			it, err := r.Search(context.Background(), req())
			if err != nil {
				b.Fatal(err)
			}
			for {
				d, err := it.Next()
				if err != nil {
					b.Fatal(err)
				}
				if d == nil {
					break
				}
			}
		}
	}
	for _, tc := range []struct {
		name      string
		order     search.SortOrder
		scoreOnly bool
	}{{"score", scoreOrder, true}, {"pop_desc", popDesc, false}} {
		q := bluge.NewMatchAllQuery()
		b.Run(tc.name+"/bluge", func(b *testing.B) {
			run(b, func() bluge.SearchRequest { return bluge.NewTopNSearch(10, q).SortByCustom(tc.order) })
		})
		b.Run(tc.name+"/quarry", func(b *testing.B) {
			run(b, func() bluge.SearchRequest {
				c := newTopNCollector(10, 0, tc.order, nil, tc.scoreOnly)
				return &collSearch{TopNSearch: bluge.NewTopNSearch(10, q).SortByCustom(tc.order), coll: c}
			})
		})
	}
}
