package query

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/blugelabs/bluge"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

const geoMapping = `{"properties": {
  "name": {"type": "keyword"},
  "loc":  {"type": "geo_point"},
  "pop":  {"type": "long"},
  "day":  {"type": "date"},
  "text": {"type": "text"}
}}`

// geoDocs are a few cities (lat, lon) in the forms ES accepts.
var geoDocs = [][2]string{
	{"paris", `{"name": "paris", "loc": {"lat": 48.8566, "lon": 2.3522}, "pop": 2148000, "day": "2020-01-01"}`},
	{"london", `{"name": "london", "loc": [-0.1276, 51.5072], "pop": 8982000, "day": "2020-01-05"}`},
	{"berlin", `{"name": "berlin", "loc": "52.52,13.405", "pop": 3645000, "day": "2020-01-11"}`},
	{"madrid", `{"name": "madrid", "loc": "POINT (-3.7038 40.4168)", "pop": 3223000, "day": "2019-12-01"}`},
	{"nyc", `{"name": "nyc", "loc": {"lat": 40.7128, "lon": -74.006}, "pop": 8336000}`},
	{"fiji", `{"name": "fiji", "loc": {"lat": -17.7134, "lon": 178.065}, "pop": 900000, "day": "2020-01-01"}`},
	{"samoa", `{"name": "samoa", "loc": {"lat": -13.759, "lon": -172.1046}, "pop": 200000}`},
	{"none", `{"name": "none", "text": "no location"}`},
}

func newGeoIndex(tb testing.TB) *testIndex {
	tb.Helper()
	m, err := mapping.Parse(json.RawMessage(geoMapping), nil)
	if err != nil {
		tb.Fatalf("mapping.Parse: %v", err)
	}
	return buildIndex(tb, m, nil, geoDocs)
}

func TestGeoQueries(t *testing.T) {
	ix := newGeoIndex(t)
	tests := []struct {
		name  string
		query string
		want  []string
	}{
		{"distance km", `{"geo_distance":{"distance":"400km","loc":{"lat":48.8566,"lon":2.3522}}}`, []string{"london", "paris"}},
		{"distance under london", `{"geo_distance":{"distance":"340km","loc":{"lat":48.8566,"lon":2.3522}}}`, []string{"paris"}},
		{"distance number unit", `{"geo_distance":{"distance":1000,"unit":"km","loc":[2.3522,48.8566]}}`, []string{"berlin", "london", "paris"}},
		{"distance number unit madrid", `{"geo_distance":{"distance":1100,"unit":"km","loc":[2.3522,48.8566]}}`, []string{"berlin", "london", "madrid", "paris"}},
		{"distance miles string point", `{"geo_distance":{"distance":"250mi","loc":"48.8566,2.3522"}}`, []string{"london", "paris"}},
		{"distance geohash", `{"geo_distance":{"distance":"10km","loc":"u09tvw0f6szy"}}`, []string{"paris"}},
		{"distance dateline", `{"geo_distance":{"distance":"500km","loc":{"lat":-17,"lon":179.9}}}`, []string{"fiji"}},
		{"distance dateline far", `{"geo_distance":{"distance":"1500km","loc":{"lat":-17,"lon":-179.9}}}`, []string{"fiji", "samoa"}},
		{"distance plane", `{"geo_distance":{"distance":"400km","distance_type":"plane","loc":{"lat":48.8566,"lon":2.3522}}}`, []string{"london", "paris"}},
		{"distance unmapped ignored", `{"geo_distance":{"distance":"1km","ignore_unmapped":true,"nope":[0,0]}}`, nil},
		{"distance coerce", `{"geo_distance":{"distance":"10km","validation_method":"COERCE","loc":{"lat":48.8566,"lon":362.3522}}}`, []string{"paris"}},

		{"bbox corners", `{"geo_bounding_box":{"loc":{"top_left":{"lat":53,"lon":-1},"bottom_right":{"lat":48,"lon":14}}}}`, []string{"berlin", "london", "paris"}},
		{"bbox other corners", `{"geo_bounding_box":{"loc":{"top_right":[14,53],"bottom_left":[-1,48]}}}`, []string{"berlin", "london", "paris"}},
		{"bbox sides", `{"geo_bounding_box":{"loc":{"top":53,"left":-5,"bottom":40,"right":3}}}`, []string{"london", "madrid", "paris"}},
		{"bbox wkt", `{"geo_bounding_box":{"loc":{"wkt":"BBOX (-5, 3, 53, 40)"}}}`, []string{"london", "madrid", "paris"}},
		{"bbox strings", `{"geo_bounding_box":{"loc":{"top_left":"53,-1","bottom_right":"48,14"}}}`, []string{"berlin", "london", "paris"}},
		// a geohash corner is that corner of its cell: u0 is lat 45..50.625,
		// lon 0..11.25; gc is lat 50.625..56.25, lon -11.25..0
		{"bbox one geohash cell", `{"geo_bounding_box":{"loc":{"top_left":"u0","bottom_right":"u0"}}}`, []string{"paris"}},
		{"bbox geohash cells", `{"geo_bounding_box":{"loc":{"top_left":{"geohash":"gc"},"bottom_right":"u0"}}}`, []string{"london", "paris"}},
		{"bbox geohash other corners", `{"geo_bounding_box":{"loc":{"top_right":"u0","bottom_left":"gc"}}}`, nil},
		{"bbox geohash cells, other corners", `{"geo_bounding_box":{"loc":{"top_right":"u3","bottom_left":"u0"}}}`, []string{"berlin", "paris"}},
		{"bbox dateline", `{"geo_bounding_box":{"loc":{"top_left":{"lat":0,"lon":170},"bottom_right":{"lat":-20,"lon":-170}}}}`, []string{"fiji", "samoa"}},
		{"bbox type", `{"geo_bounding_box":{"type":"indexed","loc":{"top":53,"left":-5,"bottom":40,"right":3}}}`, []string{"london", "madrid", "paris"}},

		{"polygon", `{"geo_polygon":{"loc":{"points":[{"lat":55,"lon":-2},{"lat":55,"lon":15},{"lat":50,"lon":16},{"lat":45,"lon":0}]}}}`, []string{"berlin", "london", "paris"}},
		{"polygon strings closed", `{"geo_polygon":{"loc":{"points":["55,-2","55,15","50,16","45,0","55,-2"]}}}`, []string{"berlin", "london", "paris"}},
		{"polygon triangle", `{"geo_polygon":{"loc":{"points":[{"lat":55,"lon":-2},{"lat":55,"lon":15},{"lat":45,"lon":0}]}}}`, []string{"london", "paris"}},
		{"polygon arrays", `{"geo_polygon":{"loc":{"points":[[-5,41],[-2,41],[-2,39],[-5,39]]}}}`, []string{"madrid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ix.ids(t, tt.query)
			sort.Strings(tt.want)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s\n got %v\nwant %v", tt.query, got, tt.want)
			}
		})
	}
	// geo queries are constant score (the boost)
	for _, h := range ix.ranked(t, `{"geo_distance":{"distance":"400km","boost":2.5,"loc":[2.3522,48.8566]}}`) {
		if h.score != 2.5 {
			t.Errorf("geo_distance score %v, want 2.5", h.score)
		}
	}
}

