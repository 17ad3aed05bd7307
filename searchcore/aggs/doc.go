// Package aggs implements Elasticsearch 7.17 aggregations on bluge: parsing
// the "aggs" object, per-shard collection inside a bluge search, an exact
// cross-shard reduce and ES-identical JSON rendering.
//
// Use from the search path:
//
//	req, err := aggs.Parse(body.Aggs)                 // once per request
//	req.MaxBuckets = settings.SearchMaxBuckets         // search.max_buckets
//	root, err := req.Prepare(qctx, sortFields)        // once per index (mapping)
//	for each shard reader r:
//		shardRoot := root
//		if root.NeedsBind() {      // filter, filters, global, terms min_doc_count 0
//			shardRoot, err = root.Bind(ctx, r)
//		}
//		sr.AddAggregation(aggs.RootName, shardRoot)
//		it, err := r.Search(ctx, sr) ... drain it ...
//		parts = append(parts, it.Aggregations())
//	out, err := req.Reduce(parts, typedKeys)          // the "aggregations" value
//
// One root wrapper. bluge loads a doc-value field once per occurrence in
// sort.Fields()+aggs.Fields() (STACK.md §4), which would double counts when
// a field is sorted on and aggregated, or aggregated twice. All user
// aggregations therefore run under a single bluge aggregation (Root) whose
// Fields() is the de-duplicated union of their fields minus sortFields, the
// doc-value fields the request's sort already loads. Pass exactly the fields
// of the bluge sort (field sorts only; not _score/_doc).
//
// Exact reduce. Each shard keeps its complete partial state (Partial): terms
// and histogram buckets with their sub-collectors, Kahan sums, the set of
// value hashes for cardinality, the values for percentiles. Reduce merges
// them; terms applies shard_size per shard exactly as an ES shard would, so
// doc_count_error_upper_bound and sum_other_doc_count are those of ES.
// Across indices, call Prepare per index (sequentially: Prepare records the
// compiled tree that Reduce renders with) and Reduce once with all shards'
// buckets. A field mapped with different kinds in two indices fails the
// reduce with ES's illegal_argument_exception.
//
// Implemented: metrics min, max, sum, avg, value_count, stats,
// extended_stats (sigma), cardinality (precision_threshold accepted; counts
// are exact), percentiles, percentile_ranks and median_absolute_deviation
// (exact, on all values, not t-digest approximations: keyed, percents,
// values), weighted_avg; buckets terms (size, shard_size, order by
// _count/_key/sub-aggregation paths and lists, include/exclude regex, value
// lists and partitions, missing, min_doc_count (0 lists every term of the
// field, read from the shard's term dictionary by Bind),
// show_term_doc_count_error), range and date_range (key, keyed, date math),
// histogram (interval, offset, min_doc_count, extended_bounds, hard_bounds,
// keyed, order), date_histogram (calendar_interval, fixed_interval, legacy
// interval, time_zone, offset, format, extended_bounds, hard_bounds, keyed,
// min_doc_count, order), auto_date_histogram (buckets, time_zone,
// minimum_interval, format; ES's rounding ladder s/m/h/d/M/y with inner
// intervals, empty-bucket filling and "interval"), missing, filter, filters (keyed/anonymous,
// other_bucket, other_bucket_key), global, composite (terms, histogram,
// date_histogram sources; order, missing_bucket, format; size, after,
// after_key); geo_bounds (wrap_longitude), geo_centroid, geohash_grid and
// geotile_grid (precision, size); top_hits (from, size, sort, _source;
// stored _id/_source are read while collecting, for documents entering a
// bucket's top only, so no fetch callback is needed; _index comes from
// query.Context.Index); pipelines avg_bucket, max_bucket, min_bucket, sum_bucket,
// stats_bucket, cumulative_sum, derivative (unit), bucket_sort.
// bucket_selector, bucket_script and scripted_metric answer a clear
// parsing_exception (scripts are out of scope).
//
// nested (sub-aggregations over the nested documents of a path inside the
// collected documents; Bind indexes them per shard by enclosing _id) and
// reverse_nested (back to the root or an enclosing nested path, each
// enclosing document counted once per bucket), nested to any depth.
//
// significant_terms on keyword and integral fields with the default JLH
// heuristic against the shard's whole index (Bind reads each term's
// document frequency); background_filter and the other heuristics are not
// implemented (unknown fields).
//
// Not implemented (rejected as unknown aggregation types): sampler, ip_range. Geo grids'
// "bounds" is refused.
//
// Errors are *eserr.Error values with ES types and reasons:
// parsing_exception for malformed or unknown aggregations,
// illegal_argument_exception for text fields and bad parameters,
// too_many_buckets_exception (search.max_buckets) from Reduce.
package aggs
