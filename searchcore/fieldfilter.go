package searchcore

import (
	"context"

	"github.com/quarry-search/quarry/searchcore/query"
)

// FieldFilter tells, per concrete index, which field paths a request may
// see (nil: every field). Field-level security installs one so that
// queries, sorts and aggregations treat hidden fields as unmapped.
type FieldFilter func(index string) func(path string) bool

type fieldFilterKey struct{}

// WithFieldFilter returns ctx carrying f for the searches run with it.
func WithFieldFilter(ctx context.Context, f FieldFilter) context.Context {
	return context.WithValue(ctx, fieldFilterKey{}, f)
}

// restrictFields narrows a query context's mapping to the fields the
// request's FieldFilter lets it see for the context's index.
func restrictFields(ctx context.Context, qctx *query.Context) {
	f, _ := ctx.Value(fieldFilterKey{}).(FieldFilter)
	if f == nil || qctx.Mapping == nil {
		return
	}
	if allowed := f(qctx.Index); allowed != nil {
		qctx.Mapping = qctx.Mapping.Restrict(allowed)
	}
}
