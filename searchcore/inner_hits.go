package searchcore

import (
	"context"
	"encoding/json"
	"math"
	"strings"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/aggregations"

	"github.com/quarry-search/quarry/searchcore/highlight"
	"github.com/quarry-search/quarry/searchcore/mapping"
	"github.com/quarry-search/quarry/searchcore/query"
)

// InnerHits are the inner hits of one named inner_hits definition of a hit.
type InnerHits struct {
	Name          string
	Total         int64
	MaxScore      float64 // NaN when not scored
	Hits          []InnerHit
	HasSortValues bool
}

// InnerHit is one nested document of an inner hit.
type InnerHit struct {
	Index string
	ID    string
	// Nested is the rendered _nested identity ({"field","offset"[,"_nested"]}).
	Nested []byte
	Score  float64 // NaN when sorted by a field
	Source []byte  // nil when filtered out
	Sort   []any
	// Highlight is the highlighted fragments per field (nil for none).
	Highlight map[string][]string
}

// innerHighlights are the prepared highlighters of the inner_hits
// definitions that ask for one.
type innerHighlights map[*query.InnerHitsSpec]*highlight.Plan

// prepareInnerHighlights prepares the highlight of each inner_hits
// definition of specs against the index of qctx, with the nested query's
// inner query.
func prepareInnerHighlights(specs []*query.InnerHitsSpec, qctx *query.Context, maxOffset int) (innerHighlights, error) {
	var out innerHighlights
	for _, spec := range specs {
		if spec.Highlight == nil {
			continue
		}
		hr, err := highlight.Parse(spec.Highlight)
		if err != nil {
			return nil, err
		}
		plan, err := hr.Prepare(spec.QueryJSON, qctx)
		if err != nil {
			return nil, err
		}
		plan.MaxAnalyzedOffset = maxOffset
		if out == nil {
			out = innerHighlights{}
		}
		out[spec] = plan
	}
	return out, nil
}

// fetchInnerHits runs every inner_hits definition for the top-level hit
// rootID of reader r: the nested documents of the definition's path inside
// that hit that match its query, paged and sorted as asked.
func fetchInnerHits(ctx context.Context, r *bluge.Reader, indexName, rootID string, specs []*query.InnerHitsSpec, hls innerHighlights) ([]InnerHits, error) {
	out := make([]InnerHits, 0, len(specs))
	for _, spec := range specs {
		ih := InnerHits{Name: spec.Name, MaxScore: math.NaN(), HasSortValues: spec.HasSort}
		n := spec.From + spec.Size
		q := query.NestedDocsOf(spec.Query, rootID)
		sreq := bluge.NewTopNSearch(max(n, 1), q).SortByCustom(spec.Order)
		sreq.AddAggregation("count", aggregations.CountMatches())
		if !spec.HasSort {
			sreq.AddAggregation("max_score", aggregations.MaxStartingAt(search.DocumentScore(), math.Inf(-1)))
		}
		// scored with the ES similarity, as the nested query scores them
		it, err := r.Search(ctx, &shardSearch{TopNSearch: sreq})
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
			h := InnerHit{Index: indexName, ID: rootID, Score: math.NaN()}
			if !spec.HasSort {
				h.Score = dm.Score
			}
			var src []byte
			err = dm.VisitStoredFields(func(field string, value []byte) bool {
				switch field {
				case sourceFieldName:
					src = append([]byte(nil), value...)
				case mapping.NestedIdentityField:
					h.Nested = append([]byte(nil), value...)
				}
				return true
			})
			if err != nil {
				return nil, Internalf(err, "failed to load inner hit")
			}
			if plan := hls[spec]; plan != nil && src != nil {
				hl, err := plan.Highlight(wrapNested(spec.Path, src), rootID)
				if err != nil {
					return nil, err
				}
				if len(hl) > 0 {
					h.Highlight = hl
				}
			}
			if h.Source, err = nestedSource(spec, src); err != nil {
				return nil, err
			}
			if spec.HasSort {
				h.Sort = make([]any, len(spec.Dec))
				for k := range spec.Dec {
					if k < len(dm.SortValue) {
						h.Sort[k] = spec.Dec[k].Decode(dm.SortValue[k])
					}
				}
			}
			ih.Hits = append(ih.Hits, h)
		}
		aggs := it.Aggregations()
		ih.Total = int64(aggs.Count())
		if !spec.HasSort && ih.Total > 0 {
			ih.MaxScore = aggs.Metric("max_score")
		}
		out = append(out, ih)
	}
	return out, nil
}

// nestedSource filters a nested document's source like Elasticsearch's
// fetch phase: the filter's paths are full paths ("comments.author"), so the
// object is filtered in its place in the document, then taken out again. nil
// means no _source (filtering disabled it).
func nestedSource(spec *query.InnerHitsSpec, src []byte) ([]byte, error) {
	if spec.Source == nil || src == nil {
		return src, nil
	}
	parts := strings.Split(spec.Path, ".")
	out, ok, err := spec.Source.Apply(wrapNested(spec.Path, src))
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
