package handlers

import (
	"bytes"
	"encoding/json"
	"testing"

	asgen "github.com/quarry-search/quarry/gen/appsearch"
	"github.com/quarry-search/quarry/gen/cluster"
)

// TestParseSpecMatchesLoader proves the parallel parse gives the document
// kin-openapi's loader gives, for both embedded documents and any number
// of workers.
func TestParseSpecMatchesLoader(t *testing.T) {
	for _, tc := range []struct {
		name    string
		raw     func() ([]byte, error)
		swagger func() (any, error)
	}{
		{"cluster", cluster.GetSpecJSON, func() (any, error) { return cluster.GetSwagger() }},
		{"appsearch", asgen.GetSpecJSON, func() (any, error) { return asgen.GetSwagger() }},
	} {
		want, err := tc.swagger()
		if err != nil {
			t.Fatal(err)
		}
		wantJSON, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := tc.raw()
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2, 3} {
			got, err := parseSpec(raw, workers)
			if err != nil {
				t.Fatalf("%s/%d: %v", tc.name, workers, err)
			}
			gotJSON, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Errorf("%s with %d workers: document differs from the loader's (%d vs %d bytes)", tc.name, workers, len(gotJSON), len(wantJSON))
			}
			if got.Paths.Len() != len(got.Paths.Map()) || got.Paths.Len() == 0 {
				t.Errorf("%s: %d paths", tc.name, got.Paths.Len())
			}
			if err := got.Validate(t.Context()); err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
		}
	}
}

// TestParseSpecErrors covers malformed documents: an error, never a panic.
func TestParseSpecErrors(t *testing.T) {
	for _, raw := range []string{``, `[]`, `{"paths":[]}`, `{"paths":{"/a":[]}}`, `{"openapi":"3.0.3","paths":{"/a":{"get":{"responses":{"200":{"$ref":"#/components/responses/missing"}}}}}}`} {
		if _, err := parseSpec([]byte(raw), 2); err == nil {
			t.Errorf("parseSpec(%q): no error", raw)
		}
	}
}

func BenchmarkParseSpec(b *testing.B) {
	raw, err := cluster.GetSpecJSON()
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []int{1, 2} {
		b.Run(map[int]string{1: "workers=1", 2: "workers=2"}[w], func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := parseSpec(raw, w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
