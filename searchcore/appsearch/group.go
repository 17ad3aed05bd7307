package appsearch

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

const (
	// groupInnerHits names the collapse inner hits listing a group.
	groupInnerHits = "group"
	// groupCountAgg names the aggregation counting the groups.
	groupCountAgg = "group_count"
	// groupCountPrecision is the largest precision_threshold (exact counts).
	groupCountPrecision = 40000
)

// runBody marshals a core search body and runs it.
func runBody(ctx context.Context, run CoreSearch, body obj) (*searchcore.SearchResult, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return run(ctx, raw)
}

// windowed clamps a page (from, size) to the results reachable by one
// query.
func windowed(from, size int) (int, int) {
	if from < 0 {
		size += from
		from = 0
	}
	if from >= MaxResultWindow {
		from, size = MaxResultWindow, 0
	} else if from+size > MaxResultWindow {
		size = MaxResultWindow - from
	}
	if size < 0 {
		size = 0
	}
	return from, size
}

// collapseBody is the core search of a grouped request: the hits having
// the group field collapsed on it (one hit per group, paged by group),
// the group's members as inner hits in the group sort (ties in the
// request's order), and the number of groups as a cardinality
// aggregation beside the facets (which count every matching document).
func collapseBody(base, aggs obj, r *SearchRequest, s Schema, sorts []any, from int) obj {
	g := r.Group
	field := exactField(s, g.Field)
	size := g.Size
	if g.Collapse {
		size = 1
	}
	inner := obj{{"name", groupInnerHits}, {"size", size}}
	isort := sorts
	if len(g.Sort) > 0 {
		isort = append(coreSort(g.Sort, s), sorts...)
		if len(sorts) == 0 {
			isort = append(isort, obj{{"_score", obj{{"order", "desc"}}}})
		}
	}
	if len(isort) > 0 {
		inner = append(inner, kv{"sort", isort})
	}
	a := append(append(obj{}, aggs...), kv{groupCountAgg, obj{{"cardinality", obj{{"field", field}, {"precision_threshold", groupCountPrecision}}}}})
	f, n := windowed(from, r.Page.Size)
	return append(append(obj{}, base...),
		kv{"post_filter", obj{{"exists", obj{{"field", field}}}}},
		kv{"collapse", obj{{"field", field}, {"inner_hits", inner}}},
		kv{"aggs", a}, kv{"from", f}, kv{"size", n})
}

// groupCount reads the number of groups from a collapsed search's
// aggregations.
func groupCount(aggs json.RawMessage) (int64, error) {
	var out map[string]struct {
		Value int64 `json:"value"`
	}
	if len(aggs) == 0 {
		return 0, nil
	}
	if err := json.Unmarshal(aggs, &out); err != nil {
		return 0, err
	}
	return out[groupCountAgg].Value, nil
}

// collapseRefused reports whether err is the core refusing to collapse on
// the group field: a document holds several values, or an index (a meta
// engine's source engine) has no collapsible mapping for it.
func collapseRefused(err error) bool {
	var e *eserr.Error
	if !errors.As(err, &e) {
		return false
	}
	for ; e != nil; e = e.CausedBy {
		switch {
		case e.Type == "illegal_state_exception" && strings.Contains(e.Reason, "must be single valued"),
			e.Type == "illegal_argument_exception" && strings.Contains(e.Reason, "in order to collapse on"),
			e.Type == "illegal_argument_exception" && strings.Contains(e.Reason, "for collapse field"):
			return true
		}
	}
	return false
}

// collapsedGroup renders one collapsed hit: its group's members come from
// the inner hits, its key from its own value.
func (sh *shaper) collapsedGroup(h searchcore.Hit, g *Group) obj {
	members := []searchcore.Hit{h}
	for _, ih := range h.CollapseInnerHits {
		if ih.Name == groupInnerHits && ih.Result != nil && len(ih.Result.Hits) > 0 {
			members = ih.Result.Hits
		}
	}
	t, _ := fieldType(sh.c.Schema, g.Field)
	_, key := groupKey(decodeSource(h.Source)[g.Field], t, sh.c.Revision)
	return sh.groupResult(members, key, g)
}

// groupResult renders a group (members best first): the first member
// carries the others in _group (up to size - 1 of them; none when
// collapsed) and the group's key in _group_key.
func (sh *shaper) groupResult(members []searchcore.Hit, key any, g *Group) obj {
	head := sh.result(members[0])
	if !g.Collapse {
		extra := []any{}
		for _, m := range members[1:] {
			if len(extra) >= g.Size-1 {
				break
			}
			extra = append(extra, sh.result(m))
		}
		head = append(head, kv{"_group", extra})
	}
	return append(head, kv{"_group_key", key})
}