func TestFunctionScore(t *testing.T) {
	ix := newTestIndex(t)
	// document values of the test index (see testDocs)
	price := map[string]float64{"1": 1.5, "2": 2.5, "3": 10, "4": 3, "5": 100} // min of multi-values
	count := map[string]float64{"1": 5, "2": 10, "3": -3, "4": 1}
	tags := map[string][]string{"1": {"a", "b"}, "2": {"b"}, "3": {"c"}, "4": {"z", "a"}, "5": nil}
	day := map[string]float64{ // epoch days of "date"
		"1": 18262 + 10.0/24, "2": 18263, "3": 18307 + 12.5/24, "4": 18261 + (86399.999 / 86400),
	}
	bodyQuick := ix.scores(t, `{"match":{"body":"quick"}}`)
	hasTag := func(id, tag string) bool {
		for _, x := range tags[id] {
			if x == tag {
				return true
			}
		}
		return false
	}
	all := []string{"1", "2", "3", "4", "5"}
	tests := []struct {
		name  string
		query string
		ids   []string
		want  func(id string) float64
	}{
		{"field_value_factor sqrt replace",
			`{"function_score":{"field_value_factor":{"field":"price","factor":2,"modifier":"sqrt"},"boost_mode":"replace"}}`,
			all, func(id string) float64 { return math.Sqrt(2 * price[id]) }},
		{"field_value_factor missing square",
			`{"function_score":{"query":{"match_all":{}},"functions":[{"field_value_factor":{"field":"count","modifier":"square","missing":2}}]}}`,
			all, func(id string) float64 {
				c, ok := count[id]
				if !ok {
					c = 2
				}
				return c * c
			}},
		{"field_value_factor log1p times query",
			`{"function_score":{"query":{"match":{"body":"quick"}},"field_value_factor":{"field":"price","modifier":"log1p"}}}`,
			[]string{"1", "3", "5"}, func(id string) float64 { return bodyQuick[id] * math.Log10(price[id]+1) }},
		{"weights sum",
			`{"function_score":{"functions":[{"filter":{"term":{"tag":"a"}},"weight":2},{"filter":{"term":{"tag":"b"}},"weight":3}],"score_mode":"sum","boost_mode":"replace"}}`,
			all, func(id string) float64 {
				s, any := 0.0, false
				if hasTag(id, "a") {
					s, any = s+2, true
				}
				if hasTag(id, "b") {
					s, any = s+3, true
				}
				if !any {
					return 1
				}
				return s
			}},
		{"weights avg",
			`{"function_score":{"functions":[{"filter":{"term":{"tag":"a"}},"weight":2},{"filter":{"term":{"tag":"b"}},"weight":4}],"score_mode":"avg","boost_mode":"replace"}}`,
			all, func(id string) float64 {
				// avg divides the weighted sum by the sum of weights
				s, w := 0.0, 0.0
				if hasTag(id, "a") {
					s, w = s+2, w+2
				}
				if hasTag(id, "b") {
					s, w = s+4, w+4
				}
				if w == 0 {
					return 1
				}
				return s / w
			}},
		{"weights max min first multiply",
			`{"function_score":{"functions":[{"filter":{"term":{"tag":"a"}},"weight":2},{"filter":{"term":{"tag":"b"}},"weight":3}],"score_mode":"multiply","boost_mode":"replace"}}`,
			all, func(id string) float64 {
				s := 1.0
				if hasTag(id, "a") {
					s *= 2
				}
				if hasTag(id, "b") {
					s *= 3
				}
				return s
			}},
		{"first",
			`{"function_score":{"functions":[{"filter":{"term":{"tag":"b"}},"weight":3},{"filter":{"term":{"tag":"a"}},"weight":2}],"score_mode":"first","boost_mode":"replace"}}`,
			all, func(id string) float64 {
				switch {
				case hasTag(id, "b"):
					return 3
				case hasTag(id, "a"):
					return 2
				}
				return 1
			}},
		{"max with max_boost",
			`{"function_score":{"functions":[{"filter":{"term":{"tag":"b"}},"weight":3},{"filter":{"term":{"tag":"a"}},"weight":2}],"score_mode":"max","boost_mode":"replace","max_boost":2.5}}`,
			all, func(id string) float64 {
				switch {
				case hasTag(id, "b"):
					return 2.5
				case hasTag(id, "a"):
					return 2
				}
				return 1
			}},
		{"boost_mode sum and boost",
			`{"function_score":{"query":{"match":{"body":"quick"}},"weight":4,"boost_mode":"sum","boost":2}}`,
			[]string{"1", "3", "5"}, func(id string) float64 { return 2 * (bodyQuick[id] + 4) }},
		{"boost_mode avg",
			`{"function_score":{"query":{"match":{"body":"quick"}},"weight":4,"boost_mode":"avg"}}`,
			[]string{"1", "3", "5"}, func(id string) float64 { return (bodyQuick[id] + 4) / 2 }},
		{"boost_mode min max",
			`{"function_score":{"query":{"match":{"body":"quick"}},"functions":[{"weight":0.5}],"boost_mode":"min"}}`,
			[]string{"1", "3", "5"}, func(id string) float64 { return math.Min(bodyQuick[id], 0.5) }},
		{"min_score",
			`{"function_score":{"field_value_factor":{"field":"price"},"boost_mode":"replace","min_score":3}}`,
			[]string{"3", "4", "5"}, func(id string) float64 { return price[id] }},
		{"gauss number",
			`{"function_score":{"gauss":{"price":{"origin":0,"scale":10}},"boost_mode":"replace"}}`,
			all, func(id string) float64 { return math.Pow(0.5, price[id]*price[id]/100) }},
		{"exp number offset decay",
			`{"function_score":{"exp":{"price":{"origin":"2","scale":5,"offset":1,"decay":0.2}},"boost_mode":"replace"}}`,
			all, func(id string) float64 { return math.Pow(0.2, math.Max(0, math.Abs(price[id]-2)-1)/5) }},
		{"linear number",
			`{"function_score":{"linear":{"price":{"origin":0,"scale":10}},"boost_mode":"replace"}}`,
			all, func(id string) float64 { return math.Max(0, (20-price[id])/20) }},
		{"linear multi_value_mode max",
			`{"function_score":{"linear":{"price":{"origin":0,"scale":10}, "multi_value_mode":"max"},"boost_mode":"replace"}}`,
			all, func(id string) float64 {
				p := price[id]
				if id == "4" {
					p = 7
				}
				return math.Max(0, (20-p)/20)
			}},
		{"gauss date",
			`{"function_score":{"gauss":{"date":{"origin":"2020-01-01","scale":"10d"}},"boost_mode":"replace"}}`,
			all, func(id string) float64 {
				d, ok := day[id]
				if !ok {
					return 1
				}
				dist := math.Abs(d - 18262)
				return math.Pow(0.5, dist*dist/100)
			}},
		{"exp date now",
			`{"function_score":{"exp":{"date":{"scale":"30d","offset":"1d"}},"boost_mode":"replace"}}`,
			all, func(id string) float64 {
				d, ok := day[id]
				if !ok {
					return 1
				}
				now := float64(fixedNow.UnixMilli()) / 86400000
				return math.Pow(0.5, math.Max(0, math.Abs(d-now)-1)/30)
			}},
		{"weighted decay with filter",
			`{"function_score":{"functions":[{"filter":{"term":{"tag":"a"}},"linear":{"price":{"origin":0,"scale":10}},"weight":10}],"boost_mode":"replace"}}`,
			all, func(id string) float64 {
				if !hasTag(id, "a") {
					return 1
				}
				return 10 * math.Max(0, (20-price[id])/20)
			}},
		{"no functions",
			`{"function_score":{"query":{"match":{"body":"quick"}},"boost_mode":"replace"}}`,
			[]string{"1", "3", "5"}, func(id string) float64 { return bodyQuick[id] }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := ix.ranked(t, tt.query)
			var ids []string
			for i, h := range hits {
				ids = append(ids, h.id)
				want := float64(float32(tt.want(h.id)))
				if math.Abs(h.score-want) > 1e-5*math.Max(1, want) {
					t.Errorf("doc %s score %v, want %v", h.id, h.score, want)
				}
				if i > 0 && h.score > hits[i-1].score {
					t.Errorf("not in score order: %v", hits)
				}
			}
			sort.Strings(ids)
			if !reflect.DeepEqual(ids, tt.ids) {
				t.Errorf("ids %v, want %v", ids, tt.ids)
			}
		})
	}

	// random_score: deterministic per seed and field, in [0, 1)
	q := `{"function_score":{"random_score":{"seed":42,"field":"_id"},"boost_mode":"replace"}}`
	a, b := ix.scores(t, q), ix.scores(t, q)
	other := ix.scores(t, `{"function_score":{"random_score":{"seed":"other","field":"_id"},"boost_mode":"replace"}}`)
	if len(a) != 5 || !reflect.DeepEqual(a, b) || reflect.DeepEqual(a, other) {
		t.Errorf("random_score not deterministic per seed: %v %v %v", a, b, other)
	}
	for id, s := range a {
		if s < 0 || s >= 1 {
			t.Errorf("random score of %s = %v", id, s)
		}
	}
	// field _seq_no, the field ES documents for random_score, is accepted
	// and gives the same per-document scores as _id
	seq := ix.scores(t, `{"function_score":{"random_score":{"seed":42,"field":"_seq_no"},"boost_mode":"replace"}}`)
	if !reflect.DeepEqual(seq, a) {
		t.Errorf("random_score on _seq_no = %v, want %v", seq, a)
	}

	// geo decay
	gx := newGeoIndex(t)
	paris := [2]float64{48.8566, 2.3522}
	locs := map[string][2]float64{"paris": paris, "london": {51.5072, -0.1276}, "berlin": {52.52, 13.405},
		"madrid": {40.4168, -3.7038}, "nyc": {40.7128, -74.006}, "fiji": {-17.7134, 178.065}, "samoa": {-13.759, -172.1046}}
	hits := gx.ranked(t, `{"function_score":{"gauss":{"loc":{"origin":"48.8566,2.3522","scale":"500km","offset":"100km","decay":0.4}},"boost_mode":"replace"}}`)
	if len(hits) != len(geoDocs) {
		t.Fatalf("geo gauss hits %v", hits)
	}
	for _, h := range hits {
		want := 1.0
		if l, ok := locs[h.id]; ok {
			d := math.Max(0, haversine(paris[0], paris[1], l[0], l[1])-100000)
			want = math.Pow(0.4, d*d/(500000*500000))
		}
		if math.Abs(h.score-want) > 1e-3*math.Max(want, 1e-3) && math.Abs(h.score-want) > 1e-9 {
			t.Errorf("geo gauss %s: %v want %v", h.id, h.score, want)
		}
	}
}

