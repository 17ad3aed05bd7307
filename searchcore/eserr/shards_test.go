package eserr

import "testing"

func TestAllShardsFailed(t *testing.T) {
	bad := IllegalArgument("bad")
	other := IllegalArgument("other")
	internal := Internalf(nil, "boom")
	fs := []ShardFailure{
		{Shard: 0, Index: "a", Cause: bad},
		{Shard: 1, Index: "a", Cause: bad},   // same index and exception: grouped
		{Shard: 0, Index: "b", Cause: bad},   // another index
		{Shard: 2, Index: "a", Cause: other}, // another reason
	}
	g := GroupShardFailures(fs)
	if len(g) != 3 || g[0].Shard != 0 || g[0].Index != "a" || g[1].Index != "b" || g[2].Cause != other {
		t.Errorf("grouped = %+v", g)
	}
	// The first failure's code, unless a later one is a server error.
	if e := AllShardsFailed("query", fs); e.Code != Invalid || e.Type != "search_phase_execution_exception" || e.Reason != "all shards failed" || e.Phase != "query" || len(e.Shards) != 4 {
		t.Errorf("all failed = %+v", e)
	}
	if e := AllShardsFailed("query", append(fs, ShardFailure{Index: "c", Cause: internal})); e.Code != Internal {
		t.Errorf("code with a server error = %v", e.Code)
	}
	if e := AllShardsFailed("query", []ShardFailure{{Index: "c", Cause: internal}, {Index: "a", Cause: bad}}); e.Code != Internal {
		t.Errorf("code of a first server error = %v", e.Code)
	}
	if err := FirstShardCause(AllShardsFailed("query", fs)); err != bad {
		t.Errorf("first cause = %v", err)
	}
	if err := FirstShardCause(other); err != other {
		t.Errorf("plain error = %v", err)
	}
}
