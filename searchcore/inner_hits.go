package searchcore

import (
	"context"
	"encoding/json"
	"math"
	"strings"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/highlight"
	"github.com/quarry-search/quarry/searchcore/mapping"
	"github.com/quarry-search/quarry/searchcore/query"
)

// InnerHits are the inner hits of one named inner_hits definition of a hit.
type InnerHits struct {
	Name     string
	Total    int64
	MaxScore float64 // NaN when not scored
	Hits     []InnerHit
	// Request holds the definition's fetch options (version,
	// seq_no_primary_term, explain) for rendering.
	Request *SearchRequest
}

// InnerHit is one nested document of an inner hit: rendered like a
// top-level hit, plus its nested identity.
type InnerHit struct {
	Hit
	// Nested is the rendered _nested identity ({"field","offset"[,"_nested"]}).
	Nested []byte
}

// innerFetch is the fetch phase of one inner_hits definition: its options
// as a search request (the nested query's inner query, which highlights)
// and their plan against the index.
type innerFetch struct {
	req  *SearchRequest
	plan *fetchPlan
}

// innerFetches are the fetch phases of the inner_hits definitions of a
// search.
type innerFetches map[*query.InnerHitsSpec]innerFetch

// prepareInnerFetches parses the fetch options (highlight,
// docvalue_fields, fields, stored_fields, version, seq_no_primary_term,
// explain) of each inner_hits definition of specs and resolves them against
// idx like the top-level fetch phase.
func prepareInnerFetches(specs []*query.InnerHitsSpec, idx *Index, qctx *query.Context) (innerFetches, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := innerFetches{}
	for _, spec := range specs {
		req := &SearchRequest{Query: spec.QueryJSON, Source: spec.Source}
		if spec.Highlight != nil {
			hr, err := highlight.Parse(spec.Highlight)
			if err != nil {
				return nil, err
			}
			req.Highlight = hr
		}
		for _, m := range spec.Fetch {
			if _, err := req.parseSharedFetch(m.Key, m.Value); err != nil {
				return nil, err
			}
		}
		plan, err := req.prepareFetch(idx, qctx, spec.Path)
		if err != nil {
			return nil, err
		}
		out[spec] = innerFetch{req: req, plan: plan}
	}
	return out, nil
}

// fetchInnerHits runs every inner_hits definition for the top-level hit
// root of reader r: the nested documents of the definition's path inside
// that hit that match its query, paged and sorted as asked, fetched like
// top-level hits. shard and node name where the hit came from (for
// explain).
func fetchInnerHits(ctx context.Context, r *bluge.Reader, idx *Index, root *Hit, shard, node string, specs []*query.InnerHitsSpec, fetches innerFetches) ([]InnerHits, error) {
	out := make([]InnerHits, 0, len(specs))
	for _, spec := range specs {
		f := fetches[spec]
		ih := InnerHits{Name: spec.Name, MaxScore: math.NaN(), Request: f.req}
		n := spec.From + spec.Size
		sreq := bluge.NewTopNSearch(max(n, 1), query.NestedDocsOf(spec.Query, root.ID))
		if f.req.Explain {
			sreq.ExplainScores()
		}
		// scored with the ES similarity, as the nested query scores them
		coll := newTopNCollector(max(n, 1), 0, spec.Order, nil, false)
		ss := &shardSearch{TopNSearch: sreq, coll: coll}
		it, err := r.Search(ctx, ss)
		if err != nil {
			return nil, searchError(ctx, err)
		}
		i := 0
		for {
			dm, err := it.Next()
			if err != nil {
				return nil, searchError(ctx, err)
			}
			if dm == nil {
				break
			}
			i++
			if i <= spec.From || i > n {
				continue
			}
			h, err := fetchInnerHit(dm, idx, root, spec, f)
			if err != nil {
				return nil, err
			}
			if f.req.Explain {
				h.Explanation = innerExplanation(dm.Explanation, segmentLocal(ss.got, dm.Number))
				h.Shard, h.Node = shard, node
			}
			ih.Hits = append(ih.Hits, h)
		}
		ih.Total = coll.count
		if !spec.HasSort && ih.Total > 0 {
			ih.MaxScore = coll.maxScore
		}
		out = append(out, ih)
	}
	return out, nil
}

