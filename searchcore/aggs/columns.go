package aggs

import (
	"sync"

	"github.com/blugelabs/bluge/search"
)

// Columns caches the decoded numeric doc values and the keyword ordinal
// columns of one immutable reader snapshot, field by field, for the
// column-wise terms path (Root.Fast): the first aggregation on a field reads
// its doc values (or term dictionary and postings) once in document order,
// later ones read the decoded column. A numeric column holds 8 bytes per
// value and 4 per document; a keyword ordinal column 4 bytes per document
// (plus 4 per value when some document has several) and its term list.
// Keep one Columns per snapshot (it is only valid for the reader it was
// first used with) and drop it with the snapshot. A Columns is safe for
// concurrent use; the zero value is not, use NewColumns.
type Columns struct {
	mu   sync.Mutex
	cols map[string]*numColumn
	ords map[string]*ordColumn
}

// NewColumns returns an empty cache for one reader snapshot.
func NewColumns() *Columns {
	return &Columns{cols: map[string]*numColumn{}, ords: map[string]*ordColumn{}}
}

// numColumn holds document d's values at vals[off[d]:off[d+1]] for the
// documents 0..len(off)-2.
type numColumn struct {
	off  []uint32
	vals []float64
}

// numbers returns document doc's values of the column.
func (c numColumn) numbers(doc uint32) []float64 { return c.vals[c.off[doc]:c.off[doc+1]] }

// numeric returns field's column covering at least the documents up to
// maxDoc, reading the doc values of the documents not yet covered.
func (cs *Columns) numeric(r search.Reader, field string, maxDoc uint32) (numColumn, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c := cs.cols[field]
	if c == nil {
		c = &numColumn{off: []uint32{0}}
		cs.cols[field] = c
	}
	if next := uint32(len(c.off) - 1); next <= maxDoc {
		dv, err := r.DocumentValueReader([]string{field})
		if err != nil {
			return numColumn{}, err
		}
		var terms [][]byte
		visit := func(_ string, t []byte) { terms = append(terms, t) }
		for doc := next; doc <= maxDoc; doc++ {
			terms = terms[:0]
			if err := dv.VisitDocumentValues(uint64(doc), visit); err != nil {
				return numColumn{}, err
			}
			c.vals = decodeNumbers(terms, c.vals)
			c.off = append(c.off, uint32(len(c.vals)))
		}
	}
	return *c, nil
}
