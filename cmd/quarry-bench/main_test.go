package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeNDJSON writes n generated documents as a gzip NDJSON file.
func writeNDJSON(t *testing.T, path string, n int, doc func(i int) string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for i := 0; i < n; i++ {
		fmt.Fprintln(zw, doc(i))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestQuickRun runs the whole benchmark in quick mode against a freshly
// built quarry binary on small generated datasets, and checks the report:
// every part ran, counts match, and the verdicts follow the figures.
func TestQuickRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the quarry binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "quarry")
	build := exec.Command("go", "build", "-o", bin, "../quarry")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build quarry: %v\n%s", err, out)
	}
	countries := []string{"FR", "US", "DE", "ES", "IT"}
	cities := filepath.Join(dir, "cities.ndjson.gz")
	writeNDJSON(t, cities, 1500, func(i int) string {
		return fmt.Sprintf(`{"id":"%d","name":"san city %d","country":"%s","population":%d,"location":{"lat":%.3f,"lon":%.3f}}`,
			i, i, countries[i%len(countries)], 900+i*211, float64(i%90), float64(i%180))
	})
	emails := filepath.Join(dir, "emails.ndjson.gz")
	writeNDJSON(t, emails, 400, func(i int) string {
		return fmt.Sprintf(`{"id":"m%d","subject":"hello %d","date":"2002-%02d-%02dT10:00:00.000Z","body":"please read the mailing list archive %d"}`,
			i, i, 1+i%12, 1+i%28, i)
	})
	out := filepath.Join(dir, "bench.json")
	var stdout bytes.Buffer
	args := []string{"-quick", "-quarry", bin, "-cities", cities, "-emails", emails, "-out", out, "-workdir", filepath.Join(dir, "work")}
	if err := run(args, &stdout); err != nil {
		t.Fatalf("run: %v\n%s", err, stdout.String())
	}
	var rep report
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Datasets) != 2 || rep.Datasets[0].Docs != 1500 || rep.Datasets[1].Docs != 300 {
		t.Fatalf("datasets %+v", rep.Datasets)
	}
	if len(rep.Ceiling.Cities) != 1 || rep.Ceiling.Cities[0].Docs != 1500 || rep.Ceiling.Cities[0].DocsPerS <= 0 || rep.Ceiling.CitiesDisk <= 0 || rep.Ceiling.CitiesFloorDisk <= 0 || rep.Ceiling.CitiesFloorDisk >= rep.Ceiling.CitiesDisk {
		t.Errorf("ceiling %+v", rep.Ceiling)
	}
	if len(rep.Ingest.Cities) != 1 || rep.Ingest.Cities[0].Docs != 1500 || rep.Ingest.Emails.Docs != 300 {
		t.Errorf("ingest %+v", rep.Ingest)
	}
	in := rep.Ingest.Cities[0]
	if in.PeakRSS <= 0 || in.DiskBytes <= 0 || rep.Ingest.MedianRatio != in.DocsPerS/rep.Ceiling.Cities[0].DocsPerS {
		t.Errorf("ingest figures %+v, ratio %v", in, rep.Ingest.MedianRatio)
	}
	wantQueries := []string{"match_all", "term", "match", "range", "bool_filter_sort", "terms_agg", "terms_avg_agg", "date_histogram", "phrase", "pit_page_1000"}
	if len(rep.Queries) != len(wantQueries) {
		t.Fatalf("%d queries, want %d", len(rep.Queries), len(wantQueries))
	}
	// Quick mode keeps 300 of the 400 emails.
	// Hits each query returns on the generated data (size 10, or 1,000 for
	// the PIT page; 0 for size-0 aggregations).
	wantHits := map[string]int{"match_all": 10, "term": 10, "match": 10, "range": 10, "bool_filter_sort": 0, "terms_agg": 0,
		"terms_avg_agg": 0, "date_histogram": 0, "phrase": 10, "pit_page_1000": 1000}
	for i, q := range rep.Queries {
		if q.Name != wantQueries[i] || q.Runs != 5 || q.ClientP50Ms <= 0 || q.InProcP50Ms <= 0 || q.ClientP99Ms < q.ClientP50Ms {
			t.Errorf("query %d: %+v", i, q)
		}
		if q.Hits != wantHits[q.Name] {
			t.Errorf("query %s: %d hits, want %d", q.Name, q.Hits, wantHits[q.Name])
		}
	}
	if rep.Throughput.QPS1 <= 0 || rep.Throughput.QPS8 <= 0 {
		t.Errorf("throughput %+v", rep.Throughput)
	}
	f := rep.Footprint
	if len(f.StartupEmptyMs) != 1 || len(f.StartupLoadedMs) != 1 || f.IdleRSSFresh <= 0 || f.IdleRSSAfterLoads <= 0 || f.IdleRSSLoadedRestart <= 0 || f.DiskBothAfterStop <= 0 {
		t.Errorf("footprint %+v", f)
	}
	met := 0
	for _, tg := range rep.Targets {
		want := tg.Value <= tg.Limit
		if tg.AtLeast {
			want = tg.Value >= tg.Limit
		}
		if tg.Met != want {
			t.Errorf("target %q: value %v limit %v met %v", tg.Name, tg.Value, tg.Limit, tg.Met)
		}
		if tg.Met {
			met++
		}
	}
	// 6 footprint/ingest targets, 10 ratios, 5 absolute p50s, 1 throughput.
	if len(rep.Targets) != 22 || rep.Met != met {
		t.Errorf("%d targets, %d met (counted %d)", len(rep.Targets), rep.Met, met)
	}
	summary := fmt.Sprintf("quarry-bench: %d/22 targets met", met)
	if !strings.Contains(stdout.String(), summary) {
		t.Errorf("output lacks %q:\n%s", summary, stdout.String())
	}
}

func TestParseOptions(t *testing.T) {
	var stderr bytes.Buffer
	o, err := parseOptions([]string{"-quick"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if o.limit != 2000 || o.runs != 1 || o.queryRuns != 5 || o.quarry != "bin/quarry" || o.cities != "../shared/datasets/cities.ndjson.gz" {
		t.Errorf("quick options %+v", o)
	}
	for _, bad := range [][]string{{"-runs", "0"}, {"extra"}, {"-query-runs", "0"}, {"-nope"}} {
		if _, err := parseOptions(bad, &stderr); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestPercentileAndMedian(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	tests := []struct {
		p    float64
		want float64
	}{{50, 3}, {99, 5}, {0, 1}, {20, 1}, {21, 2}}
	for _, tc := range tests {
		if got := percentile(xs, tc.p); got != tc.want {
			t.Errorf("p%v = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median even = %v", got)
	}
	if got := median(nil); got != 0 {
		t.Errorf("median empty = %v", got)
	}
}
