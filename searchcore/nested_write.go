package searchcore

import (
	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/index"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

// parsedDoc is the bluge form of one document: the root document and the
// hidden documents of its nested objects (mapping/nested.go).
type parsedDoc struct {
	root   *bluge.Document
	nested []*bluge.Document
}

// AddField adds a field to the root document.
func (d *parsedDoc) AddField(f bluge.Field) { d.root.AddField(f) }

// nestedRootTerm selects every nested document of the document id.
type nestedRootTerm string

func (t nestedRootTerm) Field() string { return mapping.NestedRootField }
func (t nestedRootTerm) Term() []byte  { return []byte(t) }

// addToBatch adds one operation on id to a bluge batch: doc nil deletes.
// dropNested also deletes the nested documents the id had (bluge applies a
// batch's deletes to older segments only, so the new ones survive).
func addToBatch(b *index.Batch, id string, doc *parsedDoc, dropNested bool) {
	if doc == nil {
		b.Delete(bluge.Identifier(id))
	} else {
		b.Update(doc.root.ID(), doc.root)
	}
	if dropNested || (doc != nil && len(doc.nested) > 0) {
		b.Delete(nestedRootTerm(id))
	}
	if doc != nil {
		for _, n := range doc.nested {
			b.Insert(n)
		}
	}
}
