package aggs_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quarry-search/quarry/searchcore/aggs"
	"github.com/quarry-search/quarry/searchcore/query"
)

func TestErrors(t *testing.T) {
	f := cities(t)
	textReason := "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [name] in order to load field data by uninverting the inverted index. Note that this can use significant memory."
	for _, tc := range []struct {
		name, body, typ, reason string
	}{
		{"unknown type", `{"a":{"terms_x":{"field":"country"}}}`, "parsing_exception", "Unknown aggregation type [terms_x] did you mean [terms]?"},
		{"unknown type no suggestion", `{"a":{"zzzzzzzzzzzz":{}}}`, "parsing_exception", "Unknown aggregation type [zzzzzzzzzzzz]"},
		{"two types", `{"a":{"terms":{"field":"country"},"avg":{"field":"population"}}}`, "parsing_exception", "Found two aggregation type definitions in [a]: [terms] and [avg]"},
		{"not object", `{"a":[1]}`, "parsing_exception", "Aggregation definition for [a starts with a [START_ARRAY], expected a [START_OBJECT]."},
		{"missing type", `{"a":{"meta":{}}}`, "parsing_exception", "Missing definition for aggregation [a]"},
		{"unknown param", `{"a":{"avg":{"field":"population","foo":1}}}`, "parsing_exception", "[avg] unknown field [foo]"},
		{"text terms", `{"a":{"terms":{"field":"name"}}}`, "illegal_argument_exception", textReason},
		{"text nested", `{"a":{"terms":{"field":"country"},"aggs":{"b":{"cardinality":{"field":"name"}}}}}`, "illegal_argument_exception", textReason},
		{"keyword avg", `{"a":{"avg":{"field":"country"}}}`, "illegal_argument_exception", "Field [country] of type [keyword] is not supported for aggregation [avg]"},
		{"geo avg", `{"a":{"sum":{"field":"location"}}}`, "illegal_argument_exception", "Field [location] of type [geo_point] is not supported for aggregation [sum]"},
		{"metric with subs", `{"a":{"avg":{"field":"population"},"aggs":{"b":{"max":{"field":"population"}}}}}`, "aggregation_initialization_exception", "Aggregator [a] of type [avg] cannot accept sub-aggregations"},
		{"histogram interval", `{"a":{"histogram":{"field":"population","interval":0}}}`, "illegal_argument_exception", "[interval] must be >0 for histogram aggregation [a]"},
		{"calendar interval", `{"a":{"date_histogram":{"field":"population","calendar_interval":"2d"}}}`, "illegal_argument_exception", "The supplied interval [2d] could not be parsed as a calendar interval."},
		{"fixed interval", `{"a":{"date_histogram":{"field":"population","fixed_interval":"1M"}}}`, "illegal_argument_exception", "failed to parse setting [date_histogram.fixedInterval] with value [1M] as a time value: unit is missing or unrecognized"},
		{"no interval", `{"a":{"date_histogram":{"field":"population"}}}`, "illegal_argument_exception", "Required one of fields [interval, calendar_interval, fixed_interval], but none were specified."},
		{"terms size", `{"a":{"terms":{"field":"country","size":0}}}`, "illegal_argument_exception", "[size] must be greater than 0. Found [0] in [a]"},
		{"bad order path", `{"a":{"terms":{"field":"country","order":{"nope":"asc"}}}}`, "aggregation_execution_exception", "Invalid aggregation order path [nope]. The provided aggregation [nope] either does not exist, or is a pipeline aggregation and cannot be used to sort the buckets."},
		{"order on a multi-value metric without a key", `{"a":{"terms":{"field":"country","order":{"st":"asc"}},"aggs":{"st":{"stats":{"field":"population"}}}}}`, "aggregation_execution_exception", "Invalid aggregation order path [st]. When ordering on a multi-value metrics aggregation a metric name must be specified."},
		{"order through a multi-bucket aggregation", `{"a":{"terms":{"field":"country","order":{"t>m":"asc"}},"aggs":{"t":{"terms":{"field":"admin_code"},"aggs":{"m":{"max":{"field":"population"}}}}}}}`, "aggregation_execution_exception", "Invalid aggregation order path [t>m]. Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket aggregations within the path and a final single-bucket or a metrics aggregation at the path end. [t] is not single-bucket."},
		{"order on a multi-bucket aggregation", `{"a":{"terms":{"field":"country","order":{"t":"asc"}},"aggs":{"t":{"terms":{"field":"admin_code"}}}}}`, "aggregation_execution_exception", "Invalid aggregation order path [t]. Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket aggregations within the path and a final single-bucket or a metrics aggregation at the path end."},
		{"order on a pipeline", `{"a":{"histogram":{"field":"population","interval":1000,"order":{"c":"asc"}},"aggs":{"c":{"cumulative_sum":{"buckets_path":"_count"}}}}}`, "aggregation_execution_exception", "Invalid aggregation order path [c]. The provided aggregation [c] either does not exist, or is a pipeline aggregation and cannot be used to sort the buckets."},
		{"bad order dir", `{"a":{"terms":{"field":"country","order":{"_count":"up"}}}}`, "parsing_exception", "Unknown order direction [up]"},
		{"bucket_selector", `{"a":{"terms":{"field":"country"},"aggs":{"s":{"bucket_selector":{"buckets_path":{"c":"_count"},"script":"params.c > 1"}}}}}`, "parsing_exception", "scripts are not supported: [bucket_selector] aggregation [s] cannot be used"},
		{"bucket_script", `{"a":{"bucket_script":{}}}`, "parsing_exception", "scripts are not supported: [bucket_script] aggregation [a] cannot be used"},
		{"script field", `{"a":{"avg":{"script":"doc.x"}}}`, "illegal_argument_exception", "scripts are not supported: aggregation [a] must use a field"},
		{"duplicate name", `{"a":{"avg":{"field":"population"}},"a":{"max":{"field":"population"}}}`, "parsing_exception", "Two sibling aggregations cannot have the same name: [a]"},
		{"derivative parent", `{"d":{"derivative":{"buckets_path":"_count"}}}`, "illegal_argument_exception", "derivative aggregation [d] must have a histogram, date_histogram or auto_date_histogram as parent"},
		{"sibling path", `{"s":{"avg_bucket":{"buckets_path":"nope>x"}}}`, "illegal_argument_exception", "No aggregation found for path [nope>x]"},
		{"gap policy", `{"s":{"avg_bucket":{"buckets_path":"a>b","gap_policy":"x"}}}`, "illegal_argument_exception", "Invalid gap policy: [x], accepted values: [insert_zeros, skip, keep_values]"},
		{"global sub", `{"t":{"terms":{"field":"country"},"aggs":{"g":{"global":{}}}}}`, "aggregation_execution_exception", "Aggregation [t] cannot have a global sub-aggregation [g]. Global aggregations can only be defined as top level aggregations"},
		{"filter query", `{"f":{"filter":{"nope":{}}}}`, "parsing_exception", ""},
		{"geo on keyword", `{"g":{"geo_centroid":{"field":"country"}}}`, "illegal_argument_exception", "Field [country] of type [keyword] is not supported for aggregation [geo_centroid]"},
		{"geohash precision", `{"g":{"geohash_grid":{"field":"location","precision":13}}}`, "illegal_argument_exception", "Invalid geohash aggregation precision of 13. Must be between 1 and 12."},
		{"composite empty", `{"c":{"composite":{"sources":[]}}}`, "illegal_argument_exception", "Composite [sources] cannot be null or empty"},
		{"composite after", `{"c":{"composite":{"sources":[{"a":{"terms":{"field":"country"}}}],"after":{"b":"x"}}}}`, "illegal_argument_exception", "[after] has no value for source [a]"},
		{"filters keyed (not a 7.17 parameter)", `{"f":{"filters":{"filters":{"a":{"match_all":{}}},"keyed":false}}}`, "parsing_exception", "Unknown key for a VALUE_BOOLEAN in [f]: [keyed]."},
		{"filters unknown object", `{"f":{"filters":{"filters":[{"match_all":{}}],"x":{}}}}`, "parsing_exception", "Unknown key for a START_OBJECT in [f]: [x]."},
		{"filters as a string", `{"f":{"filters":{"filters":"a"}}}`, "parsing_exception", "Unknown key for a VALUE_STRING in [f]: [filters]."},
		{"filters other_bucket string", `{"f":{"filters":{"filters":[{"match_all":{}}],"other_bucket":"true"}}}`, "parsing_exception", "Unknown key for a VALUE_STRING in [f]: [other_bucket]."},
		{"filters missing", `{"f":{"filters":{"other_bucket":true}}}`, "illegal_argument_exception", "[filters] cannot be empty."},
		{"filters empty", `{"f":{"filters":{"filters":{}}}}`, "illegal_argument_exception", "[filters] cannot be empty."},
		{"bucket_sort size 0", `{"t":{"terms":{"field":"country"},"aggs":{"bs":{"bucket_sort":{"size":0}}}}}`, "illegal_argument_exception", "[size] must be a positive integer: [0]"},
		{"bucket_sort from", `{"t":{"terms":{"field":"country"},"aggs":{"bs":{"bucket_sort":{"from":-1}}}}}`, "illegal_argument_exception", "[from] must be a non-negative integer: [-1]"},
		{"bucket_sort nothing", `{"t":{"terms":{"field":"country"},"aggs":{"bs":{"bucket_sort":{"gap_policy":"skip"}}}}}`, "action_request_validation_exception", "Validation Failed: 1: [bs] is configured to perform nothing. Please set either of [sort, size, from] to use bucket_sort;"},
		{"extended_stats sigma", `{"es":{"extended_stats":{"field":"population","sigma":-1}}}`, "illegal_argument_exception", "[sigma] must be greater than or equal to 0. Found [-1.0] in [es]"},
		{"extended_stats sigma string", `{"es":{"extended_stats":{"field":"population","sigma":"-0.5"}}}`, "illegal_argument_exception", "[sigma] must be greater than or equal to 0. Found [-0.5] in [es]"},
		{"percent range", `{"p":{"percentiles":{"field":"population","percents":[101]}}}`, "illegal_argument_exception", "percent must be in [0,100], got [101.0]: [p]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.run(t, tc.body, opts{})
			checkErr(t, err, tc.typ, tc.reason)
		})
	}
}

