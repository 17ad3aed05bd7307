package aggs

import (
	"math"

	"github.com/blugelabs/bluge/search"
)

// ordColumn is a keyword field's term dictionary and, per document, the
// ordinals (indexes in terms) of the document's distinct terms, ascending.
// Single-valued fields use one int32 per document (ord, -1 for none);
// fields where some document has several terms use off/vals instead:
// document d's ordinals are vals[off[d]:off[d+1]]. Documents at or beyond
// the column's length have no term.
type ordColumn struct {
	terms []string
	ord   []int32
	off   []uint32
	vals  []int32
}

// multi tells whether the column uses the multi-valued layout.
func (c *ordColumn) multi() bool { return c.off != nil }

// ords returns document d's ordinals (none past the column's end). For the
// single-valued layout it is a view of ord: it does not allocate.
func (c *ordColumn) ords(d uint32) []int32 {
	if c.multi() {
		if int(d) >= len(c.off)-1 {
			return nil
		}
		return c.vals[c.off[d]:c.off[d+1]]
	}
	if int(d) >= len(c.ord) || c.ord[d] < 0 {
		return nil
	}
	return c.ord[d : d+1]
}

// docs returns the number of documents the column covers.
func (c *ordColumn) docs() int {
	if c.multi() {
		return len(c.off) - 1
	}
	return len(c.ord)
}

// ordinals returns field's ordinal column, building it on first use by one
// walk of the field's term dictionary and postings (two for multi-valued
// fields). The column covers every document of the reader, live or not:
// callers only look up matching documents.
func (cs *Columns) ordinals(r search.Reader, field string) (*ordColumn, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if c := cs.ords[field]; c != nil {
		return c, nil
	}
	c, err := buildOrdColumn(r, field)
	if err != nil {
		return nil, err
	}
	cs.ords[field] = c
	return c, nil
}

// buildOrdColumn reads field's ordinal column from r.
func buildOrdColumn(r search.Reader, field string) (*ordColumn, error) {
	c := &ordColumn{}
	multi := false
	// first pass: the terms and the single-valued layout, until a document
	// turns out to have two terms
	err := walkPostings(r, field, func(term string) { c.terms = append(c.terms, term) }, func(ord int32, doc uint32) {
		if multi {
			return
		}
		for uint32(len(c.ord)) <= doc {
			c.ord = append(c.ord, -1)
		}
		if c.ord[doc] >= 0 {
			multi = true
			return
		}
		c.ord[doc] = ord
	})
	if err != nil || !multi {
		return c, err
	}
	// multi-valued: count the terms per document, then place them; the
	// dictionary walk is in ascending term order, so each document's
	// ordinals come out ascending
	counts := make([]uint32, 0, len(c.ord))
	err = walkPostings(r, field, func(string) {}, func(_ int32, doc uint32) {
		for uint32(len(counts)) <= doc {
			counts = append(counts, 0)
		}
		counts[doc]++
	})
	if err != nil {
		return nil, err
	}
	c.ord = nil
	c.off = make([]uint32, len(counts)+1)
	for d, n := range counts {
		c.off[d+1] = c.off[d] + n
	}
	c.vals = make([]int32, c.off[len(counts)])
	next := append([]uint32(nil), c.off[:len(counts)]...)
	err = walkPostings(r, field, func(string) {}, func(ord int32, doc uint32) {
		c.vals[next[doc]] = ord
		next[doc]++
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// walkPostings calls term for each term of field in dictionary order and
// doc for each of its postings with the term's ordinal.
func walkPostings(r search.Reader, field string, term func(string), doc func(ord int32, doc uint32)) error {
	dict, err := r.DictionaryIterator(field, nil, nil, nil)
	if err != nil {
		return err
	}
	defer dict.Close()
	for ord := int32(0); ; ord++ {
		de, err := dict.Next()
		if err != nil {
			return err
		}
		if de == nil {
			return nil
		}
		t := de.Term()
		term(t)
		pi, err := r.PostingsIterator([]byte(t), field, false, false, false)
		if err != nil {
			return err
		}
		for {
			p, err := pi.Next()
			if err != nil {
				pi.Close()
				return err
			}
			if p == nil {
				break
			}
			if n := p.Number(); n <= math.MaxUint32 {
				doc(ord, uint32(n))
			}
		}
		if err := pi.Close(); err != nil {
			return err
		}
	}
}
