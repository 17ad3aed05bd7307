package searchcore

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"sort"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/query"
)

// Rescorer is one query rescorer of a search's rescore list: the top
// WindowSize hits of each shard are scored again with Query and their
// scores combined as ScoreMode says.
type Rescorer struct {
	WindowSize         int
	Query              query.Node
	QueryWeight        float64
	RescoreQueryWeight float64
	ScoreMode          string // total, multiply, avg, max, min
}

// defaultRescoreWindow is RescorerBuilder.DEFAULT_WINDOW_SIZE.
const defaultRescoreWindow = 10

// ParseRescore parses the rescore member: one rescorer object or an array
// of them.
func ParseRescore(v json.RawMessage) ([]Rescorer, error) {
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '[' {
		var list []json.RawMessage
		if err := json.Unmarshal(v, &list); err != nil {
			return nil, ParsingError("[rescore] must be an object or an array of objects")
		}
		out := make([]Rescorer, 0, len(list))
		for _, e := range list {
			r, err := parseRescorer(e)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, nil
	}
	r, err := parseRescorer(v)
	if err != nil {
		return nil, err
	}
	return []Rescorer{r}, nil
}

// parseRescorer is RescorerBuilder.parseFromXContent.
func parseRescorer(v json.RawMessage) (Rescorer, error) {
	r := Rescorer{WindowSize: -1}
	members, err := decodeObject(v)
	if err != nil {
		return r, ParsingError("[rescore] must be an object")
	}
	haveQuery := false
	for _, m := range members {
		switch m.key {
		case "window_size":
			if r.WindowSize, err = intMember("window_size", m.value); err != nil {
				return r, err
			}
			if r.WindowSize < 0 {
				return r, IllegalArgument("rescore window_size must be non-negative")
			}
		case "query":
			if err := parseQueryRescorer(m.value, &r); err != nil {
				return r, err
			}
			haveQuery = true
		default:
			if bytes.HasPrefix(bytes.TrimSpace(m.value), []byte("{")) {
				return r, ParsingError("rescore doesn't support rescorer with name [%s]", m.key)
			}
			return r, ParsingError("rescore doesn't support [%s]", m.key)
		}
	}
	if !haveQuery {
		return r, ParsingError("missing rescore type")
	}
	if r.WindowSize < 0 {
		r.WindowSize = defaultRescoreWindow
	}
	return r, nil
}

// parseQueryRescorer is QueryRescorerBuilder's parser.
func parseQueryRescorer(v json.RawMessage, r *Rescorer) error {
	members, err := decodeObject(v)
	if err != nil {
		return ParsingError("[query] must be an object")
	}
	r.QueryWeight, r.RescoreQueryWeight, r.ScoreMode = 1, 1, "total"
	for _, m := range members {
		switch m.key {
		case "rescore_query":
			if r.Query, err = query.Parse(m.value); err != nil {
				return err
			}
		case "query_weight", "rescore_query_weight":
			var f float64
			if err := json.Unmarshal(m.value, &f); err != nil {
				var s string
				if json.Unmarshal(m.value, &s) != nil {
					return ParsingError("[query] failed to parse field [%s]", m.key)
				}
				if err := json.Unmarshal([]byte(s), &f); err != nil {
					return ParsingError("[query] failed to parse field [%s]", m.key)
				}
			}
			if m.key == "query_weight" {
				r.QueryWeight = f
			} else {
				r.RescoreQueryWeight = f
			}
		case "score_mode":
			var s string
			if err := json.Unmarshal(m.value, &s); err != nil {
				return ParsingError("[query] failed to parse field [score_mode]")
			}
			switch s {
			case "total", "multiply", "avg", "max", "min":
				r.ScoreMode = s
			default:
				return IllegalArgument("illegal score_mode [%s]", s)
			}
		default:
			return ParsingError("[query] unknown field [%s]", m.key)
		}
	}
	if r.Query == nil {
		return IllegalArgument("rescore_query cannot be null")
	}
	return nil
}

// combine is QueryRescoreMode.combine over the weighted scores.
func (r *Rescorer) combine(primary, secondary float64) float64 {
	p, s := primary*r.QueryWeight, secondary*r.RescoreQueryWeight
	switch r.ScoreMode {
	case "multiply":
		return p * s
	case "avg":
		return (p + s) / 2
	case "max":
		return math.Max(p, s)
	case "min":
		return math.Min(p, s)
	}
	return p + s
}

var rescoreModeDescription = map[string]string{
	"total": "sum of:", "multiply": "product of:", "avg": "avg of:", "max": "max of:", "min": "min of:",
}

// validateRescore checks the rescore windows against index.max_rescore_window
// and the request options rescoring cannot be combined with.
func validateRescore(req *SearchRequest, st *IndexSettings) error {
	maxWindow := st.MaxRescoreWindow
	if maxWindow == 0 {
		maxWindow = st.MaxResultWindow
	}
	for _, r := range req.Rescore {
		if r.WindowSize > maxWindow {
			return IllegalArgument("Rescore window [%d] is too large. It must be less than [%d]. This prevents allocating "+
				"massive heaps for storing the results to be rescored. This limit can be set by changing the "+
				"[index.max_rescore_window] index level setting.", r.WindowSize, maxWindow)
		}
	}
	return nil
}

// rescoreWindow is the number of hits a shard collects for rescoring.
func rescoreWindow(req *SearchRequest) int {
	n := 0
	for _, r := range req.Rescore {
		n = max(n, r.WindowSize)
	}
	return n
}

// scoreDocs runs q over the given documents of one shard and returns their
// matches by document number (documents q does not match are absent).
func scoreDocs(ctx context.Context, sh ctxShard, q bluge.Query, docs []uint64, dfs *globalStats, explain bool) (map[uint64]*search.DocumentMatch, error) {
	out := make(map[uint64]*search.DocumentMatch, len(docs))
	if len(docs) == 0 {
		return out, nil
	}
	sreq := bluge.NewTopNSearch(len(docs), newDocSetQuery(q, docs))
	if explain {
		sreq.ExplainScores()
	}
	matches, _, err := runShard(ctx, sh.rr.r, &shardSearch{TopNSearch: sreq, dfs: dfs})
	if err != nil {
		return nil, err
	}
	for _, dm := range matches {
		out[dm.Number] = dm
	}
	return out, nil
}

// rescoreShard applies the rescorers to one shard's hits (in score order),
// rescoring each rescorer's window and re-sorting it, like QueryRescorer.
func rescoreShard(ctx context.Context, sh ctxShard, hits []shardHit, rescorers []compiledRescorer, dfs *globalStats, explain bool) error {
	for _, rc := range rescorers {
		n := min(rc.WindowSize, len(hits))
		if n == 0 {
			continue
		}
		window := hits[:n]
		docs := make([]uint64, n)
		for i, h := range window {
			docs[i] = h.dm.Number
		}
		matches, err := scoreDocs(ctx, sh, rc.query, docs, dfs, explain)
		if err != nil {
			return err
		}
		for _, h := range window {
			primary := h.dm.Score
			prim := search.NewExplanation(primary*rc.QueryWeight, "product of:", h.dm.Explanation,
				search.NewExplanation(rc.QueryWeight, "primaryWeight"))
			if m, ok := matches[h.dm.Number]; ok {
				h.dm.Score = rc.combine(primary, m.Score)
				if explain {
					sec := search.NewExplanation(m.Score*rc.RescoreQueryWeight, "product of:", m.Explanation,
						search.NewExplanation(rc.RescoreQueryWeight, "secondaryWeight"))
					h.dm.Explanation = search.NewExplanation(h.dm.Score, rescoreModeDescription[rc.ScoreMode], prim, sec)
				}
			} else {
				h.dm.Score = primary * rc.QueryWeight
				if explain {
					h.dm.Explanation = prim
				}
			}
		}
		sort.SliceStable(window, func(i, j int) bool {
			if window[i].dm.Score != window[j].dm.Score {
				return window[i].dm.Score > window[j].dm.Score
			}
			return window[i].dm.Number < window[j].dm.Number
		})
	}
	return nil
}

// compiledRescorer is a rescorer compiled for one index.
type compiledRescorer struct {
	Rescorer
	query bluge.Query
}
