package mapping_test

import (
	"bufio"
	"compress/gzip"
	"os"
	"testing"

	"github.com/blugelabs/bluge"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

const cityDoc = `{"id":"3039163","name":"Sant Julià de Lòria","country":"AD","feature_code":"PPLA","admin_code":"06","population":8022,"location":{"lat":42.46372,"lon":1.49129}}`

// cityDocs returns up to n lines of the shared cities dataset, or the
// built-in sample when it is not available.
func cityDocs(n int) [][]byte {
	f, err := os.Open("/work/shared/datasets/cities.ndjson.gz")
	if err != nil {
		return [][]byte{[]byte(cityDoc)}
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return [][]byte{[]byte(cityDoc)}
	}
	sc := bufio.NewScanner(gz)
	var out [][]byte
	for sc.Scan() && len(out) < n {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	if len(out) == 0 {
		return [][]byte{[]byte(cityDoc)}
	}
	return out
}

func citiesMapping(b testing.TB) *mapping.Mapping {
	return mustParse(b, `{"properties":{"id":{"type":"keyword"},"name":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}},
		"country":{"type":"keyword"},"feature_code":{"type":"keyword"},"admin_code":{"type":"keyword"},
		"population":{"type":"long"},"location":{"type":"geo_point"}}}`)
}

func BenchmarkParseDocument(b *testing.B) {
	m := citiesMapping(b)
	reg := testRegistry(b)
	docs := cityDocs(1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src := docs[i%len(docs)]
		doc := bluge.NewDocument("x")
		if _, err := m.ParseDocument("x", src, reg, doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseAndAnalyze includes bluge's per-field analysis, the other
// per-document CPU cost before a batch is written.
func BenchmarkParseAndAnalyze(b *testing.B) {
	m := citiesMapping(b)
	reg := testRegistry(b)
	docs := cityDocs(1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		doc := bluge.NewDocument("x")
		if _, err := m.ParseDocument("x", docs[i%len(docs)], reg, doc); err != nil {
			b.Fatal(err)
		}
		doc.Analyze()
	}
}

func BenchmarkParseDocumentDynamic(b *testing.B) {
	m := mapping.New()
	reg := testRegistry(b)
	doc := bluge.NewDocument("x")
	upd, err := m.ParseDocument("x", []byte(cityDoc), reg, doc)
	if err != nil {
		b.Fatal(err)
	}
	docs := cityDocs(1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		doc := bluge.NewDocument("x")
		if _, err := upd.ParseDocument("x", docs[i%len(docs)], reg, doc); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzParseDocument(f *testing.F) {
	for _, s := range []string{
		cityDoc, `{}`, `{"a":null}`, `{"a":[1,"x",{"b":true}]}`, `{"a.b":1,"a":{"c":2}}`, `{"":1}`, `{"a.":1}`,
		`{"n":1e400}`, `{"s":"\ud83d\ude00"}`, `[1]`, `"x"`, `{"a":{"b":{"c":{"d":[[[1]]]}}}}`, `{"loc":"drm3btev3e86"}`,
		`{"population":"12abc"}`, `{"location":[1,2,3,4]}`, `{"location":{"lat":"x"}}`, `{"name":{"x":1}}`,
		`{"d":"2020-01-01T00:00:00Z","d2":"2015/09/02","num":"12"}`, `{"k":"a","k":"b"}`, `{"x":1`, "{\"a\":\"\x01\"}",
	} {
		f.Add([]byte(s))
	}
	mappings := []*mapping.Mapping{mapping.New(), citiesMapping(f), mustParse(f, `{"dynamic":"strict","properties":{"a":{"type":"integer","coerce":false,"copy_to":"b"},"b":{"type":"text"}}}`),
		mustParse(f, `{"numeric_detection":true,"dynamic_templates":[{"s":{"match_mapping_type":"string","mapping":{"type":"keyword"}}}]}`)}
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, m := range mappings {
			before := marshal(t, m)
			doc := bluge.NewDocument("1")
			upd, err := m.ParseDocument("1", src, reg, doc)
			if err != nil && len(*doc) != 1 {
				t.Fatalf("fields added on error %v", err)
			}
			if upd != nil {
				// The update must render, re-parse and merge.
				again, perr := mapping.Parse([]byte(marshal(t, upd)), reg)
				if perr != nil {
					t.Fatalf("update does not re-parse: %v\n%s", perr, marshal(t, upd))
				}
				if _, merr := m.Merge(again); merr != nil {
					t.Fatalf("update does not merge: %v", merr)
				}
			}
			if marshal(t, m) != before {
				t.Fatal("mapping mutated")
			}
			doc.Analyze()
		}
	})
}
