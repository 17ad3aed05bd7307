package query

import (
	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/numeric"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/searcher"
	"github.com/blugelabs/bluge/search/similarity"
	segment "github.com/blugelabs/bluge_segment_api"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// TermsSetQuery is {"terms_set": {"<field>": {"terms": [...],
// "minimum_should_match_field": "f"}}}: documents matching at least as
// many of the terms as their own value of f, scored by the sum of the
// matching terms.
type TermsSetQuery struct {
	base
	field     string
	values    []scalar
	msmField  string
	hasScript bool
}

func registerTermsSet(p *Parser) {
	p.register("terms_set", parseTermsSet)
}

// parseTermsSet follows TermsSetQueryBuilder.fromXContent.
func parseTermsSet(_ *Parser, body *jval) (Node, error) {
	q := &TermsSetQuery{base: newBase()}
	var boost float32 = 1
	hasField := false
	for _, m := range body.members {
		v := m.val
		if v.kind != kObject {
			return nil, v.parsingErr("[terms_set] unknown token [%s] after [%s]", v.kind.token(), m.key)
		}
		if hasField {
			return nil, v.parsingErr("[terms_set] unknown token [START_OBJECT] after [%s]", m.key)
		}
		q.field, hasField = m.key, true
		for _, im := range v.members {
			iv := im.val
			var err error
			switch {
			case iv.kind == kArray && im.key == "terms":
				for _, e := range iv.elems {
					s, ok := scalarOf(e)
					if !ok {
						return nil, e.parsingErr("[terms_set] unknown token [%s] after [terms]", e.kind.token())
					}
					q.values = append(q.values, s)
				}
			case iv.kind == kObject && im.key == "minimum_should_match_script":
				if q.msmField != "" {
					return nil, searchcore.IllegalArgument("A field has already been specified. Cannot specify both a field and script")
				}
				q.hasScript = true
			case iv.kind.isValue():
				switch im.key {
				case "minimum_should_match_field":
					if q.hasScript {
						return nil, searchcore.IllegalArgument("A script has already been specified. Cannot specify both a field and script")
					}
					q.msmField = iv.s
				case "boost":
					boost, err = iv.floatValue()
				case "_name":
					q.name = iv.s
				default:
					err = iv.parsingErr("[terms_set] query does not support [%s]", im.key)
				}
			case iv.kind == kArray || iv.kind == kObject:
				err = iv.parsingErr("[terms_set] query does not support [%s]", im.key)
			default:
				err = iv.parsingErr("[terms_set] unknown token [%s] after [%s]", iv.kind.token(), im.key)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	if !hasField || q.field == "" {
		return nil, searchcore.IllegalArgument("field name is null or empty")
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// Compile implements Node.
func (q *TermsSetQuery) Compile(ctx *Context) (bluge.Query, error) {
	if len(q.values) == 0 {
		return matchNone(), nil
	}
	if q.hasScript {
		return nil, ctx.failedToCreate(searchcore.IllegalArgument(
			"[terms_set] minimum_should_match_script is not supported: scripts are not available, use minimum_should_match_field"))
	}
	if q.msmField == "" {
		return nil, ctx.failedToCreate(searchcore.Errorf(searchcore.Invalid, "illegal_state_exception",
			"No minimum should match has been specified"))
	}
	ft, _ := ctx.lookupField(q.field)
	if ft == nil {
		return matchNone(), nil
	}
	if len(q.values) > ctx.maxClauseCount() {
		return nil, ctx.tooManyClauses()
	}
	msm, _ := ctx.lookupField(q.msmField)
	if msm == nil {
		return matchNone(), nil
	}
	if !msm.isNumber() {
		return nil, ctx.failedToCreate(searchcore.IllegalArgument(
			"Field [%s] of type [%s] is not supported for aggregation [terms_set]", msm.path, msm.typ))
	}
	ts := &termsSetQuery{msmField: msm.path, boost: float64(q.boost)}
	for _, v := range q.values {
		tq, err := ctx.termQuery(ft, v, 1)
		if err != nil {
			return nil, err
		}
		ts.terms = append(ts.terms, tq)
	}
	return ts, nil
}

// termsSetQuery is Lucene's CoveringQuery with a per-document minimum
// read from a numeric field.
type termsSetQuery struct {
	terms    []bluge.Query
	msmField string
	boost    float64
}

func (t *termsSetQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	var subs, cursors []search.Searcher
	fail := func(err error) (search.Searcher, error) {
		closeAll(subs)
		closeAll(cursors)
		return nil, err
	}
	for _, q := range t.terms {
		s, err := q.Searcher(i, o)
		if err != nil {
			return fail(err)
		}
		subs = append(subs, s)
		c, err := q.Searcher(i, o)
		if err != nil {
			return fail(err)
		}
		cursors = append(cursors, c)
	}
	dis, err := searcher.NewDisjunctionSearcher(i, subs, 1, similarity.NewCompositeSumScorer(), o)
	if err != nil {
		return fail(err)
	}
	dv, err := i.DocumentValueReader([]string{t.msmField})
	if err != nil {
		_ = dis.Close()
		closeAll(cursors)
		return nil, err
	}
	ts := &termsSetSearcher{Searcher: dis, dv: dv, field: t.msmField, boost: t.boost, explain: o.Explain}
	for _, c := range cursors {
		ts.cursors = append(ts.cursors, &docCursor{s: c})
	}
	return ts, nil
}

type termsSetSearcher struct {
	search.Searcher
	cursors []*docCursor
	dv      segment.DocumentValueReader
	field   string
	boost   float64
	explain bool
}

// scale applies the query boost to an accepted match.
func (s *termsSetSearcher) scale(dm *search.DocumentMatch) {
	dm.Score *= s.boost
	if s.explain && s.boost != 1 {
		dm.Explanation = search.NewExplanation(dm.Score, "terms_set, product of:", dm.Explanation,
			search.NewExplanation(s.boost, "boost"))
	}
}

func (s *termsSetSearcher) Close() error {
	err := s.Searcher.Close()
	for _, c := range s.cursors {
		if cerr := c.s.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

func (s *termsSetSearcher) DocumentMatchPoolSize() int {
	n := s.Searcher.DocumentMatchPoolSize()
	for _, c := range s.cursors {
		n += c.s.DocumentMatchPoolSize() + 1
	}
	return n
}

// accept reports whether dm matches at least its own minimum of terms.
func (s *termsSetSearcher) accept(ctx *search.Context, dm *search.DocumentMatch) (bool, error) {
	minimum, found := 0.0, false
	err := s.dv.VisitDocumentValues(dm.Number, func(field string, term []byte) {
		if found || field != s.field {
			return
		}
		pc := numeric.PrefixCoded(term)
		if shift, err := pc.Shift(); err != nil || shift != 0 {
			return
		}
		if i64, err := pc.Int64(); err == nil {
			minimum, found = numeric.Int64ToFloat64(i64), true
		}
	})
	if err != nil || !found {
		return false, err
	}
	n := 0
	for _, c := range s.cursors {
		hit, err := c.matches(ctx, dm.Number)
		if err != nil {
			return false, err
		}
		if hit {
			n++
		}
	}
	return float64(n) >= minimum, nil
}

func (s *termsSetSearcher) Next(ctx *search.Context) (*search.DocumentMatch, error) {
	for {
		dm, err := s.Searcher.Next(ctx)
		if dm == nil || err != nil {
			return dm, err
		}
		ok, err := s.accept(ctx, dm)
		if err != nil {
			return nil, err
		}
		if ok {
			s.scale(dm)
			return dm, nil
		}
		ctx.DocumentMatchPool.Put(dm)
	}
}

func (s *termsSetSearcher) Advance(ctx *search.Context, n uint64) (*search.DocumentMatch, error) {
	dm, err := s.Searcher.Advance(ctx, n)
	for {
		if dm == nil || err != nil {
			return dm, err
		}
		ok, err := s.accept(ctx, dm)
		if err != nil {
			return nil, err
		}
		if ok {
			s.scale(dm)
			return dm, nil
		}
		ctx.DocumentMatchPool.Put(dm)
		dm, err = s.Searcher.Next(ctx)
	}
}
