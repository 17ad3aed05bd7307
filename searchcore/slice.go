package searchcore

import (
	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/numeric"
	"github.com/blugelabs/bluge/search"
	segment "github.com/blugelabs/bluge_segment_api"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

// Slice is the slice member of a scroll or point-in-time search: this
// request reads slice ID of Max, split on Field (default _id).
type Slice struct {
	ID    int
	Max   int
	Field string
}

// validate checks the slice against the index's index.max_slices_per_scroll
// and its field against the mapping (ES SliceBuilder).
func (sl *Slice) validate(idx *Index) error {
	if limit := idx.Settings().MaxSlicesPerScroll; sl.Max > limit {
		return IllegalArgument("The number of slices [%d] is too large. It must be less than [%d]. "+
			"This limit can be set by changing the [index.max_slices_per_scroll] index level setting.", sl.Max, limit)
	}
	if sl.Field == "" || sl.Field == "_id" {
		return nil
	}
	f := idx.Mapping().Lookup(sl.Field)
	if f == nil {
		return IllegalArgument("field %s not found", sl.Field)
	}
	if !sliceableType(f.Type) || (f.DocValues != nil && !*f.DocValues) {
		return IllegalArgument("cannot load numeric doc values on %s", sl.Field)
	}
	return nil
}

func sliceableType(t string) bool {
	switch t {
	case mapping.TypeLong, mapping.TypeInteger, mapping.TypeShort, mapping.TypeByte, mapping.TypeDouble,
		mapping.TypeFloat, mapping.TypeHalfFloat, mapping.TypeScaledFloat, mapping.TypeUnsignedLong,
		mapping.TypeDate, mapping.TypeDateNanos:
		return true
	}
	return false
}

// sliceQuery restricts q to the slice's share of the shard with global
// ordinal ord among n shards, like ES SliceBuilder.toFilter: with at least as
// many slices as shards each shard serves the slices id ≡ ord (mod n) and
// splits its documents among them by hash; with fewer slices, whole shards
// go to slice ord mod max.
func sliceQuery(q bluge.Query, sl *Slice, ord, n int) bluge.Query {
	if n == 1 {
		return &sliceFilterQuery{inner: q, field: sl.Field, id: sl.ID, max: sl.Max}
	}
	if sl.Max >= n {
		if sl.ID%n != ord {
			return bluge.NewMatchNoneQuery()
		}
		perShard := sl.Max / n
		if sl.Max%n > ord {
			perShard++
		}
		if perShard == 1 {
			return q
		}
		return &sliceFilterQuery{inner: q, field: sl.Field, id: sl.ID / n, max: perShard}
	}
	if ord%sl.Max != sl.ID {
		return bluge.NewMatchNoneQuery()
	}
	return q
}

// sliceFilterQuery keeps the matches of inner whose hash (of _id, or of the
// numeric field's single value) modulo max is id.
type sliceFilterQuery struct {
	inner   bluge.Query
	field   string
	id, max int
}

func (s *sliceFilterQuery) Searcher(r search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	field := s.field
	if field == "" {
		field = "_id"
	}
	dvr, err := r.DocumentValueReader([]string{field})
	if err != nil {
		return nil, err
	}
	in, err := s.inner.Searcher(r, o)
	if err != nil {
		return nil, err
	}
	return &sliceSearcher{Searcher: in, dvr: dvr, field: field, byID: field == "_id", id: s.id, max: s.max}, nil
}

type sliceSearcher struct {
	search.Searcher
	dvr   segment.DocumentValueReader
	field string
	byID  bool
	id    int
	max   int
}

func (s *sliceSearcher) keep(dm *search.DocumentMatch) (bool, error) {
	var h int64
	n := 0
	err := s.dvr.VisitDocumentValues(dm.Number, func(field string, term []byte) {
		if field != s.field {
			return
		}
		if s.byID {
			h = int64(murmur3x86(term, 7919))
			h = int64(int32(h))
			n++
			return
		}
		pc := numeric.PrefixCoded(term)
		if shift, err := pc.Shift(); err != nil || shift != 0 {
			return
		}
		v, err := pc.Int64()
		if err != nil {
			return
		}
		h = int64(mix64(uint64(v)))
		n++
	})
	if err != nil {
		return false, err
	}
	if n > 1 && !s.byID {
		return false, IllegalArgument("slice field [%s] must hold a single value per document, found %d values", s.field, n)
	}
	if n == 0 {
		// documents without the field go to slice 0
		return s.id == 0, nil
	}
	m := h % int64(s.max)
	if m < 0 {
		m += int64(s.max)
	}
	return int(m) == s.id, nil
}

func (s *sliceSearcher) filter(ctx *search.Context, dm *search.DocumentMatch, err error) (*search.DocumentMatch, error) {
	for dm != nil && err == nil {
		ok, kerr := s.keep(dm)
		if kerr != nil {
			return nil, kerr
		}
		if ok {
			return dm, nil
		}
		ctx.DocumentMatchPool.Put(dm)
		dm, err = s.Searcher.Next(ctx)
	}
	return dm, err
}

func (s *sliceSearcher) Next(ctx *search.Context) (*search.DocumentMatch, error) {
	dm, err := s.Searcher.Next(ctx)
	return s.filter(ctx, dm, err)
}

func (s *sliceSearcher) Advance(ctx *search.Context, number uint64) (*search.DocumentMatch, error) {
	dm, err := s.Searcher.Advance(ctx, number)
	return s.filter(ctx, dm, err)
}

// mix64 is a 64-bit finaliser (murmur3 fmix64) spreading field values.
func mix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
