package aggs

import (
	"context"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// nestedImpl is the nested aggregation: its sub-aggregations see the nested
// documents of path (mapping/nested.go) inside the documents it collects.
// Bind indexes, per shard, the nested documents by the enclosing document's
// _id (join names the field holding it).
type nestedImpl struct {
	path     string
	join     string
	unmapped bool
}

func (m *nestedImpl) fields() []string { return []string{"_id"} }
func (m *nestedImpl) typedKey() string { return "nested" }

// reverseNestedImpl is the reverse_nested aggregation: from nested documents
// back to the enclosing documents at path ("" = the root), each counted once
// per bucket.
type reverseNestedImpl struct {
	path string
	join string
}

func (m *reverseNestedImpl) fields() []string { return []string{m.join} }
func (m *reverseNestedImpl) typedKey() string { return "reverse_nested" }

// newNested compiles a nested aggregation inside the enclosing nested path.
func newNested(cm *ctxMapping, p *params, d *def) (impl, error) {
	path, err := p.str("path", "")
	if err != nil {
		return nil, err
	}
	if !p.has("path") || path == "" {
		return nil, eserr.ParsingError("Missing [path] field for nested aggregation [%s]", d.name)
	}
	im := &nestedImpl{path: path, join: mapping.NestedRootField}
	var f *mapping.Field
	if cm.m != nil {
		f = cm.m.LookupPath(path)
	}
	switch {
	case f == nil:
		im.unmapped = true
	case f.Type != mapping.TypeNested:
		return nil, eserr.Errorf(eserr.Invalid, "aggregation_execution_exception", "[nested] nested path [%s] is not nested", path)
	case cm.nestedPath == "":
	case cm.m.NestedParentPath(path) == cm.nestedPath:
		im.join = mapping.NestedParentField
	default:
		im.join = mapping.NestedAncestorPrefix + cm.nestedPath
	}
	return im, nil
}

// newReverseNested compiles a reverse_nested aggregation.
func newReverseNested(cm *ctxMapping, p *params, d *def) (impl, error) {
	if cm.nestedPath == "" {
		return nil, eserr.IllegalArgument("Reverse nested aggregation [%s] can only be used inside a [nested] aggregation", d.name)
	}
	path, err := p.str("path", "")
	if err != nil {
		return nil, err
	}
	im := &reverseNestedImpl{path: path, join: mapping.NestedRootField}
	if path != "" {
		f := cm.m.LookupPath(path)
		if f == nil || f.Type != mapping.TypeNested {
			return nil, eserr.Errorf(eserr.Invalid, "aggregation_execution_exception", "[reverse_nested] nested path [%s] is not nested", path)
		}
		if path != cm.nestedPath && !isAncestorPath(path, cm.nestedPath) {
			return nil, eserr.IllegalArgument("Reverse nested aggregation [%s] path [%s] is not a parent of the current nested path [%s]", d.name, path, cm.nestedPath)
		}
		im.join = mapping.NestedAncestorPrefix + path
	}
	return im, nil
}

func isAncestorPath(anc, path string) bool {
	return len(path) > len(anc) && path[:len(anc)] == anc && path[len(anc)] == '.'
}

// subFields lists the doc-value fields of a sub-tree.
func subFields(ns []*node) []string { return treeFields(ns, nil) }

// treeFields lists the doc-value fields of the aggregations ns (to any
// depth), each once, leaving out those in skip.
func treeFields(ns []*node, skip []string) []string {
	seen := map[string]bool{}
	for _, f := range skip {
		seen[f] = true
	}
	var out []string
	var walk func([]*node)
	walk = func(ns []*node) {
		for _, n := range ns {
			for _, f := range n.impl.fields() {
				if !seen[f] {
					seen[f] = true
					out = append(out, f)
				}
			}
			walk(n.subs)
		}
	}
	walk(ns)
	return out
}

// docLoader builds document matches with their doc values for documents
// the collector did not visit (nested documents, reverse_nested parents).
type docLoader struct {
	r      search.Reader
	sctx   *search.Context
	fields []string
}

// captureQuery runs inner and remembers the index reader bluge searches
// (bluge.Reader does not expose its doc-value readers otherwise).
type captureQuery struct {
	inner bluge.Query
	r     search.Reader
}

func (q *captureQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	q.r = i
	return q.inner.Searcher(i, o)
}

// newDocLoader returns a loader of fields for documents of r.
func newDocLoader(ctx context.Context, r *bluge.Reader, fields []string) (docLoader, error) {
	cq := &captureQuery{inner: bluge.NewMatchNoneQuery()}
	it, err := r.Search(ctx, bluge.NewTopNSearch(0, cq))
	if err != nil {
		return docLoader{}, err
	}
	for dm, err := it.Next(); dm != nil && err == nil; dm, err = it.Next() {
	}
	return docLoader{r: cq.r, sctx: search.NewSearchContext(1, 0), fields: fields}, nil
}

func (l *docLoader) load(number uint64) *search.DocumentMatch {
	dm := &search.DocumentMatch{Number: number}
	dm.SetReader(l.r)
	_ = dm.LoadDocumentValues(l.sctx, l.fields)
	return dm
}

// nestedBinding is a nested aggregation's per-shard index: the nested
// documents of its path by enclosing _id.
type nestedBinding struct {
	docLoader
	children map[string][]uint64
}

// reverseBinding resolves enclosing documents by _id on one shard.
type reverseBinding struct {
	docLoader
	ctx    context.Context
	reader *bluge.Reader
}

func (b *reverseBinding) lookup(id string) (*search.DocumentMatch, bool) {
	it, err := b.reader.Search(b.ctx, bluge.NewTopNSearch(1, bluge.NewTermQuery(id).SetField("_id")))
	if err != nil {
		return nil, false
	}
	dm, err := it.Next()
	if err != nil || dm == nil {
		return nil, false
	}
	return b.load(dm.Number), true
}

// bindReverse prepares a reverse_nested aggregation for reader r.
func bindReverse(ctx context.Context, r *bluge.Reader, n *node) (*reverseBinding, error) {
	dl, err := newDocLoader(ctx, r, subFields(n.subs))
	if err != nil {
		return nil, err
	}
	return &reverseBinding{docLoader: dl, ctx: ctx, reader: r}, nil
}

// bindNested indexes the nested documents of a nested aggregation.
func bindNested(ctx context.Context, r *bluge.Reader, n *node, m *nestedImpl) (*nestedBinding, error) {
	dl, err := newDocLoader(ctx, r, subFields(n.subs))
	if err != nil {
		return nil, err
	}
	b := &nestedBinding{docLoader: dl, children: map[string][]uint64{}}
	if m.unmapped {
		return b, nil
	}
	q := bluge.NewTermQuery(m.path).SetField(mapping.NestedPathField)
	req := bluge.NewAllMatches(q)
	req.AddAggregation(RootName, &joinIndexer{field: m.join, into: b.children})
	it, err := r.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	dm, err := it.Next()
	for ; err == nil && dm != nil; dm, err = it.Next() {
	}
	return b, err
}

// joinIndexer records document numbers by the value of a join field.
type joinIndexer struct {
	field string
	into  map[string][]uint64
}

func (a *joinIndexer) Fields() []string              { return []string{a.field} }
func (a *joinIndexer) Calculator() search.Calculator { return a }
func (a *joinIndexer) Consume(d *search.DocumentMatch) {
	if v := d.DocValues(a.field); len(v) > 0 {
		a.into[string(v[0])] = append(a.into[string(v[0])], d.Number)
	}
}
func (a *joinIndexer) Finish()                 {}
func (a *joinIndexer) Merge(search.Calculator) {}

type nestedColl struct {
	count int64
	subs  []coll
	b     *nestedBinding
}

func (m *nestedImpl) newColl(n *node, e *env) coll {
	c := &nestedColl{subs: newColls(n.subs, e)}
	if e != nil && e.nested != nil {
		c.b = e.nested[n]
	}
	return c
}

func (c *nestedColl) collect(d *search.DocumentMatch) {
	if c.b == nil {
		return
	}
	ids := d.DocValues("_id")
	if len(ids) == 0 {
		return
	}
	for _, num := range c.b.children[string(ids[0])] {
		c.count++
		collectAll(c.subs, c.b.load(num))
	}
}

func (c *nestedColl) merge(o coll) {
	x := o.(*nestedColl)
	c.count += x.count
	mergeAll(c.subs, x.subs)
}

func (c *nestedColl) result(n *node, r *reducer) (result, error) {
	return singleBucketResult(n, r, c.count, c.subs)
}

type reverseNestedColl struct {
	m     *reverseNestedImpl
	count int64
	seen  map[string]bool
	subs  []coll
	b     *reverseBinding
}

func (m *reverseNestedImpl) newColl(n *node, e *env) coll {
	c := &reverseNestedColl{m: m, seen: map[string]bool{}, subs: newColls(n.subs, e)}
	if e != nil && e.reverse != nil {
		c.b = e.reverse[n]
	}
	return c
}

func (c *reverseNestedColl) collect(d *search.DocumentMatch) {
	keys := d.DocValues(c.m.join)
	if c.b == nil || len(keys) == 0 || c.seen[string(keys[0])] {
		return
	}
	key := string(keys[0])
	c.seen[key] = true
	if dm, ok := c.b.lookup(key); ok {
		c.count++
		collectAll(c.subs, dm)
	}
}

func (c *reverseNestedColl) merge(o coll) {
	x := o.(*reverseNestedColl)
	c.count += x.count
	mergeAll(c.subs, x.subs)
}

func (c *reverseNestedColl) result(n *node, r *reducer) (result, error) {
	return singleBucketResult(n, r, c.count, c.subs)
}

// singleBucketResult finishes a single-bucket aggregation.
func singleBucketResult(n *node, r *reducer, count int64, colls []coll) (result, error) {
	subs, err := r.subResults(n.subs, colls)
	if err != nil {
		return nil, err
	}
	return &singleBucket{b: &bucket{docCount: count, subs: subs}}, nil
}
