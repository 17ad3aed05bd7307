package eserr

// ShardFailure is one shard's failure of a search (Elasticsearch's
// ShardSearchFailure): the shard number within its index, the index, the
// node that ran it and the exception it raised.
type ShardFailure struct {
	Shard int
	Index string
	Node  string
	Cause *Error
}

// GroupShardFailures keeps the first failure of each (index, exception type,
// reason), as ExceptionsHelper.groupBy does before rendering.
func GroupShardFailures(fs []ShardFailure) []ShardFailure {
	type key struct{ index, typ, reason string }
	seen := make(map[key]bool, len(fs))
	var out []ShardFailure
	for _, f := range fs {
		k := key{f.Index, f.Cause.Type, f.Cause.Reason}
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}

// AllShardsFailed is the search_phase_execution_exception "all shards
// failed" of a search phase ("query", "dfs") whose every shard failed. Its
// code is the first failure's, or a later one's when that is a server error
// (SearchPhaseExecutionException.status). The failures are kept in Shards
// for rendering (failed_shards, root causes, caused_by).
func AllShardsFailed(phase string, fs []ShardFailure) *Error {
	e := &Error{Code: Unavailable, Type: "search_phase_execution_exception", Reason: "all shards failed", Phase: phase, Shards: fs}
	for i, f := range fs {
		if i == 0 || serverError(f.Cause.Code) {
			e.Code = f.Cause.Code
		}
	}
	if len(fs) > 0 {
		e.Err = fs[0].Cause
	}
	return e
}

// serverError tells whether code maps to a 5xx status.
func serverError(c Code) bool {
	return c == Internal || c == Unavailable
}

// FirstShardCause returns the exception of the first shard failure when err
// is an all-shards-failed error, else err itself: callers that answer with
// one plain error (App Search) report the shard's exception.
func FirstShardCause(err error) error {
	if e, ok := AsError(err); ok && len(e.Shards) > 0 {
		return e.Shards[0].Cause
	}
	return err
}