// fetchInnerHit shapes one nested document of root like fetchHit does a
// top-level hit. A nested document shares its root's _id, _version, _seq_no
// and _primary_term, as Lucene nested documents share the root's fields.
func fetchInnerHit(dm *search.DocumentMatch, idx *Index, root *Hit, spec *query.InnerHitsSpec, f innerFetch) (InnerHit, error) {
	h := InnerHit{Hit: Hit{Index: root.Index, ID: root.ID, Score: math.NaN(),
		Version: root.Version, SeqNo: root.SeqNo, PrimaryTerm: root.PrimaryTerm}}
	if !spec.HasSort {
		h.Score = dm.Score
	}
	var src []byte
	err := dm.VisitStoredFields(func(field string, value []byte) bool {
		switch field {
		case sourceFieldName:
			src = append([]byte(nil), value...)
		case mapping.NestedIdentityField:
			h.Nested = append([]byte(nil), value...)
		}
		return true
	})
	if err != nil {
		return h, Internalf(err, "failed to load inner hit")
	}
	if spec.HasSort {
		h.Sort = make([]any, len(spec.Dec))
		for k := range spec.Dec {
			if k < len(dm.SortValue) {
				h.Sort[k] = spec.Dec[k].Decode(dm.SortValue[k])
			}
		}
	}
	if src == nil {
		return h, nil
	}
	// full field paths find the nested values in the source put back in
	// its place
	wrapped := wrapNested(spec.Path, src)
	if len(f.req.StoredFields) > 0 {
		vals, err := idx.Mapping().StoredFieldValues(wrapped, f.req.StoredFields, spec.Path)
		if err != nil {
			return h, err
		}
		if len(vals) > 0 {
			h.Fields = vals
		}
	}
	if err := f.plan.apply(&h.Hit, idx, wrapped); err != nil {
		return h, err
	}
	if f.req.fetchesSource() {
		if h.Source, err = nestedSource(spec, src, wrapped); err != nil {
			return h, err
		}
	}
	return h, nil
}

// innerExplanation is the explanation of a nested document against the
// nested query's inner query: the zero-scored filters selecting the
// documents of the path and of the root hit are left out, as Elasticsearch
// explains the inner query alone.
func innerExplanation(e *search.Explanation, doc uint64) *Explanation {
	out := newExplanation(e, doc)
	for out != nil && out.Description == "sum of:" {
		var kept []*Explanation
		for _, d := range out.Details {
			if d.Value != 0 || !strings.HasPrefix(d.Description, "ConstantScore(") {
				kept = append(kept, d)
			}
		}
		if len(kept) != 1 || kept[0].Value != out.Value {
			break
		}
		out = kept[0]
	}
	return out
}

// nestedSource filters a nested document's source like Elasticsearch's
// fetch phase: the filter's paths are full paths ("comments.author"), so the
// object is filtered in its place in the document (wrapped, src put back
// under its path), then taken out again. nil means no _source (filtering
// disabled it).
func nestedSource(spec *query.InnerHitsSpec, src, wrapped []byte) ([]byte, error) {
	if spec.Source == nil || src == nil {
		return src, nil
	}
	parts := strings.Split(spec.Path, ".")
	out, ok, err := spec.Source.Apply(wrapped)
	if err != nil || !ok {
		return nil, err
	}
	var v any = json.RawMessage(out)
	for _, p := range parts {
		var m map[string]json.RawMessage
		raw, _ := v.(json.RawMessage)
		if json.Unmarshal(raw, &m) != nil || m[p] == nil {
			return []byte("{}"), nil
		}
		v = m[p]
	}
	return v.(json.RawMessage), nil
}

// wrapNested puts a nested object's source back in its place under path
// ({"a":{"b":src}} for a.b), where full field paths find its values.
func wrapNested(path string, src []byte) []byte {
	parts := strings.Split(path, ".")
	wrapped := src
	for i := len(parts) - 1; i >= 0; i-- {
		key, _ := json.Marshal(parts[i])
		wrapped = append(append(append([]byte{'{'}, key...), ':'), append(wrapped, '}')...)
	}
	return wrapped
}
