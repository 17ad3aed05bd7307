package query

import (
	"encoding/json"
	"testing"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// FuzzParseGeoDistanceSort feeds sort values (seeded with _geo_distance
// clauses) to ParseSort and CompileSort: errors only, never a panic.
func FuzzParseGeoDistanceSort(f *testing.F) {
	for _, s := range []string{
		`[{"_geo_distance":{"loc":[2.3,48.8],"unit":"km","order":"desc","mode":"avg","distance_type":"plane"}}]`,
		`{"_geo_distance":{"loc":[{"lat":1,"lon":2},"3,4",[5,6]],"ignore_unmapped":true}}`,
		`{"_geo_distance":{"loc":"u09tv","validation_method":"STRICT"}}`,
		`{"_geo_distance":{"a":[1,2],"b":[3,4]}}`, `{"_geo_distance":[]}`, `{"_geo_distance":{"loc":[]}}`,
		`{"p.v":{"mode":"max","nested":{"path":"p","filter":{"term":{"p.k":"x"}},"max_children":2,"nested":{"path":"p.q"}}}}`,
		`{"p.v":{"nested_path":"p","nested_filter":{"match_all":{}}}}`, `{"p.v":{"nested":{"nested":[]}}}`,
	} {
		f.Add(s)
	}
	check := func(t *testing.T, what string, err error) {
		if _, ok := err.(*searchcore.Error); err != nil && !ok {
			t.Fatalf("%s returned %T %v; want *searchcore.Error", what, err, err)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		fields, err := ParseSort(json.RawMessage(s))
		check(t, "ParseSort", err)
		if err == nil {
			_, _, err = CompileSort(fields, &Context{})
			check(t, "CompileSort", err)
		}
	})
}