// haversine is the great-circle distance in meters (ES's mean radius).
func haversine(lat1, lon1, lat2, lon2 float64) float64 {
	rad := math.Pi / 180
	dlat, dlon := (lat2-lat1)*rad, (lon2-lon1)*rad
	a := math.Sin(dlat/2)*math.Sin(dlat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dlon/2)*math.Sin(dlon/2)
	return 2 * 6371008.7714 * math.Asin(math.Sqrt(a))
}

func TestGeoFunctionParseErrors(t *testing.T) {
	tests := []struct {
		query string
		want  string
	}{
		{`{"geo_distance":{"loc":[0,0]}}`, `parsing_exception: geo_distance requires 'distance' to be specified`},
		{`{"geo_distance":{"distance":"1km","loc":[0,0],"foo":1}}`, `parsing_exception: failed to parse [geo_distance] query. unexpected field [foo]`},
		{`{"geo_distance":{"distance":"1km","a":[0,0],"b":[0,0]}}`, `parsing_exception: [geo_distance] query doesn't support multiple fields, found [a] and [b]`},
		{`{"geo_distance":{"distance":"xkm","loc":[0,0]}}`, `number_format_exception: For input string: "x"`},
		{`{"geo_distance":{"distance":"0km","loc":[0,0]}}`, `illegal_argument_exception: distance must be greater than zero`},
		{`{"geo_distance":{"distance":1,"unit":"parsec","loc":[0,0]}}`, `illegal_argument_exception: No distance unit match [parsec]`},
		{`{"geo_distance":{"distance":"1km","distance_type":"x","loc":[0,0]}}`, `illegal_argument_exception: No geo distance for [x]`},
		{`{"geo_distance":{"distance":"1km","loc":{"lat":1}}}`, `parse_exception: field [lon] missing`},
		{`{"geo_distance":{"distance":"1km","loc":{"lon":1}}}`, `parse_exception: field [lat] missing`},
		{`{"geo_distance":{"distance":"1km","loc":{"lat":true,"lon":1}}}`, `parse_exception: latitude must be a number`},
		{`{"geo_distance":{"distance":"1km","loc":{"lat":1,"lon":1,"x":1}}}`, `parse_exception: field must be either [lon], [lat], [z] or [geohash]`},
		{`{"geo_distance":{"distance":"1km","loc":["a","b"]}}`, `parse_exception: numeric value expected`},
		{`{"geo_distance":{"distance":"1km","validation_method":"x","loc":[0,0]}}`, `illegal_argument_exception: No enum constant org.elasticsearch.index.query.GeoValidationMethod.X`},
		{`{"geo_bounding_box":{"loc":{"top":1,"left":1,"bottom":0}}}`, `parse_exception: failed to parse bounding box. Conflicting definition found using well-known text and explicit corners.`},
		{`{"geo_bounding_box":{"loc":{"wkt":"BBOX (0, 1, 1, 0)","top":1}}}`, `parse_exception: failed to parse bounding box. Conflicting definition found using well-known text and explicit corners.`},
		{`{"geo_bounding_box":{"loc":{"middle":1}}}`, `parse_exception: failed to parse bounding box. unexpected field [middle]`},
		{`{"geo_bounding_box":{"foo":1}}`, `parsing_exception: failed to parse [geo_bbox] query. unexpected field [foo]`},
		{`{"geo_bounding_box":{"boost":1}}`, `parse_exception: failed to parse [geo_bbox] query. bounding box not provided`},
		{`{"geo_bounding_box":{"loc":{"top":0,"left":0,"bottom":1,"right":1}}}`, `illegal_argument_exception: top is below bottom corner: 0.0 vs. 1.0`},
		{`{"geo_polygon":{"loc":{"points":[[0,0],[1,1]]}}}`, `illegal_argument_exception: too few points defined for geo_polygon query`},
		{`{"geo_polygon":{"foo":1}}`, `parsing_exception: [geo_polygon] query does not support [foo]`},

		{`{"function_score":{"query":{"match_all":{}},"foo":1}}`, `parsing_exception: failed to parse [function_score] query. field [foo] is not supported`},
		{`{"function_score":{"foo":{}}}`, `named_object_not_found_exception: unable to parse ScoreFunctionBuilder with name [foo]: parser not found`},
		{`{"function_score":{"foo":[]}}`, `parsing_exception: failed to parse [function_score] query. array [foo] is not supported`},
		{`{"function_score":{"weight":1,"random_score":{}}}`, `parsing_exception: failed to parse [function_score] query. already found function [weight], now encountering [random_score]. use [functions] array if you want to define several functions.`},
		{`{"function_score":{"functions":[],"weight":1}}`, `parsing_exception: failed to parse [function_score] query. [you can either define [functions] array or a single function, not both. already found [functions] array, now encountering [weight].]`},
		{`{"function_score":{"weight":1,"functions":[]}}`, `parsing_exception: failed to parse [function_score] query. [you can either define [functions] array or a single function, not both. already found [weight], now encountering [functions].]`},
		{`{"function_score":{"functions":[{"filter":{"match_all":{}}}]}}`, `parse_exception: failed to parse [function_score] query. an entry in functions list is missing a function.`},
		{`{"function_score":{"functions":[1]}}`, `parsing_exception: failed to parse [function_score] query. malformed query, expected a [START_OBJECT] while parsing functions but got a [VALUE_NUMBER] instead`},
		{`{"function_score":{"functions":[{"weight":1,"foo":2}]}}`, `parsing_exception: failed to parse [function_score] query. field [foo] is not supported`},
		{`{"function_score":{"functions":[{"random_score":{},"field_value_factor":{"field":"a"}}]}}`, `parsing_exception: failed to parse function_score functions. already found [random_score], now encountering [field_value_factor].`},
		{`{"function_score":{"score_mode":"x"}}`, `illegal_argument_exception: No enum constant org.elasticsearch.common.lucene.search.function.FunctionScoreQuery.ScoreMode.X`},
		{`{"function_score":{"boost_mode":"x"}}`, `illegal_argument_exception: No enum constant org.elasticsearch.common.lucene.search.function.CombineFunction.X`},
		{`{"function_score":{"query":{"match_all":{}},"query":{"match_all":{}}}}`, `json_parse_exception: Duplicate field 'query'`},
		{`{"function_score":{"field_value_factor":{}}}`, `parsing_exception: [field_value_factor] required field 'field' missing`},
		{`{"function_score":{"field_value_factor":{"field":"a","modifier":"cube"}}}`, `illegal_argument_exception: No enum constant org.elasticsearch.common.lucene.search.function.FieldValueFactorFunction.Modifier.CUBE`},
		{`{"function_score":{"field_value_factor":{"field":"a","foo":1}}}`, `parsing_exception: field_value_factor query does not support [foo]`},
		{`{"function_score":{"gauss":{"multi_value_mode":"min"}}}`, `parsing_exception: malformed score function score parameters.`},
		{`{"function_score":{"gauss":{"f":{},"foo":1}}}`, `parsing_exception: malformed score function score parameters.`},
		{`{"function_score":{"random_score":{"foo":1}}}`, `parsing_exception: random_score query does not support [foo]`},
		{`{"function_score":{"script_score":{"script":"1"}}}`, `parsing_exception: [script_score] scripts are not supported`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.query))
		if got := errString(err); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.query, got, tt.want)
		}
	}
}

