package searchcore

import (
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// ShardFailure is one shard's failure of a search (_shards.failures,
// failed_shards).
type ShardFailure = eserr.ShardFailure

// GroupShardFailures keeps the first failure of each (index, exception),
// as Elasticsearch renders them.
var GroupShardFailures = eserr.GroupShardFailures

// coordinatingErrors are the exceptions Elasticsearch raises on the
// coordinating node while parsing or resolving a request: they answer the
// request directly instead of failing shards.
var coordinatingErrors = map[string]bool{
	"parsing_exception":                   true,
	"x_content_parse_exception":           true,
	"action_request_validation_exception": true,
	"index_not_found_exception":           true,
	"index_closed_exception":              true,
	"search_context_missing_exception":    true,
	"search_timeout_exception":            true,
	"task_cancelled_exception":            true,
	"security_exception":                  true,
}

// shardFailures collects the failures of a search's shards: an index whose
// query, sort, aggregations or limits cannot be prepared against its mapping
// and settings fails on every one of its shards, as each Elasticsearch shard
// raises the same exception while creating its search context.
type shardFailures struct {
	byIndex map[*Index]*Error
}

// addIndex records err as the failure of every shard of idx. It returns
// false when err is not a shard failure (a coordinating-node error, a
// cancelled request), which then answers the whole request.
func (f *shardFailures) addIndex(idx *Index, err error) bool {
	e, ok := AsError(err)
	if !ok {
		e = Internalf(err, "%v", err)
	}
	if coordinatingErrors[e.Type] {
		return false
	}
	if f.byIndex == nil {
		f.byIndex = map[*Index]*Error{}
	}
	f.byIndex[idx] = e
	return true
}

// indexFailed tells whether idx's shards failed.
func (f *shardFailures) indexFailed(idx *Index) bool { return f.byIndex[idx] != nil }

// list returns the failures of shards in order, each numbered within its
// index and attributed to node.
func (f *shardFailures) list(shards []ctxShard, node string) []ShardFailure {
	if len(f.byIndex) == 0 {
		return nil
	}
	var out []ShardFailure
	perIndex := map[*Index]int{}
	for _, sh := range shards {
		n := perIndex[sh.idx]
		perIndex[sh.idx]++
		if e := f.byIndex[sh.idx]; e != nil {
			out = append(out, ShardFailure{Shard: n, Index: sh.idx.Name(), Node: node, Cause: e})
		}
	}
	return out
}

// allFailed returns the search_phase_execution_exception of a search whose
// shards all failed (every shard's index has a failure), else nil. The
// phase is "dfs" for dfs_query_then_fetch, else "query".
func (f *shardFailures) allFailed(shards []ctxShard, dfs bool, node string) error {
	if len(f.byIndex) == 0 {
		return nil
	}
	for _, sh := range shards {
		if f.byIndex[sh.idx] == nil {
			return nil
		}
	}
	phase := "query"
	if dfs {
		phase = "dfs"
	}
	return eserr.AllShardsFailed(phase, f.list(shards, node))
}
