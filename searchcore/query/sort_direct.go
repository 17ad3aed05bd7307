package query

import (
	"github.com/blugelabs/bluge/search"
	segment "github.com/blugelabs/bluge_segment_api"
)

// DocValueSort computes the sort value of a clause on one field's doc
// values (not nested, not geo, mapped) straight from the values a
// collector reads itself, without a DocumentMatch's doc-value map: the
// value Value would compute once bluge loaded Fields().
type DocValueSort struct{ src *fieldSortSource }

// DocValueSort returns the clause's doc-value computation, or false when
// the clause is not a plain field sort.
func (d SortDecoder) DocValueSort() (DocValueSort, bool) {
	return DocValueSort{src: d.src}, d.src != nil
}

// ReadsNoDocValues reports whether the clause's value needs no doc values
// (_score, _doc).
func (d SortDecoder) ReadsNoDocValues() bool { return d.kind == sortScore || d.kind == sortDoc }

// ExactField is the exact doc-values field read first ("" for none): when a
// document has it, its first value alone decides (FromExact).
func (s DocValueSort) ExactField() string { return s.src.exactField }

// Field is the doc-values field read when the exact field is absent or has
// no value for the document (FromValues).
func (s DocValueSort) Field() string { return s.src.field }

// FromExact is the sort value of a document whose exact field's first
// value is t.
func (s DocValueSort) FromExact(t []byte) []byte { return s.src.exactValue(t) }

// FromValues is the sort value of a document with these values of Field
// (none: the missing value).
func (s DocValueSort) FromValues(terms [][]byte) []byte { return s.src.valueOf(terms) }

// DocValueSorter reads a DocValueSort clause's values from one reader:
// the exact field first, the field only for documents without an exact
// value.
type DocValueSorter struct {
	s     DocValueSort
	r     search.Reader
	exact segment.DocumentValueReader // nil: no exact field
	field segment.DocumentValueReader // opened on first need
	first []byte
	found bool
	terms [][]byte
}

// Sorter returns a DocValueSorter of the clause on r.
func (s DocValueSort) Sorter(r search.Reader) (*DocValueSorter, error) {
	ds := &DocValueSorter{s: s, r: r}
	if f := s.ExactField(); f != "" {
		var err error
		if ds.exact, err = r.DocumentValueReader([]string{f}); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// Value is document n's sort value: what the clause's source returns once
// bluge loaded its fields into the match (nil where bluge's missing
// replacement would apply instead). It is valid until the next call.
func (d *DocValueSorter) Value(n uint64) ([]byte, error) {
	if d.exact != nil {
		d.found, d.first = false, nil
		if err := d.exact.VisitDocumentValues(n, d.visitExact); err != nil {
			return nil, err
		}
		if d.found {
			return d.s.FromExact(d.first), nil
		}
	}
	if d.field == nil {
		var err error
		if d.field, err = d.r.DocumentValueReader([]string{d.s.Field()}); err != nil {
			return nil, err
		}
	}
	d.terms = d.terms[:0]
	if err := d.field.VisitDocumentValues(n, d.visitField); err != nil {
		return nil, err
	}
	return d.s.FromValues(d.terms), nil
}

func (d *DocValueSorter) visitExact(_ string, t []byte) {
	if !d.found {
		d.found, d.first = true, t
	}
}

func (d *DocValueSorter) visitField(_ string, t []byte) { d.terms = append(d.terms, t) }
