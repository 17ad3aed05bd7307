package aggs

import (
	"time"

	"github.com/blugelabs/bluge/search"
)

// AggTiming is the profile of one top-level aggregation on one shard:
// the time spent creating its collector (initialize) and feeding it the
// matching documents (collect, with the document count). Sub-aggregations
// are collected inside their parent and timed with it.
type AggTiming struct {
	Name, Type                    string
	InitializeNanos, CollectNanos int64
	CollectCount                  int64
}

// newProfiledPartial builds the shard state timing each collector.
func newProfiledPartial(nodes []*node, e *env) *Partial {
	p := &Partial{colls: make([]coll, len(nodes)), env: e, prof: make([]AggTiming, len(nodes))}
	for i, n := range nodes {
		start := time.Now()
		p.colls[i] = n.impl.newColl(n, e)
		p.prof[i] = AggTiming{Name: n.d.name, Type: n.d.typ, InitializeNanos: int64(time.Since(start))}
	}
	return p
}

func (p *Partial) consumeProfiled(d *search.DocumentMatch) {
	for i, c := range p.colls {
		if c == nil {
			continue
		}
		start := time.Now()
		c.collect(d)
		p.prof[i].CollectNanos += int64(time.Since(start))
		p.prof[i].CollectCount++
	}
}

// Timings returns the shard's per-aggregation timings (nil unless the
// root was profiled).
func (p *Partial) Timings() []AggTiming { return p.prof }
