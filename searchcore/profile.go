package searchcore

import (
	"time"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/aggs"
	"github.com/quarry-search/quarry/searchcore/query"
)

// Search profiling (profile: true). Every query node of the tree is
// compiled wrapped in a profiledQuery; when a shard's searcher tree is built
// through a statsReader carrying a shardProfile, each wrapper records the
// time spent building its searcher (create_weight) and in its Next/Advance
// calls (next_doc/advance, inclusive of its children, like Lucene's
// profiler). Scoring happens inside Next in bluge, so it is part of
// next_doc and the score entries stay 0.

// ProfileQuery is one node of a shard's query profile tree.
type ProfileQuery struct {
	Type, Description string
	// Breakdown holds the timings (nanoseconds) and counts under ES's keys.
	Breakdown map[string]int64
	Children  []*ProfileQuery
}

// TimeNanos is the node's total time: the sum of its timings.
func (p *ProfileQuery) TimeNanos() int64 {
	var t int64
	for _, k := range profileTimingKeys {
		t += p.Breakdown[k]
	}
	return t
}

// profileTimingKeys are ES's query breakdown timings; each has a "_count".
var profileTimingKeys = []string{"create_weight", "build_scorer", "next_doc", "advance", "match", "score",
	"shallow_advance", "compute_max_score", "set_min_competitive_score"}

// ProfileCollector is one collector of a shard's search.
type ProfileCollector struct {
	Name, Reason string
	TimeNanos    int64
}

// ShardProfile is the profile of one shard: "[node][index][shard]".
type ShardProfile struct {
	ID           string
	Query        []*ProfileQuery
	RewriteNanos int64
	Collector    []ProfileCollector
	// Aggregations are the top-level aggregations' timings on the shard.
	Aggregations []aggs.AggTiming
}

// shardProfile records one shard's search.
type shardProfile struct {
	roots []*ProfileQuery
	stack []*ProfileQuery
}

func newProfileQuery(typ, desc string) *ProfileQuery {
	b := make(map[string]int64, 2*len(profileTimingKeys))
	for _, k := range profileTimingKeys {
		b[k], b[k+"_count"] = 0, 0
	}
	return &ProfileQuery{Type: typ, Description: desc, Breakdown: b}
}

func (p *shardProfile) push(typ, desc string) *ProfileQuery {
	n := newProfileQuery(typ, desc)
	if len(p.stack) > 0 {
		parent := p.stack[len(p.stack)-1]
		parent.Children = append(parent.Children, n)
	} else {
		p.roots = append(p.roots, n)
	}
	p.stack = append(p.stack, n)
	return n
}

func (p *shardProfile) pop() { p.stack = p.stack[:len(p.stack)-1] }

// profiledQuery is a compiled query node recorded by the shard's profiler.
type profiledQuery struct {
	q         bluge.Query
	typ, desc string
}

// profileWrap is the query.Context wrapper that profiles every node.
func profileWrap(_ query.Node, q bluge.Query) bluge.Query {
	typ, desc := query.Describe(q)
	return &profiledQuery{q: q, typ: typ, desc: desc}
}

func (pq *profiledQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	r, ok := i.(*statsReader)
	if !ok || r.prof == nil {
		return pq.q.Searcher(i, o)
	}
	node := r.prof.push(pq.typ, pq.desc)
	start := time.Now()
	s, err := pq.q.Searcher(i, o)
	node.Breakdown["create_weight"] += int64(time.Since(start))
	node.Breakdown["create_weight_count"]++
	r.prof.pop()
	if err != nil {
		return nil, err
	}
	return &profiledSearcher{Searcher: s, node: node}, nil
}

// Unwrap implements query.Wrapper.
func (pq *profiledQuery) Unwrap() bluge.Query { return pq.q }

type profiledSearcher struct {
	search.Searcher
	node *ProfileQuery
}

func (s *profiledSearcher) Next(ctx *search.Context) (*search.DocumentMatch, error) {
	start := time.Now()
	dm, err := s.Searcher.Next(ctx)
	s.node.Breakdown["next_doc"] += int64(time.Since(start))
	s.node.Breakdown["next_doc_count"]++
	return dm, err
}

func (s *profiledSearcher) Advance(ctx *search.Context, n uint64) (*search.DocumentMatch, error) {
	start := time.Now()
	dm, err := s.Searcher.Advance(ctx, n)
	s.node.Breakdown["advance"] += int64(time.Since(start))
	s.node.Breakdown["advance_count"]++
	return dm, err
}

// profileCollector names the top-hits collector of a shard as ES does.
func profileCollector(byScore, withAggs bool, took time.Duration) ProfileCollector {
	c := ProfileCollector{Name: "SimpleFieldCollector", Reason: "search_top_hits", TimeNanos: int64(took)}
	if byScore {
		c.Name = "SimpleTopScoreDocCollector"
	}
	if withAggs {
		c.Name, c.Reason = "MultiCollector", "search_multi"
	}
	return c
}
