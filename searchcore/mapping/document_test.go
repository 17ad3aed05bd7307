package mapping_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/blugelabs/bluge"
	blugeanalysis "github.com/blugelabs/bluge/analysis"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

// parseDoc parses source with m and returns the document and update.
func parseDoc(t testing.TB, m *mapping.Mapping, source string) (*bluge.Document, *mapping.Mapping, error) {
	t.Helper()
	doc := bluge.NewDocument("1")
	upd, err := m.ParseDocument("1", []byte(source), testRegistry(t), doc)
	return doc, upd, err
}

// describe renders the fields of doc (minus _id) as "name=value" using the
// mapping to decode numbers; _field_names and _ignored list their terms.
func describe(m *mapping.Mapping, doc *bluge.Document) []string {
	var out []string
	for _, f := range (*doc)[1:] {
		name := f.Name()
		tf := f.(*bluge.TermField)
		val := string(tf.Value())
		typ := ""
		if mf := m.Lookup(name); mf != nil {
			typ = mf.Type
		}
		switch {
		case strings.HasPrefix(name, mapping.ExactValuesPrefix):
			// exact doc values: the words, int64 or float64 by the field's type
			var vals []string
			ft := m.Lookup(strings.TrimPrefix(name, mapping.ExactValuesPrefix))
			for _, w := range mapping.DecodeExactValues(tf.Value(), nil) {
				if mapping.IsIntegerType(ft.Type) {
					vals = append(vals, strconv.FormatInt(int64(w), 10))
				} else {
					vals = append(vals, strconv.FormatFloat(math.Float64frombits(w), 'g', -1, 64))
				}
			}
			val = strings.Join(vals, ",")
			out = append(out, name+"="+val)
			continue
		case name == mapping.FieldNamesField || name == mapping.IgnoredField:
			parts := strings.Split(val, "\x00")
			sort.Strings(parts)
			val = strings.Join(parts, ",")
		case typ == "geo_point":
			lon, lat, _ := bluge.DecodeGeoLonLat(tf.Value())
			val = fmt.Sprintf("%.4f,%.4f", lat, lon)
		case typ != "" && typ != "text" && typ != "keyword":
			if !tf.Index() && tf.Store() && !tf.IndexDocValues() && typ == "" {
				break
			}
			n, err := bluge.DecodeNumericFloat64(tf.Value())
			if err == nil {
				val = strconv.FormatFloat(n, 'f', -1, 64)
			}
		}
		flags := ""
		if !tf.Index() {
			flags += "!i"
		}
		if tf.Store() {
			flags += "s"
		}
		if typ != "text" && typ != "" && name != mapping.FieldNamesField && !tf.IndexDocValues() {
			flags += "!dv"
		}
		if flags != "" {
			flags = "[" + flags + "]"
		}
		out = append(out, name+flags+"="+val)
	}
	return out
}