func TestTooManyBuckets(t *testing.T) {
	f := emails(t)
	// dates span the years 0102..2028: one bucket per hour is far too many
	_, err := f.run(t, `{"h":{"date_histogram":{"field":"date","fixed_interval":"1h"}}}`, opts{})
	checkErr(t, err, "too_many_buckets_exception", "")
	if !strings.HasPrefix(err.Error(), "too_many_buckets_exception: Trying to create too many buckets. Must be less than or equal to: [65535] but was [65536].") {
		t.Errorf("err = %v", err)
	}
	// the limit counts buckets of all levels
	req, err := aggs.Parse(json.RawMessage(`{"t":{"terms":{"field":"country","size":100},"aggs":{"f":{"terms":{"field":"feature_code"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.MaxBuckets = 60
	c := cities(t)
	root, err := req.Prepare(&query.Context{Mapping: c.m}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = root
	_, err = c.runPrepared(t, req, root, opts{})
	checkErr(t, err, "too_many_buckets_exception", "")
}

func TestTypedKeysAndMeta(t *testing.T) {
	f := emails(t)
	raw, err := f.run(t, `{"g":{"terms":{"field":"group","size":1},"meta":{"k":"v","n":[1,2.5]},
		"aggs":{"d":{"date_histogram":{"field":"date","calendar_interval":"year","min_doc_count":1}},
			"s":{"terms":{"field":"spam","size":1}},"mx":{"max":{"field":"date"}},"st":{"stats":{"field":"date"}},
			"c":{"cardinality":{"field":"from"}},"p":{"percentiles":{"field":"date","percents":[50]}},
			"r":{"range":{"field":"date","ranges":[{"to":0}]}},"dr":{"date_range":{"field":"date","ranges":[{"to":"now"}]}},
			"m":{"missing":{"field":"date"}},"avgd":{"avg_bucket":{"buckets_path":"d>_count"}},
			"mxd":{"max_bucket":{"buckets_path":"d>_count"}},"sd":{"stats_bucket":{"buckets_path":"d>_count"}}}}}`,
		opts{typedKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	for _, want := range []string{`{"sterms#g":{"meta":{"k":"v","n":[1,2.5]},"doc_count_error_upper_bound":0,`,
		`"date_histogram#d":{"buckets":[`, `"lterms#s":{`, `"max#mx":{"value":`, `"stats#st":{"count":`,
		`"cardinality#c":{"value":`, `"tdigest_percentiles#p":{"values":{"50.0":`, `"range#r":{"buckets":[{"key":"*-1970-01-01T00:00:00.000Z","to":0.0,"to_as_string":"1970-01-01T00:00:00.000Z","doc_count":0}]}`,
		`"date_range#dr":{"buckets":[{"key":"*-`, `"missing#m":{"doc_count":`, `"simple_value#avgd":{"value":`,
		`"bucket_metric_value#mxd":{"value":`, `"stats_bucket#sd":{"count":`} {
		if !strings.Contains(s, want) {
			t.Errorf("typed_keys output lacks %s\n%s", want, s)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"a":{"terms":{"field":"country","size":3,"order":[{"_count":"asc"}]},"aggs":{"b":{"avg":{"field":"population"}}}}}`,
		`{"h":{"date_histogram":{"field":"date","calendar_interval":"1M","time_zone":"Europe/Paris","extended_bounds":{"min":"2002-01-01","max":"2003-01-01"}}}}`,
		`{"r":{"range":{"field":"population","ranges":[{"from":1,"to":2,"key":"x"}]}},"s":{"sum_bucket":{"buckets_path":"r>_count"}}}`,
		`{"a":{"percentiles":{"field":"x","percents":[1,50]}},"meta":{}}`, `{}`, `[]`, `{"a":{}}`, `{"a":{"avg":null}}`,
	} {
		f.Add(s)
	}
	m := citiesMappingParsed(f)
	f.Fuzz(func(t *testing.T, body string) {
		req, err := aggs.Parse(json.RawMessage(body))
		if err != nil {
			return
		}
		if _, err := req.Prepare(&query.Context{Mapping: m}, []string{"population"}); err != nil {
			return
		}
		if _, err := req.Reduce(nil, true); err != nil {
			return
		}
	})
}

// TestBucketShapes pins the exact bytes of bucket renderings.
func TestBucketShapes(t *testing.T) {
	f := emails(t)
	raw, err := f.run(t, `{"d":{"date_histogram":{"field":"date","calendar_interval":"year","min_doc_count":1,"format":"yyyy"},
		"aggs":{"c":{"cumulative_sum":{"buckets_path":"_count"}}}}}`, opts{})
	if err != nil {
		t.Fatal(err)
	}
	years := map[string]int64{}
	for _, d := range f.docs {
		if s, ok := fstr(d, "date"); ok {
			years[s[:4]]++
		}
	}
	first := ""
	for y := range years {
		if first == "" || y < first {
			first = y
		}
	}
	tm, _ := time.Parse("2006", first)
	want := fmt.Sprintf(`{"d":{"buckets":[{"key_as_string":"%s","key":%d,"doc_count":%d,"c":{"value":%d.0}},`,
		first, tm.UnixMilli(), years[first], years[first])
	if !strings.HasPrefix(string(raw), want) {
		t.Errorf("raw = %.200s\nwant prefix %s", raw, want)
	}
}