func TestGeoFunctionCompileErrors(t *testing.T) {
	ix := newGeoIndex(t)
	tests := []struct {
		query string
		want  string
	}{
		{`{"geo_distance":{"distance":"1km","nope":[0,0]}}`, `query_shard_exception: failed to find geo_point field [nope]`},
		{`{"geo_distance":{"distance":"1km","name":[0,0]}}`, `query_shard_exception: field [name] is not a geo_point field`},
		{`{"geo_distance":{"distance":"1km","loc":{"lat":91,"lon":0}}}`, `query_shard_exception: illegal latitude value [91.0] for [geo_distance]`},
		{`{"geo_bounding_box":{"loc":{"top":1,"left":-200,"bottom":0,"right":1}}}`, `query_shard_exception: illegal longitude value [-200.0] for [geo_bounding_box]`},
		{`{"function_score":{"field_value_factor":{"field":"nope"}}}`, `query_shard_exception: failed to create query: Unable to find a field mapper for field [nope]. No 'missing' value defined. [caused_by: exception: Unable to find a field mapper for field [nope]. No 'missing' value defined.]`},
		{`{"function_score":{"gauss":{"pop":{"origin":0}}}}`, `query_shard_exception: failed to create query: both [scale] and [origin] must be set for numeric fields. [caused_by: parse_exception: both [scale] and [origin] must be set for numeric fields.]`},
		{`{"function_score":{"gauss":{"day":{"origin":"2020-01-01"}}}}`, `query_shard_exception: failed to create query: [scale] must be set for date fields. [caused_by: parse_exception: [scale] must be set for date fields.]`},
		{`{"function_score":{"gauss":{"loc":{"scale":"1km"}}}}`, `query_shard_exception: failed to create query: [origin] and [scale] must be set for geo fields. [caused_by: parse_exception: [origin] and [scale] must be set for geo fields.]`},
		{`{"function_score":{"gauss":{"name":{"origin":"a","scale":"1"}}}}`, `parsing_exception: field [name] is of type [keyword], but only numeric types are supported.`},
		{`{"function_score":{"gauss":{"nope":{"origin":1,"scale":1}}}}`, `parsing_exception: unknown field [nope]`},
		{`{"function_score":{"gauss":{"pop":{"origin":1,"scale":1,"decay":1}}}}`, `query_shard_exception: failed to create query: [gauss] : decay must be in the range [0..1]. [caused_by: illegal_argument_exception: [gauss] : decay must be in the range [0..1].]`},
		{`{"function_score":{"gauss":{"pop":{"origin":1,"scale":1,"foo":1}}}}`, `query_shard_exception: failed to create query: parameter [foo] not supported! [caused_by: parse_exception: parameter [foo] not supported!]`},
		{`{"function_score":{"exp":{"day":{"scale":"10x"}}}}`, `query_shard_exception: failed to create query: failed to parse setting [scale] with value [10x] as a time value: unit is missing or unrecognized [caused_by: parse_exception: failed to parse setting [scale] with value [10x] as a time value: unit is missing or unrecognized]`},
	}
	for _, tt := range tests {
		n, err := Parse([]byte(tt.query))
		if err == nil {
			_, err = n.Compile(ix.ctx)
		}
		got := errString(err)
		if i := strings.Index(got, " [index"); i >= 0 {
			got = got[:i]
		}
		if got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.query, got, tt.want)
		}
	}
	// a document without the field and no missing value fails the search
	q := ix.compile(t, `{"function_score":{"field_value_factor":{"field":"pop"}}}`)
	it, err := ix.reader.Search(t.Context(), bluge.NewTopNSearch(10, q))
	if err == nil {
		for {
			m, nerr := it.Next()
			if nerr != nil {
				err = nerr
				break
			}
			if m == nil {
				break
			}
		}
	}
	if got := errString(err); got != "exception: Missing value for field [pop]" {
		t.Errorf("missing value: %s", got)
	}
}