func TestDynamicMappingGolden(t *testing.T) {
	m := mapping.New()
	doc, upd, err := parseDoc(t, m, `{"foo":"bar","n":1,"f":1.5,"b":true,"d":"2020-01-01","o":{"x":"y"}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"properties":{"b":{"type":"boolean"},"d":{"type":"date"},"f":{"type":"float"},"foo":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}},"n":{"type":"long"},"o":{"properties":{"x":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}}}}}}`
	if upd == nil {
		t.Fatal("no mapping update")
	}
	if got := marshal(t, upd); got != want {
		t.Errorf("dynamic mapping =\n%s\nwant\n%s", got, want)
	}
	if marshal(t, m) != "{}" {
		t.Error("ParseDocument mutated the mapping")
	}
	wantFields := []string{"foo=bar", "foo.keyword=bar", "n=1", "f=1.5", "b=1", "d=1577836800000", "o.x=y", "o.x.keyword=y",
		"_field_names=b,d,f,foo,foo.keyword,n,o,o.x,o.x.keyword"}
	if got := describe(upd, doc); !reflect.DeepEqual(got, wantFields) {
		t.Errorf("fields = %q\nwant %q", got, wantFields)
	}
	// Parsing again with the updated mapping needs no update.
	doc2, upd2, err := parseDoc(t, upd, `{"foo":"baz","o":{"x":"z"},"n":"7"}`)
	if err != nil || upd2 != nil {
		t.Fatalf("second parse: upd=%v err=%v", upd2, err)
	}
	if got := describe(upd, doc2); !reflect.DeepEqual(got, []string{"foo=baz", "foo.keyword=baz", "o.x=z", "o.x.keyword=z", "n=7", "_field_names=foo,foo.keyword,n,o,o.x,o.x.keyword"}) {
		t.Errorf("fields = %q", got)
	}
	// The update merges cleanly into the original mapping.
	merged, err := m.Merge(upd)
	if err != nil || marshal(t, merged) != want {
		t.Errorf("merge of dynamic update: %v", err)
	}
}

func TestDynamicMapping(t *testing.T) {
	tests := []struct {
		name, mapping, source, want string
	}{
		{"numeric detection", `{"numeric_detection":true}`, `{"a":"12","b":"1.5","c":"x"}`,
			`{"numeric_detection":true,"properties":{"a":{"type":"long"},"b":{"type":"float"},"c":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}}}}`},
		{"date detection off", `{"date_detection":false}`, `{"d":"2020-01-01"}`,
			`{"date_detection":false,"properties":{"d":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}}}}`},
		{"second date format", `{}`, `{"d":"2015/09/02","n":"2015"}`,
			`{"properties":{"d":{"type":"date","format":"yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis"},"n":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}}}}`},
		{"custom date formats", `{"dynamic_date_formats":["MM/dd/yyyy"]}`, `{"d":"09/25/2015","e":"2015-09-25"}`,
			`{"dynamic_date_formats":["MM/dd/yyyy"],"properties":{"d":{"type":"date","format":"MM/dd/yyyy"},"e":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}}}}`},
		{"arrays and nulls", `{}`, `{"a":[1,2],"e":[],"n":null,"o":[{"x":1},{"y":true}],"na":[null,"s"]}`,
			`{"properties":{"a":{"type":"long"},"na":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}},"o":{"properties":{"x":{"type":"long"},"y":{"type":"boolean"}}}}}`},
		{"dotted keys", `{}`, `{"a.b":1,"a":{"c":"2020-01-01T00:00:00Z"}}`,
			`{"properties":{"a":{"properties":{"b":{"type":"long"},"c":{"type":"date"}}}}}`},
		{"empty object", `{}`, `{"o":{}}`, `{"properties":{"o":{"type":"object"}}}`},
		{"inner dynamic", `{"properties":{"o":{"type":"object","properties":{"i":{"type":"object","dynamic":true}}}}}`, `{"o":{"i":{"x":1}}}`,
			`{"properties":{"o":{"properties":{"i":{"dynamic":"true","properties":{"x":{"type":"long"}}}}}}}`},
		{"templates", `{"dynamic_templates":[
			{"ids":{"match":"*_id","match_mapping_type":"long","mapping":{"type":"keyword"}}},
			{"strs":{"match_mapping_type":"string","unmatch":"txt_*","mapping":{"type":"keyword","ignore_above":20}}},
			{"path":{"path_match":"meta.*","mapping":{"type":"{dynamic_type}","index":false}}},
			{"re":{"match_pattern":"regex","match":"^n\\d+$","mapping":{"type":"double"}}}]}`,
			`{"user_id":5,"name":"x","txt_a":"y","meta":{"m":1},"n12":3,"when":"2020-01-01"}`,
			`{"dynamic_templates":[{"ids":{"match":"*_id","match_mapping_type":"long","mapping":{"type":"keyword"}}},{"strs":{"match_mapping_type":"string","unmatch":"txt_*","mapping":{"type":"keyword","ignore_above":20}}},{"path":{"path_match":"meta.*","mapping":{"type":"{dynamic_type}","index":false}}},{"re":{"match_pattern":"regex","match":"^n\\d+$","mapping":{"type":"double"}}}],"properties":{"meta":{"properties":{"m":{"type":"long","index":false}}},"n12":{"type":"double"},"name":{"type":"keyword","ignore_above":20},"txt_a":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}},"user_id":{"type":"keyword"},"when":{"type":"date"}}}`},
		{"copy_to creates target", `{"properties":{"a":{"type":"keyword","copy_to":"all"}}}`, `{"a":"x"}`,
			`{"properties":{"a":{"type":"keyword","copy_to":["all"]},"all":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustParse(t, tc.mapping)
			before := marshal(t, m)
			_, upd, err := parseDoc(t, m, tc.source)
			if err != nil {
				t.Fatal(err)
			}
			if upd == nil {
				t.Fatal("no update")
			}
			if got := marshal(t, upd); got != tc.want {
				t.Errorf("mapping =\n%s\nwant\n%s", got, tc.want)
			}
			if marshal(t, m) != before {
				t.Error("input mapping mutated")
			}
		})
	}
}

func TestDynamicFalseAndStrict(t *testing.T) {
	m := mustParse(t, `{"dynamic":false,"properties":{"k":{"type":"keyword"},"o":{"type":"object","dynamic":"strict","properties":{"a":{"type":"long"}}},"t":{"type":"object","dynamic":true}}}`)
	doc, upd, err := parseDoc(t, m, `{"k":"v","new":"ignored","deep":{"x":1},"t":{"z":"2"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(m, doc); !reflect.DeepEqual(got, []string{"k=v", "t.z=2", "t.z.keyword=2", "_field_names=k,t,t.z,t.z.keyword"}) {
		t.Errorf("fields = %q", got)
	}
	if upd == nil || upd.Lookup("new") != nil || upd.Lookup("t.z") == nil {
		t.Errorf("update = %s", marshal(t, upd))
	}
	_, _, err = parseDoc(t, m, `{"o":{"a":1,"b":2}}`)
	checkErr(t, err, "strict_dynamic_mapping_exception", "mapping set to strict, dynamic introduction of [b] within [o] is not allowed")
	strict := mustParse(t, `{"dynamic":"strict","properties":{"a":{"type":"long"}}}`)
	doc2 := bluge.NewDocument("1")
	_, err = strict.ParseDocument("1", []byte(`{"a":1,"x":"y"}`), nil, doc2)
	checkErr(t, err, "strict_dynamic_mapping_exception", "mapping set to strict, dynamic introduction of [x] within [_doc] is not allowed")
	if len(*doc2) != 1 {
		t.Errorf("fields added on error: %d", len(*doc2))
	}
	_, _, err = parseDoc(t, strict, `{"a.b":1}`)
	checkErr(t, err, "mapper_parsing_exception", "Could not dynamically add mapping for field [a.b]. Existing mapping for [a] must be of type object but found [long].")
}

func TestFieldEncoding(t *testing.T) {
	tests := []struct {
		name, mapping, source string
		want                  []string
	}{
		{"ignore_above", `{"properties":{"k":{"type":"keyword","ignore_above":3}}}`, `{"k":["abc","abcd","日本語x"]}`,
			[]string{"k=abc", "_field_names=k", "_ignored=k"}},
		{"null_value", `{"properties":{"k":{"type":"keyword","null_value":"NULL"},"i":{"type":"integer","null_value":7},"b":{"type":"boolean","null_value":false},"x":{"type":"keyword"}}}`,
			`{"k":null,"i":[null,1],"b":null,"x":null}`, []string{"k=NULL", "i=7", "i=1", "b=0", "_exact.i=7,1", "_field_names=b,i,k"}},
		{"copy_to", `{"properties":{"first":{"type":"text","copy_to":["full","raw"]},"last":{"type":"text","copy_to":"full"},"full":{"type":"text"},"raw":{"type":"keyword"}}}`,
			`{"first":"John","last":"Smith"}`, []string{"first=John", "full=John", "raw=John", "last=Smith", "full=Smith", "_field_names=first,full,last,raw"}},
		{"multi-fields", `{"properties":{"t":{"type":"text","fields":{"k":{"type":"keyword"},"n":{"type":"integer","ignore_malformed":true},"lc":{"type":"keyword","normalizer":"lower"}}}}}`,
			`{"t":"Ab"}`, []string{"t=Ab", "t.k=Ab", "t.lc=ab", "_field_names=t,t.k,t.lc", "_ignored=t.n"}},
		{"index false doc_values false store", `{"properties":{"a":{"type":"keyword","index":false,"doc_values":false,"store":true},"b":{"type":"long","index":false},"c":{"type":"long","doc_values":false},"t":{"type":"text","index":false,"store":true},"u":{"type":"text","store":true}}}`,
			`{"a":"x","b":1,"c":2,"t":"tt","u":"uu"}`, []string{"a[!is!dv]=x", "b=1", "c[!dv]=2", "t[!is]=tt", "u[s]=uu", "_field_names=a,b,c,t,u"}},
		{"coercion", `{"properties":{"i":{"type":"integer"},"l":{"type":"long"},"s":{"type":"short"},"f":{"type":"float"},"d":{"type":"double"},"h":{"type":"half_float"},"sf":{"type":"scaled_float","scaling_factor":10},"u":{"type":"unsigned_long"}}}`,
			`{"i":"5","l":1.9,"s":"-3.7","f":"1.1","d":1e3,"h":0.1,"sf":1.26,"u":"18446744073709551615"}`,
			[]string{"i=5", "l=1", "s=-3", "f=1.100000023841858", "d=1000", "h=0.0999755859375", "sf=1.3", "u=18446744073709552000",
				"_field_names=d,f,h,i,l,s,sf,u"}},
		{"empty string numeric is null", `{"properties":{"i":{"type":"integer"},"j":{"type":"integer","null_value":3}}}`, `{"i":"","j":""}`,
			[]string{"j=3", "_field_names=j"}},
		{"big long (float64 per contract)", `{"properties":{"l":{"type":"long"}}}`, `{"l":9223372036854775807}`, []string{"l=9223372036854776000", "_exact.l=9223372036854775807", "_field_names=l"}},
		{"one value the doc value holds exactly has no exact value", `{"properties":{"l":{"type":"long"},"m":{"type":"long"},"d":{"type":"double"}}}`,
			`{"l":9007199254740992,"m":-9007199254740993,"d":0.1}`,
			[]string{"l=9007199254740992", "m=-9007199254740992", "d=0.1", "_exact.m=-9007199254740993", "_field_names=d,l,m"}},
		{"two equal values keep their exact values", `{"properties":{"l":{"type":"long"}}}`, `{"l":[3,3]}`,
			[]string{"l=3", "l=3", "_exact.l=3,3", "_field_names=l"}},
		{"exact values keep duplicates, order and long precision", `{"properties":{"l":{"type":"long"},"d":{"type":"double"}}}`,
			`{"l":[922337203685477777,-1,-1,"-9223372036854775808"],"d":[2.5,2.5,-0.0]}`,
			[]string{"l=922337203685477800", "l=-1", "l=-1", "l=-9223372036854776000", "d=2.5", "d=2.5", "d=-0",
				"_exact.l=922337203685477777,-1,-1,-9223372036854775808", "_exact.d=2.5,2.5,-0", "_field_names=d,l"}},
		{"booleans", `{"properties":{"b":{"type":"boolean"}}}`, `{"b":[true,false,"true","false",""]}`, []string{"b=1", "b=0", "b=1", "b=0", "b=0", "_field_names=b"}},
		{"dates", `{"properties":{"d":{"type":"date"},"e":{"type":"date","format":"yyyy/MM/dd HH:mm:ss||epoch_second"},"n":{"type":"date_nanos"}}}`,
			`{"d":[1420070400001,"2015-01-01T00:00:00+01:00"],"e":["2015/01/01 12:10:30",1420070400],"n":"2015-01-01T00:00:00.123456789Z"}`,
			[]string{"d=1420070400001", "d=1420066800000", "e=1420114230000", "e=1420070400000", "n=1420070400123.4568", "_field_names=d,e,n"}},
		{"geo forms", `{"properties":{"g":{"type":"geo_point"}}}`,
			`{"g":[{"lat":41.12,"lon":-71.34},"41.12,-71.34",[-71.34,41.12],"POINT (-71.34 41.12)","drm3btev3e86",[[-71.34,41.12]],{"type":"Point","coordinates":[-71.34,41.12]}]}`,
			[]string{"g=41.1200,-71.3400", "g=41.1200,-71.3400", "g=41.1200,-71.3400", "g=41.1200,-71.3400", "g=41.1200,-71.3400", "g=41.1200,-71.3400", "g=41.1200,-71.3400", "_field_names=g"}},
		{"ignore_malformed", `{"properties":{"i":{"type":"integer","ignore_malformed":true},"d":{"type":"date","ignore_malformed":true},"g":{"type":"geo_point","ignore_malformed":true},"ok":{"type":"long"}}}`,
			`{"i":"abc","d":"nope","g":"1,2,3,4","ok":1}`, []string{"ok=1", "_field_names=ok", "_ignored=d,g,i"}},
		{"disabled object", `{"properties":{"o":{"type":"object","enabled":false},"k":{"type":"keyword"}}}`, `{"o":{"anything":[1,"x"]},"k":"v"}`,
			[]string{"k=v", "_field_names=k"}},
		{"arrays of objects flatten", `{"properties":{"p":{"properties":{"n":{"type":"keyword"}}}}}`, `{"p":[{"n":"a"},{"n":"b"},[{"n":"c"}]]}`,
			[]string{"p.n=a", "p.n=b", "p.n=c", "_field_names=p,p.n"}},
		{"text accepts scalars", `{"properties":{"t":{"type":"text"},"k":{"type":"keyword"}}}`, `{"t":12,"k":true}`, []string{"t=12", "k=true", "_field_names=k,t"}},
		{"nested dotted source", `{"properties":{"a":{"properties":{"b":{"properties":{"c":{"type":"keyword"}}}}}}}`, `{"a.b":{"c":"x"},"a":{"b.c":"y"}}`,
			[]string{"a.b.c=x", "a.b.c=y", "_field_names=a,a.b,a.b.c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustParse(t, tc.mapping)
			doc, upd, err := parseDoc(t, m, tc.source)
			if err != nil {
				t.Fatal(err)
			}
			if upd != nil {
				m = upd
			}
			if got := describe(m, doc); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("fields = %q\nwant     %q", got, tc.want)
			}
		})
	}
}

func TestDocumentErrors(t *testing.T) {
	m := mustParse(t, `{"properties":{"count":{"type":"integer"},"l":{"type":"long"},"s":{"type":"short"},"b":{"type":"byte"},
		"strict":{"type":"integer","coerce":false},"f":{"type":"float"},"d":{"type":"double"},"flag":{"type":"boolean"},
		"when":{"type":"date"},"loc":{"type":"geo_point"},"locz":{"type":"geo_point","ignore_z_value":false},"o":{"properties":{"x":{"type":"keyword"}}},
		"k":{"type":"keyword"},"dis":{"type":"object","enabled":false}}}`)
	fp := func(field, typ, preview string) string {
		return fmt.Sprintf("failed to parse field [%s] of type [%s] in document with id '1'. Preview of field's value: '%s'", field, typ, preview)
	}
	tests := []struct {
		name, source, typ, reason, causeType, causeReason string
	}{
		{"int not a number", `{"count":"abc"}`, "mapper_parsing_exception", fp("count", "integer", "abc"), "number_format_exception", `For input string: "abc"`},
		{"long not a number", `{"l":"abc"}`, "mapper_parsing_exception", fp("l", "long", "abc"), "illegal_argument_exception", `For input string: "abc"`},
		{"int out of range", `{"count":3000000000}`, "mapper_parsing_exception", fp("count", "integer", "3000000000"), "illegal_argument_exception", "Value [3000000000] is out of range for an integer"},
		{"long out of range", `{"l":9223372036854775808}`, "mapper_parsing_exception", fp("l", "long", "9223372036854775808"), "illegal_argument_exception", "Value [9223372036854775808] is out of range for a long"},
		{"short out of range", `{"s":"40000"}`, "mapper_parsing_exception", fp("s", "short", "40000"), "illegal_argument_exception", "Value [40000] is out of range for a short"},
		{"byte out of range", `{"b":128}`, "mapper_parsing_exception", fp("b", "byte", "128"), "illegal_argument_exception", "Value [128] is out of range for a byte"},
		{"coerce false string", `{"strict":"5"}`, "mapper_parsing_exception", fp("strict", "integer", "5"), "illegal_argument_exception", "Integer value passed as String"},
		{"coerce false decimal", `{"strict":1.5}`, "mapper_parsing_exception", fp("strict", "integer", "1.5"), "illegal_argument_exception", "1.5 cannot be converted to Integer without data loss"},
		{"float infinite", `{"f":1e39}`, "mapper_parsing_exception", fp("f", "float", "1e39"), "illegal_argument_exception", "[float] supports only finite values, but got [Infinity]"},
		{"double NaN", `{"d":"NaN"}`, "mapper_parsing_exception", fp("d", "double", "NaN"), "illegal_argument_exception", "[double] supports only finite values, but got [NaN]"},
		{"number from bool", `{"count":true}`, "mapper_parsing_exception", fp("count", "integer", "true"), "json_parse_exception", "Current token (VALUE_TRUE) not numeric, can not use numericValue accessors"},
		{"bad boolean", `{"flag":"yes"}`, "mapper_parsing_exception", fp("flag", "boolean", "yes"), "illegal_argument_exception", "Failed to parse value [yes] as only [true] or [false] are allowed."},
		{"bad date", `{"when":"abc"}`, "mapper_parsing_exception", fp("when", "date", "abc"), "illegal_argument_exception", "failed to parse date field [abc] with format [strict_date_optional_time||epoch_millis]"},
		{"latitude", `{"loc":{"lat":100,"lon":0}}`, "mapper_parsing_exception", fp("loc", "geo_point", "{lat=100, lon=0}"), "illegal_argument_exception", "illegal latitude value [100.0] for loc"},
		{"longitude", `{"loc":"10,200"}`, "mapper_parsing_exception", fp("loc", "geo_point", "10,200"), "illegal_argument_exception", "illegal longitude value [200.0] for loc"},
		{"geo missing lon", `{"loc":{"lat":1}}`, "mapper_parsing_exception", fp("loc", "geo_point", "{lat=1}"), "parse_exception", "field [lon] missing"},
		{"geo bad key", `{"loc":{"lat":1,"lng":2}}`, "mapper_parsing_exception", fp("loc", "geo_point", "{lat=1, lng=2}"), "parse_exception", "field must be either [lat], [lon] or [geohash]"},
		{"geohash", `{"loc":"abc!"}`, "mapper_parsing_exception", fp("loc", "geo_point", "abc!"), "illegal_argument_exception", "unsupported symbol [a] in geohash [abc!]"},
		{"geo z", `{"locz":[1,2,3]}`, "mapper_parsing_exception", fp("locz", "geo_point", "[1, 2, 3]"), "illegal_argument_exception", "Exception parsing coordinates: found Z value [3.0] but [ignore_z_value] parameter is [false]"},
		{"object as keyword", `{"k":{"a":1}}`, "mapper_parsing_exception", fp("k", "keyword", "{a=1}"), "illegal_state_exception", "Can't get text on a START_OBJECT"},
		{"concrete value for object", `{"o":"x"}`, "mapper_parsing_exception", "object mapping for [o] tried to parse field [o] as object, but found a concrete value", "", ""},
		{"empty document", `  `, "mapper_parsing_exception", "failed to parse, document is empty", "", ""},
		{"not json", `abc`, "mapper_parsing_exception", "failed to parse", "not_x_content_exception", "Compressor detection can only be called on some xcontent bytes or compressed xcontent bytes"},
		{"array root", `[1,2]`, "mapper_parsing_exception", "Malformed content, must start with an object", "", ""},
		{"malformed json", `{"a":}`, "mapper_parsing_exception", "failed to parse", "json_parse_exception",
			"Unexpected character ('}' (code 125)): expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')\n at [Source: (byte[])\"{\"a\":}\"; line: 1, column: 6]"},
		{"duplicate key", `{"k":"a","k":"b"}`, "mapper_parsing_exception", "failed to parse", "json_parse_exception",
			"Duplicate field 'k'\n at [Source: (byte[])\"{\"k\":\"a\",\"k\":\"b\"}\"; line: 1, column: 11]"},
		{"empty field name", `{"":1}`, "mapper_parsing_exception", "failed to parse", "illegal_argument_exception", "field name cannot be an empty string"},
		{"trailing dot", `{"a.":1}`, "mapper_parsing_exception", "failed to parse", "illegal_argument_exception", "object field starting or ending with a [.] makes object resolution ambiguous: [a.]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, _, err := parseDoc(t, m, tc.source)
			if tc.causeType != "" {
				checkErr(t, err, tc.typ, tc.reason, tc.causeType, tc.causeReason)
			} else {
				checkErr(t, err, tc.typ, tc.reason)
			}
			if len(*doc) != 1 {
				t.Errorf("%d fields added despite the error", len(*doc)-1)
			}
		})
	}
}

func TestRootDisabled(t *testing.T) {
	m := mustParse(t, `{"enabled":false}`)
	doc, upd, err := parseDoc(t, m, `{"a":1}`)
	if err != nil || upd != nil || len(*doc) != 1 {
		t.Errorf("doc=%d upd=%v err=%v", len(*doc), upd, err)
	}
}

func TestTotalFieldsLimitDynamic(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 600; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"f%d":"x"`, i)
	}
	b.WriteString("}")
	_, _, err := parseDoc(t, mapping.New(), b.String())
	checkErr(t, err, "illegal_argument_exception", "Limit of total fields [1000] has been exceeded")
}

// TestSearchable indexes documents into an in-memory bluge index and checks
// that each encoding can be searched as the query package expects.
func TestSearchable(t *testing.T) {
	m := mustParse(t, `{"properties":{
		"title":{"type":"text","analyzer":"english","fields":{"keyword":{"type":"keyword"}}},
		"tag":{"type":"keyword","normalizer":"lower"},
		"price":{"type":"scaled_float","scaling_factor":100},
		"count":{"type":"integer"},
		"when":{"type":"date"},
		"ok":{"type":"boolean"},
		"loc":{"type":"geo_point"},
		"user":{"properties":{"name":{"type":"keyword"}}}}}`)
	docs := []string{
		`{"title":"The Quick Foxes","tag":"Red","price":9.99,"count":3,"when":"2020-01-02","ok":true,"loc":"41.12,-71.34","user":{"name":"ann"}}`,
		`{"title":"Lazy dogs sleeping","tag":"BLUE","price":"20","count":10,"when":"2021-06-01T10:00:00Z","ok":false,"loc":[2.35,48.85],"extra":"new"}`,
		`{"title":"quick brown fox","tag":["red","green"],"count":"7"}`,
	}
	w, err := bluge.OpenWriter(bluge.InMemoryOnlyConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i, src := range docs {
		id := strconv.Itoa(i + 1)
		doc := bluge.NewDocument(id)
		upd, err := m.ParseDocument(id, []byte(src), testRegistry(t), doc)
		if err != nil {
			t.Fatalf("doc %s: %v", id, err)
		}
		if upd != nil {
			m = upd
		}
		if err := w.Insert(doc); err != nil {
			t.Fatal(err)
		}
	}
	r, err := w.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ids := func(q bluge.Query) []string {
		it, err := r.Search(context.Background(), bluge.NewTopNSearch(10, q).SortBy([]string{"_id"}))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for {
			match, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if match == nil {
				break
			}
			_ = match.VisitStoredFields(func(field string, value []byte) bool {
				if field == "_id" {
					out = append(out, string(value))
				}
				return true
			})
		}
		return out
	}
	dateMs := func(s string) float64 {
		v, err := mapping.ParseDate(s, "")
		if err != nil {
			t.Fatal(err)
		}
		return float64(v)
	}
	tests := []struct {
		name string
		q    bluge.Query
		want []string
	}{
		{"stemmed text", bluge.NewMatchQuery("fox").SetField("title").SetAnalyzer(mustAnalyzer(t, "english")), []string{"1", "3"}},
		{"phrase", bluge.NewMatchPhraseQuery("quick brown").SetField("title").SetAnalyzer(mustAnalyzer(t, "english")), []string{"3"}},
		{"keyword multi-field", bluge.NewTermQuery("Lazy dogs sleeping").SetField("title.keyword"), []string{"2"}},
		{"normalized keyword", bluge.NewTermQuery("red").SetField("tag"), []string{"1", "3"}},
		{"integer range", bluge.NewNumericRangeInclusiveQuery(5, 10, true, true).SetField("count"), []string{"2", "3"}},
		{"scaled float", bluge.NewNumericRangeInclusiveQuery(9.99, 9.99, true, true).SetField("price"), []string{"1"}},
		{"date range", bluge.NewNumericRangeInclusiveQuery(dateMs("2021-01-01"), dateMs("2022-01-01"), true, false).SetField("when"), []string{"2"}},
		{"boolean", bluge.NewNumericRangeInclusiveQuery(1, 1, true, true).SetField("ok"), []string{"1"}},
		{"geo distance", bluge.NewGeoDistanceQuery(2.35, 48.85, "10km").SetField("loc"), []string{"2"}},
		{"exists", bluge.NewTermQuery("loc").SetField(mapping.FieldNamesField), []string{"1", "2"}},
		{"exists object", bluge.NewTermQuery("user").SetField(mapping.FieldNamesField), []string{"1"}},
		{"dynamic field", bluge.NewMatchQuery("new").SetField("extra"), []string{"2"}},
	}
	for _, tc := range tests {
		if got := ids(tc.q); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: ids = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func mustAnalyzer(t *testing.T, name string) *blugeanalysis.Analyzer {
	t.Helper()
	a, err := testRegistry(t).Analyzer(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestStoredFieldValues(t *testing.T) {
	m := mustParse(t, `{"properties":{
		"i":{"type":"integer","store":true},"f":{"type":"float","store":true},"k":{"type":"keyword","store":true},
		"t":{"type":"text","store":true},"d":{"type":"date","store":true,"format":"yyyy-MM-dd"},"b":{"type":"boolean","store":true},
		"ns":{"type":"keyword"},"o":{"properties":{"x":{"type":"long","store":true}}},
		"src":{"type":"keyword","copy_to":"all"},"all":{"type":"text","store":true},"nv":{"type":"keyword","store":true,"null_value":"N"}}}`)
	got, err := m.StoredFieldValues([]byte(`{"i":"1","f":1.5,"k":["a","b"],"t":"hello","d":"2020-01-05","b":"true","ns":"x","o":{"x":9007199254740993},"src":"copied","nv":null}`),
		[]string{"i", "f", "k", "t", "d", "b", "ns", "nope", "o.*", "all", "nv"}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]any{
		"i": {int64(1)}, "f": {1.5}, "k": {"a", "b"}, "t": {"hello"}, "d": {"2020-01-05"}, "b": {true},
		"o.x": {int64(9007199254740993)}, "all": {"copied"}, "nv": {"N"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("StoredFieldValues = %#v\nwant %#v", got, want)
	}
}

func TestConcurrentParse(t *testing.T) {
	m := mustParse(t, `{"properties":{"a":{"type":"keyword"}}}`)
	reg := testRegistry(t)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				doc := bluge.NewDocument("x")
				upd, err := m.ParseDocument("x", []byte(fmt.Sprintf(`{"a":"v","n%d":%d}`, g, i)), reg, doc)
				if err != nil || upd == nil || upd.Lookup(fmt.Sprintf("n%d", g)) == nil {
					t.Errorf("parse: %v", err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	if marshal(t, m) != `{"properties":{"a":{"type":"keyword"}}}` {
		t.Error("shared mapping mutated")
	}
}

// A geohash stands for the bottom-left corner of its cell, as in
// Elasticsearch (GeoPoint.resetFromGeoHash), not for the cell's centre.
func TestDecodeGeohashBottomLeft(t *testing.T) {
	tests := []struct {
		hash     string
		lat, lon float64
	}{
		{"s", 0, 0},     // cell lat [0,45], lon [0,45]
		{"7", -45, -45}, // cell lat [-45,0], lon [-45,0]
		{"u4pruydqqvj", 57.649109959602356, 10.407439023256302},
		{"U4PRUYDQQVJ", 57.649109959602356, 10.407439023256302},
	}
	for _, tt := range tests {
		lat, lon, err := mapping.DecodeGeohash(tt.hash)
		if err != nil || lat != tt.lat || lon != tt.lon {
			t.Errorf("DecodeGeohash(%q) = %v, %v, %v; want %v, %v", tt.hash, lat, lon, err, tt.lat, tt.lon)
		}
	}
}

// TestInNestedDocument checks which documents (top-level or of a nested
// path) hold a field's values: its own object's, and copies made by
// include_in_parent (at every level up) or include_in_root.
func TestInNestedDocument(t *testing.T) {
	m := mustParse(t, `{"properties":{"top":{"type":"keyword"},
		"c":{"type":"nested","properties":{"a":{"type":"keyword"},
			"r":{"type":"nested","include_in_parent":true,"properties":{"w":{"type":"keyword"}}},
			"s":{"type":"nested","properties":{"v":{"type":"keyword"}}}}},
		"p":{"type":"nested","include_in_root":true,"properties":{"x":{"type":"keyword"}}}}}`)
	tests := []struct {
		path, doc string
		want      bool
	}{
		{"top", "", true}, {"top", "c", false},
		{"c.a", "", false}, {"c.a", "c", true}, {"c.a", "c.r", false},
		{"c.r.w", "c.r", true}, {"c.r.w", "c", true}, {"c.r.w", "", false},
		{"c.s.v", "c.s", true}, {"c.s.v", "c", false},
		{"p.x", "", true}, {"p.x", "p", true}, {"p.x", "c", false},
	}
	for _, tc := range tests {
		if got := m.InNestedDocument(tc.path, tc.doc); got != tc.want {
			t.Errorf("InNestedDocument(%q, %q) = %v, want %v", tc.path, tc.doc, got, tc.want)
		}
	}
}
