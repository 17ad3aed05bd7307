package query

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

func TestParseSort(t *testing.T) {
	tests := []struct {
		raw  string
		want []SortField
	}{
		{`"count"`, []SortField{{Field: "count"}}},
		{`"_score"`, []SortField{{Field: "_score"}}},
		{`{"count":"desc"}`, []SortField{{Field: "count", Order: "desc"}}},
		{`{"count":"DESC","tag":"asc"}`, []SortField{{Field: "count", Order: "desc"}, {Field: "tag", Order: "asc"}}},
		{`["_doc",{"_score":{"order":"asc"}},"tag"]`, []SortField{{Field: "_doc"}, {Field: "_score", Order: "asc"}, {Field: "tag"}}},
		{`{"count":{"order":"desc","missing":"_first","unmapped_type":"long","mode":"AVG","format":"x","numeric_type":"Double"}}`,
			[]SortField{{Field: "count", Order: "desc", Missing: "_first", UnmappedType: "long", Mode: "avg", Format: "x", NumericType: "double"}}},
		{`{"count":{"missing":7}}`, []SortField{{Field: "count", Missing: json.Number("7")}}},
		{`{"flag":{"missing":true}}`, []SortField{{Field: "flag", Missing: true}}},
		{`{"count":{"missing":null}}`, []SortField{{Field: "count"}}},
		{`[{"a":{"nested":{"path":"p","max_children":2}}}]`, []SortField{{Field: "a", Nested: &NestedSort{Path: "p", MaxChildren: 2}}}},
		{`{"_geo_distance":{"loc":[1,2]}}`, []SortField{{Field: "_geo_distance", Geo: &GeoDistanceSort{Field: "loc", Points: [][2]float64{{2, 1}}, Unit: 1, DistanceType: "arc"}}}},
		{`{"_geo_distance":{"loc":["1,2",[3,4]],"order":"desc","unit":"km"}}`, []SortField{{Field: "_geo_distance", Order: "desc",
			Geo: &GeoDistanceSort{Field: "loc", Points: [][2]float64{{1, 2}, {4, 3}}, Unit: 1000, DistanceType: "arc"}}}},
		{`[]`, nil},
	}
	for _, tt := range tests {
		got, err := ParseSort(json.RawMessage(tt.raw))
		if err != nil {
			t.Errorf("ParseSort(%s): %v", tt.raw, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseSort(%s) = %#v; want %#v", tt.raw, got, tt.want)
		}
	}
	// default orders
	if !(SortField{Field: "_score"}).Desc() || (SortField{Field: "x"}).Desc() || (SortField{Field: "_score", Order: "asc"}).Desc() {
		t.Error("Desc defaults wrong")
	}

	errs := []struct{ raw, want string }{
		{`{"f":"up"}`, `illegal_argument_exception: No enum constant org.elasticsearch.search.sort.SortOrder.UP`},
		{`{"f":{"order":"up"}}`, `x_content_parse_exception: [field_sort] failed to parse field [order] [caused_by: illegal_argument_exception: No enum constant org.elasticsearch.search.sort.SortOrder.UP]`},
		{`{"f":{"mode":"x"}}`, `x_content_parse_exception: [field_sort] failed to parse field [mode] [caused_by: illegal_argument_exception: Unknown SortMode [x]]`},
		{`{"f":{"numeric_type":"int"}}`, `x_content_parse_exception: [field_sort] failed to parse field [numeric_type] [caused_by: illegal_argument_exception: invalid value for [numeric_type], must be [long, double, date, date_nanos], got int]`},
		{`{"f":{"foo":1}}`, `x_content_parse_exception: [field_sort] unknown field [foo]`},
		{`{"f":{"ordr":"asc"}}`, `x_content_parse_exception: [field_sort] unknown field [ordr] did you mean [order]?`},
		{`{"f":{"order":1}}`, `x_content_parse_exception: [field_sort] order doesn't support values of type: VALUE_NUMBER`},
		{`{"_score":{"order":"asc","x":1}}`, `x_content_parse_exception: [_score] unknown field [x]`},
		{`{"f":1}`, `x_content_parse_exception: [field_sort] Expected START_OBJECT but was: END_OBJECT`},
		{`{"f":1,"g":"asc"}`, `x_content_parse_exception: [field_sort] Expected START_OBJECT but was: FIELD_NAME`},
		{`{"f":["a"]}`, `x_content_parse_exception: [field_sort] Expected START_OBJECT but was: VALUE_STRING`},
		{`[1]`, `illegal_argument_exception: malformed sort format, within the sort array, an object, or an actual string are allowed`},
		{`1`, `illegal_argument_exception: malformed sort format, either start with array, object, or an actual string`},
	}
	for _, tt := range errs {
		_, err := ParseSort(json.RawMessage(tt.raw))
		if got := errString(err); got != tt.want {
			t.Errorf("ParseSort(%s)\n got: %s\nwant: %s", tt.raw, got, tt.want)
		}
	}
}

// TestSort runs compiled sorts and checks the order and the decoded ES sort
// values, including missing values.
func TestSort(t *testing.T) {
	ix := newTestIndex(t)
	maxLong, minLong := int64(math.MaxInt64), int64(math.MinInt64)
	tests := []struct {
		name   string
		sort   string
		query  string
		ids    []string
		values [][]any
	}{
		{"long asc", `"count"`, "", []string{"3", "4", "1", "2", "5"},
			[][]any{{int64(-3)}, {int64(1)}, {int64(5)}, {int64(10)}, {maxLong}}},
		{"long desc uses max", `{"count":"desc"}`, "", []string{"4", "2", "1", "3", "5"},
			[][]any{{int64(100)}, {int64(10)}, {int64(5)}, {int64(-3)}, {minLong}}},
		{"long missing first", `{"count":{"missing":"_first"}}`, "", []string{"5", "3", "4", "1", "2"},
			[][]any{{minLong}, {int64(-3)}, {int64(1)}, {int64(5)}, {int64(10)}}},
		{"long desc missing first", `{"count":{"order":"desc","missing":"_first"}}`, "", []string{"5", "4", "2", "1", "3"},
			[][]any{{maxLong}, {int64(100)}, {int64(10)}, {int64(5)}, {int64(-3)}}},
		{"long missing value", `{"count":{"missing":7}}`, "", []string{"3", "4", "1", "5", "2"},
			[][]any{{int64(-3)}, {int64(1)}, {int64(5)}, {int64(7)}, {int64(10)}}},
		{"long mode max asc", `{"count":{"mode":"max"}}`, "", []string{"3", "1", "2", "4", "5"},
			[][]any{{int64(-3)}, {int64(5)}, {int64(10)}, {int64(100)}, {maxLong}}},
		{"long mode min desc", `{"count":{"mode":"min","order":"desc"}}`, "", []string{"2", "1", "4", "3", "5"},
			[][]any{{int64(10)}, {int64(5)}, {int64(1)}, {int64(-3)}, {minLong}}},
		{"long mode sum", `{"count":{"mode":"sum"}}`, `{"exists":{"field":"count"}}`, []string{"3", "1", "2", "4"},
			[][]any{{int64(-3)}, {int64(5)}, {int64(10)}, {int64(101)}}},
		{"long mode avg rounds", `{"count":{"mode":"avg"}}`, `{"exists":{"field":"count"}}`, []string{"3", "1", "2", "4"},
			[][]any{{int64(-3)}, {int64(5)}, {int64(10)}, {int64(51)}}},
		{"long mode median", `{"count":{"mode":"median","order":"desc"}}`, `{"exists":{"field":"count"}}`, []string{"4", "2", "1", "3"},
			[][]any{{int64(51)}, {int64(10)}, {int64(5)}, {int64(-3)}}},
		{"double asc", `"price"`, "", []string{"1", "2", "4", "3", "5"},
			[][]any{{1.5}, {2.5}, {3.0}, {10.0}, {100.0}}},
		{"double avg", `{"price":{"mode":"avg"}}`, `{"ids":{"values":["4"]}}`, []string{"4"}, [][]any{{5.0}}},
		{"double as long", `{"price":{"numeric_type":"long","order":"desc"}}`, `{"ids":{"values":["1","4"]}}`, []string{"4", "1"},
			[][]any{{int64(7)}, {int64(1)}}},
		{"long as double", `{"count":{"numeric_type":"double"}}`, `{"ids":{"values":["1","5"]}}`, []string{"1", "5"},
			[][]any{{5.0}, {"Infinity"}}},
		{"float missing", `"ratio"`, `{"ids":{"values":["1","2","3"]}}`, []string{"1", "2", "3"},
			[][]any{{0.1}, {0.2}, {"Infinity"}}},
		{"float desc missing", `{"ratio":"desc"}`, `{"ids":{"values":["1","2","3"]}}`, []string{"2", "1", "3"},
			[][]any{{0.2}, {0.1}, {"-Infinity"}}},
		{"keyword asc min", `"tag"`, "", []string{"1", "4", "2", "3", "5"},
			[][]any{{"a"}, {"a"}, {"b"}, {"c"}, {nil}}},
		{"keyword desc max", `{"tag":"desc"}`, "", []string{"4", "3", "1", "2", "5"},
			[][]any{{"z"}, {"c"}, {"b"}, {"b"}, {nil}}},
		{"keyword missing value", `{"tag":{"missing":"bb"}}`, "", []string{"1", "4", "2", "5", "3"},
			[][]any{{"a"}, {"a"}, {"b"}, {"bb"}, {"c"}}},
		{"keyword mode max asc", `{"tag":{"mode":"max"}}`, `{"exists":{"field":"tag"}}`, []string{"1", "2", "3", "4"},
			[][]any{{"b"}, {"b"}, {"c"}, {"z"}}},
		{"multi-field keyword", `{"title.keyword":"desc"}`, `{"exists":{"field":"title"}}`, []string{"4", "1", "3", "2"},
			[][]any{{"brown bear"}, {"The Quick Brown Fox"}, {"Quick Quick Rabbit"}, {"Lazy Dog"}}},
		{"date", `"date"`, "", []string{"4", "1", "2", "3", "5"},
			[][]any{{int64(1577836799999)}, {int64(1577872800000)}, {int64(1577923200000)}, {int64(1581769800000)}, {maxLong}}},
		{"date format", `{"date":{"format":"yyyy-MM-dd"}}`, `{"exists":{"field":"date"}}`, []string{"4", "1", "2", "3"},
			[][]any{{"2019-12-31"}, {"2020-01-01"}, {"2020-01-02"}, {"2020-02-15"}}},
		{"date nanos", `{"date":{"numeric_type":"date_nanos"}}`, `{"ids":{"values":["1"]}}`, []string{"1"},
			[][]any{{int64(1577872800000000000)}}},
		{"boolean", `"flag"`, "", []string{"2", "1", "3", "4", "5"},
			[][]any{{int64(0)}, {int64(1)}, {maxLong}, {maxLong}, {maxLong}}},
		{"object leaf", `{"user.age":"desc"}`, `{"ids":{"values":["1","2"]}}`, []string{"1", "2"},
			[][]any{{int64(30)}, {minLong}}},
		{"_id", `"_id"`, "", []string{"1", "2", "3", "4", "5"},
			[][]any{{"1"}, {"2"}, {"3"}, {"4"}, {"5"}}},
		{"unmapped_type", `{"nope":{"unmapped_type":"long"}}`, `{"ids":{"values":["2","1"]}}`, []string{"1", "2"},
			[][]any{{maxLong}, {maxLong}}},
		{"unmapped_type keyword", `{"nope":{"unmapped_type":"keyword","order":"desc"}}`, `{"ids":{"values":["1"]}}`, []string{"1"},
			[][]any{{nil}}},
		{"two keys", `[{"tag":"asc"},{"count":"desc"}]`, `{"terms":{"tag":["a","b"]}}`, []string{"4", "1", "2"},
			[][]any{{"a", int64(100)}, {"a", int64(5)}, {"b", int64(10)}}},
		{"same field twice", `[{"count":{"mode":"sum"}},{"count":{"mode":"sum","order":"desc"}}]`, `{"ids":{"values":["4"]}}`, []string{"4"},
			[][]any{{int64(101), int64(101)}}},
		{"_doc", `"_doc"`, "", []string{"1", "2", "3", "4", "5"}, nil},
		{"_doc desc", `{"_doc":"desc"}`, "", []string{"5", "4", "3", "2", "1"}, nil},
		{"_score then id", `["_score",{"_id":"desc"}]`, `{"match":{"title":"quick"}}`, []string{"3", "1"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields, err := ParseSort(json.RawMessage(tt.sort))
			if err != nil {
				t.Fatalf("ParseSort: %v", err)
			}
			order, dec, err := CompileSort(fields, ix.ctx)
			if err != nil {
				t.Fatalf("CompileSort: %v", err)
			}
			q := tt.query
			if q == "" {
				q = `{"match_all":{}}`
			}
			hits := ix.run(t, ix.compile(t, q), order, dec)
			if got := ids(hits); !reflect.DeepEqual(got, tt.ids) {
				t.Errorf("order %v; want %v", got, tt.ids)
			}
			if tt.values == nil {
				return
			}
			var values [][]any
			for _, h := range hits {
				values = append(values, h.sort)
			}
			if !reflect.DeepEqual(values, tt.values) {
				t.Errorf("sort values %#v; want %#v", values, tt.values)
			}
		})
	}
}

func TestSortScoreAndDocValues(t *testing.T) {
	ix := newTestIndex(t)
	fields, _ := ParseSort(json.RawMessage(`["_score","_doc"]`))
	order, dec, err := CompileSort(fields, ix.ctx)
	if err != nil {
		t.Fatal(err)
	}
	hits := ix.run(t, ix.compile(t, `{"constant_score":{"filter":{"term":{"tag":"a"}},"boost":1.5}}`), order, dec)
	if len(hits) != 2 {
		t.Fatalf("hits = %v", hits)
	}
	for _, h := range hits {
		if h.sort[0] != 1.5 {
			t.Errorf("score sort value %#v; want 1.5", h.sort[0])
		}
		if _, ok := h.sort[1].(int64); !ok {
			t.Errorf("_doc sort value %#v; want an int64", h.sort[1])
		}
	}
}

func TestSortErrors(t *testing.T) {
	ix := newTestIndex(t)
	tests := []struct{ sort, want string }{
		{`"title"`, "illegal_argument_exception: Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [title] in order to load field data by uninverting the inverted index. Note that this can use significant memory."},
		{`"nope"`, "query_shard_exception: No mapping found for [nope] in order to sort on"},
		{`"user"`, "query_shard_exception: No mapping found for [user] in order to sort on"},
		{`{"nope":{"unmapped_type":"foo"}}`, "illegal_argument_exception: No mapper found for type [foo]"},
		{`{"tag":{"mode":"avg"}}`, "query_shard_exception: we only support AVG, MEDIAN and SUM on number based fields"},
		{`{"tag":{"numeric_type":"long"}}`, "query_shard_exception: [numeric_type] option cannot be set on a non-numeric field, got keyword"},
		{`"loc"`, "illegal_argument_exception: can't sort on geo_point field without using specific sorting feature, like geo_distance"},
		{`{"count":{"missing":"abc"}}`, `number_format_exception: For input string: "abc"`},
		{`{"_geo_distance":{"nope":[1,2]}}`, "query_shard_exception: failed to find mapper for [nope] for geo distance based sort"},
		{`{"_script":{"script":"1"}}`, "illegal_argument_exception: sort [_script] is not supported"},
	}
	for _, tt := range tests {
		fields, err := ParseSort(json.RawMessage(tt.sort))
		if err != nil {
			t.Errorf("ParseSort(%s): %v", tt.sort, err)
			continue
		}
		_, _, err = CompileSort(fields, ix.ctx)
		if got := errString(err); got != tt.want {
			t.Errorf("CompileSort(%s)\n got: %s\nwant: %s", tt.sort, got, tt.want)
		}
	}
}

// TestSearchAfter pages with encoded search_after values.
func TestSearchAfter(t *testing.T) {
	ix := newTestIndex(t)
	page := func(sortJSON string, after []any) []string {
		t.Helper()
		fields, _ := ParseSort(json.RawMessage(sortJSON))
		order, dec, err := CompileSort(fields, ix.ctx)
		if err != nil {
			t.Fatal(err)
		}
		keys, err := EncodeSearchAfter(after, dec)
		if err != nil {
			t.Fatalf("EncodeSearchAfter(%v): %v", after, err)
		}
		req := ix.compile(t, `{"match_all":{}}`)
		var out []string
		it, err := ix.reader.Search(t.Context(), newTopNAfter(req, order, keys))
		if err != nil {
			t.Fatal(err)
		}
		for m, err := it.Next(); m != nil && err == nil; m, err = it.Next() {
			_ = m.VisitStoredFields(func(f string, v []byte) bool {
				if f == "_id" {
					out = append(out, string(v))
				}
				return true
			})
		}
		return out
	}
	tests := []struct {
		sort  string
		after []any
		want  []string
	}{
		{`[{"count":"asc"},{"_id":"asc"}]`, []any{float64(5), "1"}, []string{"2", "5"}},
		{`[{"count":"asc"},{"_id":"asc"}]`, []any{json.Number("1"), "4"}, []string{"1", "2", "5"}},
		{`[{"count":"asc"},{"_id":"asc"}]`, []any{int64(math.MaxInt64), "4"}, []string{"5"}},
		{`[{"count":"asc"},{"_id":"asc"}]`, []any{int64(math.MaxInt64), "5"}, nil},
		{`[{"count":"desc"},{"_id":"asc"}]`, []any{"10", "2"}, []string{"1", "3", "5"}},
		{`[{"tag":"asc"},{"_id":"asc"}]`, []any{"a", "1"}, []string{"4", "2", "3", "5"}},
		{`[{"tag":"asc"},{"_id":"asc"}]`, []any{nil, "4"}, []string{"5"}},
		{`[{"ratio":"asc"},{"_id":"asc"}]`, []any{0.1, "1"}, []string{"2", "3", "4", "5"}},
		{`[{"ratio":"asc"},{"_id":"asc"}]`, []any{"Infinity", "3"}, []string{"4", "5"}},
		{`[{"date":"asc"},{"_id":"asc"}]`, []any{float64(1577872800000), "1"}, []string{"2", "3", "5"}},
		{`[{"date":{"format":"yyyy-MM-dd"}},{"_id":"asc"}]`, []any{"2020-01-01", "0"}, []string{"1", "2", "3", "5"}},
	}
	for _, tt := range tests {
		if got := page(tt.sort, tt.after); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("sort %s after %v = %v; want %v", tt.sort, tt.after, got, tt.want)
		}
	}
	fields, _ := ParseSort(json.RawMessage(`["count","_id"]`))
	_, dec, _ := CompileSort(fields, ix.ctx)
	if _, err := EncodeSearchAfter([]any{1}, dec); errString(err) != "illegal_argument_exception: search_after has 1 value(s) but sort has 2." {
		t.Errorf("count mismatch: %s", errString(err))
	}
	if _, err := EncodeSearchAfter([]any{"x", "1"}, dec); errString(err) != `illegal_argument_exception: Failed to parse search_after value for field [count]. [caused_by: number_format_exception: For input string: "x"]` {
		t.Errorf("bad value: %s", errString(err))
	}
}
