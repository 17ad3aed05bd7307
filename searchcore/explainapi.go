package searchcore

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/blugelabs/bluge"

	"github.com/quarry-search/quarry/searchcore/query"
)

// ExplainResult answers the explain API for one document.
type ExplainResult struct {
	Index string
	ID    string
	// Found is false when the document does not exist (in the searchable
	// snapshot); Matched tells whether the query matches it.
	Found, Matched bool
	Explanation    *Explanation
}

// Explain explains how the document id of index scores against rawQuery
// (GET/POST /{index}/_explain/{id}), on the shard its routing selects.
func (e *Engine) Explain(ctx context.Context, indexName, id, routing string, rawQuery json.RawMessage) (*ExplainResult, error) {
	idx, err := e.ResolveSingle(indexName)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(rawQuery)) == 0 {
		return nil, ValidationError("query is missing")
	}
	node, err := query.Parse(rawQuery)
	if err != nil {
		return nil, err
	}
	qctx := idx.queryContext(e.now(), e.termsLookup(ctx))
	restrictFields(ctx, qctx)
	q, err := node.Compile(qctx)
	if err != nil {
		return nil, err
	}
	if idx.Mapping().HasNested() {
		q = query.ExcludeNested(q)
	}
	res := &ExplainResult{Index: idx.Name(), ID: id}
	sh := idx.shardFor(id, routing)
	rr := sh.acquire()
	defer rr.release()
	// Find the document's number in the shard's snapshot.
	idQuery, err := query.Parse(json.RawMessage(`{"ids":{"values":[` + jsonString(id) + `]}}`))
	if err != nil {
		return nil, err
	}
	idq, err := idQuery.Compile(qctx)
	if err != nil {
		return nil, err
	}
	it, err := rr.r.Search(ctx, bluge.NewTopNSearch(1, idq))
	if err != nil {
		return nil, searchError(ctx, err)
	}
	dm, err := it.Next()
	if err != nil {
		return nil, searchError(ctx, err)
	}
	if dm == nil {
		return res, nil
	}
	res.Found = true
	num := dm.Number
	ss := &shardSearch{TopNSearch: bluge.NewTopNSearch(1, newDocSetQuery(q, []uint64{num})).ExplainScores()}
	it, err = rr.r.Search(ctx, ss)
	if err != nil {
		return nil, searchError(ctx, err)
	}
	m, err := it.Next()
	if err != nil {
		return nil, searchError(ctx, err)
	}
	if m == nil {
		_, desc := query.Describe(q)
		res.Explanation = &Explanation{Value: 0, Description: "no match on required clause (" + desc + ")"}
		return res, nil
	}
	res.Matched = true
	res.Explanation = newExplanation(m.Explanation, segmentLocal(ss.got, m.Number))
	if res.Explanation == nil {
		res.Explanation = &Explanation{Value: m.Score, Description: "score"}
	}
	return res, nil
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
