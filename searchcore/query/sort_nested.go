package query

import (
	"sync"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// NestedSort is the nested context of a field sort (NestedSortBuilder):
// the root document sorts by the values of its nested documents of Path
// that match Filter, at most MaxChildren of them (0 = all), narrowed by
// Nested for a field inside deeper nested objects.
type NestedSort struct {
	Path        string
	Filter      Node
	MaxChildren int
	Nested      *NestedSort
}

// parseNestedSort follows NestedSortBuilder.fromXContent.
func parseNestedSort(v *jval) (*NestedSort, error) {
	ns := &NestedSort{}
	for _, m := range v.members {
		x := m.val
		var err error
		switch m.key {
		case "path":
			ns.Path, err = x.text()
		case "filter":
			ns.Filter, err = parseSortFilter(x)
		case "max_children":
			ns.MaxChildren, err = x.intValue()
		case "nested":
			if x.kind != kObject {
				return nil, searchcore.IllegalArgument("malformed nested sort format, must start with an object")
			}
			ns.Nested, err = parseNestedSort(x)
		default:
			return nil, searchcore.IllegalArgument("malformed nested sort format, unknown field name [%s]", m.key)
		}
		if err != nil {
			return nil, err
		}
	}
	return ns, nil
}

// nestedLevel is one level of a compiled nested sort: the nested documents
// of path that match the level's filter.
type nestedLevel struct {
	path     string
	docs     bluge.Query
	filtered bool
}

// nestedSortSource sorts root documents by the values of their nested
// documents. PrepareSorts collects those values, per root _id, from each
// reader before it is searched; root _ids are unique in an index, so one
// map serves all its shards, concurrently.
type nestedSortSource struct {
	values      *fieldSortSource // picks the mode among the collected values
	levels      []nestedLevel    // outermost first
	maxChildren int
	load        bool // whether this clause asks bluge to load _id
	byRoot      sync.Map
}

// compileNestedSort resolves ns (ES's SortBuilder.resolveNested) for the
// field sort src.
func compileNestedSort(ctx *Context, ns *NestedSort, src *fieldSortSource, load bool) (*nestedSortSource, error) {
	s := &nestedSortSource{values: src, maxChildren: ns.MaxChildren, load: load}
	for lv := ns; lv != nil && lv.Path != ""; lv = lv.Nested {
		var f *mapping.Field
		if ctx.Mapping != nil {
			f = ctx.Mapping.LookupPath(lv.Path)
		}
		if f == nil {
			return nil, ctx.shardErr("[nested] failed to find nested object under path [%s]", lv.Path)
		}
		if f.Type != mapping.TypeNested {
			return nil, ctx.shardErr("[nested] nested object under path [%s] is not of nested type", lv.Path)
		}
		docs := bluge.NewBooleanQuery().AddMust(bluge.NewTermQuery(lv.Path).SetField(mapping.NestedPathField))
		if lv.Filter != nil {
			outer := ctx.nestedPath
			ctx.nestedPath = lv.Path
			fq, err := lv.Filter.Compile(ctx)
			ctx.nestedPath = outer
			if err != nil {
				return nil, err
			}
			docs.AddMust(fq)
		}
		s.levels = append(s.levels, nestedLevel{path: lv.Path, docs: docs, filtered: lv.Filter != nil})
	}
	ctx.nestedSorts = append(ctx.nestedSorts, s)
	return s, nil
}

func (s *nestedSortSource) Fields() []string {
	if !s.load {
		return nil
	}
	return []string{idField}
}

func (s *nestedSortSource) Value(m *search.DocumentMatch) []byte {
	ids := m.DocValues(idField)
	if len(ids) == 0 {
		return s.values.missing
	}
	terms, ok := s.byRoot.Load(string(ids[0]))
	if !ok {
		return s.values.missing
	}
	return s.values.valueOf(terms.([][]byte))
}

// prepare collects, per root _id, the values of the field in the nested
// documents of the innermost level whose enclosing objects match the
// outer levels' filters.
func (s *nestedSortSource) prepare(r search.Reader, o search.SearcherOptions) error {
	inner := s.levels[len(s.levels)-1]
	fields := []string{mapping.NestedRootField, s.values.field}
	allowed := make([]map[string]bool, len(s.levels)-1)
	for i, lv := range s.levels[:len(s.levels)-1] {
		if !lv.filtered {
			continue
		}
		ls, err := lv.docs.Searcher(r, o)
		if err != nil {
			return err
		}
		set := map[string]bool{}
		err = eachMatch(r, ls, idField, func(id string, _ *search.DocumentMatch) { set[id] = true })
		_ = ls.Close()
		if err != nil {
			return err
		}
		allowed[i] = set
		fields = append(fields, mapping.NestedAncestorPrefix+lv.path)
	}
	cs, err := inner.docs.Searcher(r, o)
	if err != nil {
		return err
	}
	defer cs.Close()
	dv, err := r.DocumentValueReader(fields)
	if err != nil {
		return err
	}
	byRoot := map[string][][]byte{}
	children := map[string]int{}
	sctx := search.NewSearchContext(cs.DocumentMatchPoolSize()+1, 0)
	ancestors := map[string]string{} // reused: one nested document at a time
	for {
		dm, err := cs.Next(sctx)
		if err != nil {
			return err
		}
		if dm == nil {
			break
		}
		var root string
		var terms [][]byte
		clear(ancestors)
		err = dv.VisitDocumentValues(dm.Number, func(field string, term []byte) {
			switch field {
			case mapping.NestedRootField:
				root = string(term)
			case s.values.field:
				terms = append(terms, append([]byte(nil), term...))
			default:
				ancestors[field] = string(term)
			}
		})
		sctx.DocumentMatchPool.Put(dm)
		if err != nil {
			return err
		}
		if root == "" || !s.ancestorsMatch(allowed, ancestors) {
			continue
		}
		if s.maxChildren > 0 && children[root] >= s.maxChildren {
			continue
		}
		children[root]++
		byRoot[root] = append(byRoot[root], terms...)
	}
	for root, terms := range byRoot {
		if len(terms) > 0 {
			s.byRoot.Store(root, terms)
		}
	}
	return nil
}

// ancestorsMatch reports whether the enclosing objects of a nested
// document match the filters of the outer levels.
func (s *nestedSortSource) ancestorsMatch(allowed []map[string]bool, ancestors map[string]string) bool {
	for i, set := range allowed {
		if set != nil && !set[ancestors[mapping.NestedAncestorPrefix+s.levels[i].path]] {
			return false
		}
	}
	return true
}

// PrepareSorts wraps q, the query of a search sorted by the clauses
// CompileSort compiled with this context, so that the values of its
// nested sorts are collected from each reader before q searches it.
func (ctx *Context) PrepareSorts(q bluge.Query) bluge.Query {
	if len(ctx.nestedSorts) == 0 {
		return q
	}
	return &sortPrepQuery{q: q, sorts: ctx.nestedSorts}
}

type sortPrepQuery struct {
	q     bluge.Query
	sorts []*nestedSortSource
}

func (p *sortPrepQuery) Searcher(r search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	for _, s := range p.sorts {
		if err := s.prepare(r, o); err != nil {
			return nil, err
		}
	}
	return p.q.Searcher(r, o)
}

// parseSortFilter parses the filter query of a nested sort. It uses a
// parser of its own: sorts are parsed inside queries too (inner_hits), so
// the shared default parser cannot be named here.
func parseSortFilter(x *jval) (Node, error) {
	return NewParser().parseInner(x)
}