// city is one line of the cities dataset.
type city struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Country    string  `json:"country"`
	Population float64 `json:"population"`
	Location   struct {
		Lat float64 `json:"lat"`
		Lon float64 `json:"lon"`
	} `json:"location"`
}

// TestCitiesGeo loads the first 10k cities and checks geo and
// function_score queries against expectations computed in plain Go.
func TestCitiesGeo(t *testing.T) {
	const path = "/work/shared/datasets/cities.ndjson.gz"
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("dataset: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var docs [][2]string
	cities := map[string]city{}
	for sc.Scan() && len(docs) < 10000 {
		var c city
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, [2]string{c.ID, sc.Text()})
		cities[c.ID] = c
	}
	m, err := mapping.Parse(json.RawMessage(`{"properties":{"name":{"type":"text"},"country":{"type":"keyword"},
		"population":{"type":"long"},"location":{"type":"geo_point"}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	ix := buildIndex(t, m, nil, docs)
	// all hits (the helpers stop at 1000)
	search := func(query string) []hit {
		t.Helper()
		it, err := ix.reader.Search(t.Context(), bluge.NewTopNSearch(len(docs), ix.compile(t, query)))
		if err != nil {
			t.Fatal(err)
		}
		var out []hit
		for {
			m, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if m == nil {
				return out
			}
			h := hit{score: m.Score}
			_ = m.VisitStoredFields(func(field string, value []byte) bool {
				if field == "_id" {
					h.id = string(value)
				}
				return true
			})
			out = append(out, h)
		}
	}
	ids := func(query string) []string {
		var out []string
		for _, h := range search(query) {
			out = append(out, h.id)
		}
		return out
	}

	expect := func(pred func(c city) bool) []string {
		var ids []string
		for id, c := range cities {
			if pred(c) {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		return ids
	}
	// boundary tolerance: points within 1 m of the circle are ambiguous
	// after the index's coordinate quantization and are left out
	center := cities[docs[0][0]].Location
	for _, km := range []float64{5, 50, 300, 2000} {
		meters := km * 1000
		got := ids(`{"geo_distance":{"distance":"` + javaDoubleString(km) + `km","location":{"lat":` +
			javaDoubleString(center.Lat) + `,"lon":` + javaDoubleString(center.Lon) + `}}}`)
		gotSet := map[string]bool{}
		for _, id := range got {
			gotSet[id] = true
		}
		n := 0
		for id, c := range cities {
			d := haversine(center.Lat, center.Lon, c.Location.Lat, c.Location.Lon)
			if math.Abs(d-meters) < 1 {
				continue
			}
			if (d <= meters) != gotSet[id] {
				t.Errorf("geo_distance %vkm: %s (%s) at %.1fm: got %v", km, id, cities[id].Name, d, gotSet[id])
			}
			if d <= meters {
				n++
			}
		}
		if n == 0 {
			t.Errorf("geo_distance %vkm matched nothing", km)
		}
	}

	boxes := [][4]float64{{42.7, 1.4, 42.4, 1.8}, {40, 40, 20, 70}, {10, -20, -10, 30}, {70, -180, -60, 180}}
	for _, b := range boxes {
		top, left, bottom, right := b[0], b[1], b[2], b[3]
		got := ids(`{"geo_bounding_box":{"location":{"top_left":{"lat":` + javaDoubleString(top) + `,"lon":` + javaDoubleString(left) +
			`},"bottom_right":{"lat":` + javaDoubleString(bottom) + `,"lon":` + javaDoubleString(right) + `}}}}`)
		const eps = 1e-6 // quantization of indexed points
		gotSet := map[string]bool{}
		for _, id := range got {
			gotSet[id] = true
		}
		n := 0
		for id, c := range cities {
			lat, lon := c.Location.Lat, c.Location.Lon
			edge := math.Abs(lat-top) < eps || math.Abs(lat-bottom) < eps || math.Abs(lon-left) < eps || math.Abs(lon-right) < eps
			if edge {
				continue
			}
			in := lat <= top && lat >= bottom && lon >= left && lon <= right
			if in != gotSet[id] {
				t.Errorf("bbox %v: %s at %v,%v: got %v", b, id, lat, lon, gotSet[id])
			}
			if in {
				n++
			}
		}
		if n == 0 {
			t.Errorf("bbox %v matched nothing", b)
		}
	}

	// function_score on population within 300 km: log1p(population) * 1
	hits := search(`{"function_score":{"query":{"geo_distance":{"distance":"300km","location":{"lat":` +
		javaDoubleString(center.Lat) + `,"lon":` + javaDoubleString(center.Lon) + `}}},
		"field_value_factor":{"field":"population","modifier":"log1p","factor":2}}}`)
	want := expect(func(c city) bool {
		return haversine(center.Lat, center.Lon, c.Location.Lat, c.Location.Lon) <= 300000
	})
	if len(hits) != len(want) {
		t.Fatalf("function_score hits %d, want %d", len(hits), len(want))
	}
	for i, h := range hits {
		c := cities[h.id]
		w := float64(float32(math.Log10(2*c.Population + 1)))
		if math.Abs(h.score-w) > 1e-5 {
			t.Errorf("function_score %s (pop %v): %v want %v", h.id, c.Population, h.score, w)
		}
		if i > 0 && c.Population > cities[hits[i-1].id].Population {
			t.Errorf("function_score not ordered by population at %d", i)
		}
	}
}

// TestExplainNewQueries runs the custom searchers with explanations on.
func TestExplainNewQueries(t *testing.T) {
	ix := newTestIndex(t)
	for _, q := range []string{
		`{"function_score":{"query":{"match":{"body":"quick"}},"functions":[{"filter":{"term":{"tag":"a"}},"weight":2},{"field_value_factor":{"field":"price"}}]}}`,
		`{"boosting":{"positive":{"match":{"body":"quick"}},"negative":{"term":{"title":"quick"}},"negative_boost":0.5}}`,
		`{"dis_max":{"queries":[{"match":{"title":"quick"}},{"match":{"body":"quick"}}],"tie_breaker":0.5}}`,
		`{"terms_set":{"tag":{"terms":["a","z"],"minimum_should_match_field":"count","boost":2}}}`,
	} {
		req := bluge.NewTopNSearch(10, ix.compile(t, q)).ExplainScores()
		it, err := ix.reader.Search(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for m, err := it.Next(); m != nil; m, err = it.Next() {
			if err != nil {
				t.Fatal(err)
			}
			if m.Explanation == nil || math.Abs(m.Explanation.Value-m.Score) > 1e-9 {
				t.Errorf("%s: explanation %v for score %v", q, m.Explanation, m.Score)
			}
			n++
		}
		if n == 0 {
			t.Errorf("%s: no hits", q)
		}
	}
}
