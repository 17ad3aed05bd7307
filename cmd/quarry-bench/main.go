// Command quarry-bench measures Quarry against the performance targets of
// issue #9 and prints one table with each target met or not.
//
//	quarry-bench [-quarry bin/quarry] [-cities FILE] [-emails FILE] [-runs 3] [-out bin/bench.json] [-quick]
//
// It runs four parts on NDJSON datasets (gzip allowed):
//
//  1. ceiling: the dataset indexed straight into bluge in process (one
//     writer, batches of 1,000, the field types dynamic mapping gives);
//  2. ingest: the real quarry binary loaded over HTTP _bulk (1,000 documents
//     per request, 2 concurrent clients), then _refresh and a _count check:
//     docs/s and the ratio to the ceiling of the same run, peak RSS of the
//     server process, bytes on disk;
//  3. queries: a fixed query set over HTTP, warmed then timed (p50/p99
//     client latency and server took), against the same search run in
//     process on the ceiling index; 8-client against 1-client throughput;
//  4. footprint: start-up to a healthy _cluster/health on an empty data
//     folder and on one holding both datasets after a clean shutdown, and
//     idle RSS fresh and after the loads.
//
// Every ratio is measured within one run; repeated figures are medians.
// The raw figures are written as JSON for comparison between commits.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/blugelabs/bluge"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quarry-bench:", err)
		os.Exit(1)
	}
}

// options are the command-line settings.
type options struct {
	quarry     string
	cities     string
	emails     string
	out        string
	workDir    string
	runs       int
	limit      int
	queryRuns  int
	warm       int
	throughput time.Duration
	quick      bool
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("quarry-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.quarry, "quarry", "bin/quarry", "quarry binary to benchmark")
	fs.StringVar(&o.cities, "cities", "../shared/datasets/cities.ndjson.gz", "cities NDJSON dataset (.gz allowed)")
	fs.StringVar(&o.emails, "emails", "../shared/datasets/emails.ndjson.gz", "emails NDJSON dataset (.gz allowed)")
	fs.StringVar(&o.out, "out", "bin/bench.json", "file receiving the raw figures as JSON (empty: none)")
	fs.StringVar(&o.workDir, "workdir", "", "folder for data folders (default: a temporary folder, removed at the end)")
	fs.IntVar(&o.runs, "runs", 3, "repetitions of the ceiling, ingest and start-up measurements (medians are reported)")
	fs.IntVar(&o.limit, "limit", 0, "use at most this many documents of each dataset (0: all)")
	fs.IntVar(&o.queryRuns, "query-runs", 50, "timed runs of each query")
	fs.IntVar(&o.warm, "warm", 5, "warm-up runs of each query")
	fs.DurationVar(&o.throughput, "throughput", 3*time.Second, "duration of each search throughput measurement")
	fs.BoolVar(&o.quick, "quick", false, "small and fast: 2,000 cities, 300 emails, 1 run, few query runs")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if o.quick {
		if o.limit == 0 {
			o.limit = 2000
		}
		o.runs, o.queryRuns, o.warm, o.throughput = 1, 5, 1, 500*time.Millisecond
	}
	if o.runs < 1 || o.queryRuns < 1 || o.warm < 0 {
		return o, fmt.Errorf("-runs and -query-runs must be at least 1, -warm at least 0")
	}
	return o, nil
}

// report is everything the benchmark measured (written as JSON).
type report struct {
	Commit     string           `json:"commit,omitempty"`
	Time       time.Time        `json:"time"`
	GOMAXPROCS int              `json:"gomaxprocs"`
	Quick      bool             `json:"quick"`
	Runs       int              `json:"runs"`
	Datasets   []datasetInfo    `json:"datasets"`
	Ceiling    ceilingReport    `json:"ceiling"`
	Ingest     ingestReport     `json:"ingest"`
	Queries    []queryResult    `json:"queries"`
	Throughput throughputResult `json:"throughput"`
	Footprint  footprint        `json:"footprint"`
	Targets    []target         `json:"targets"`
	Met        int              `json:"met"`
}

type datasetInfo struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Docs  int    `json:"docs"`
	Bytes int64  `json:"raw_bytes"`
}

type ceilingReport struct {
	Cities       []ceilingResult `json:"cities"`
	CitiesMedian float64         `json:"cities_median_docs_per_s"`
	// CitiesDisk is the size of the last ceiling index: what bluge alone
	// takes for the dataset as the ceiling writes it (_source stored,
	// bluge's own numeric terms, the segments of its batches).
	CitiesDisk int64 `json:"cities_disk_bytes"`
	// CitiesFloorDisk is the size of the floor index (see buildFloor): the
	// least bluge needs to answer the mapped fields' queries on cities,
	// with nothing stored and one merged segment.
	CitiesFloorDisk int64         `json:"cities_floor_disk_bytes"`
	Emails          ceilingResult `json:"emails"`
}

type ingestReport struct {
	Cities         []ingestResult `json:"cities"`
	Ratios         []float64      `json:"ratios_to_ceiling"`
	MedianDocsPerS float64        `json:"median_docs_per_s"`
	MedianRatio    float64        `json:"median_ratio"`
	MedianPeakRSS  int64          `json:"median_peak_rss_bytes"`
	MedianDisk     int64          `json:"median_disk_bytes"`
	DiskRatio      float64        `json:"disk_ratio_to_raw"`
	Emails         ingestResult   `json:"emails"`
}

type footprint struct {
	StartupEmptyMs       []float64 `json:"startup_empty_ms"`
	StartupEmptyMedian   float64   `json:"startup_empty_median_ms"`
	StartupEmptyCPUMs    float64   `json:"startup_empty_cpu_median_ms"`
	StartupLoadedMs      []float64 `json:"startup_loaded_ms"`
	StartupLoadedMedian  float64   `json:"startup_loaded_median_ms"`
	StartupLoadedCPUMs   float64   `json:"startup_loaded_cpu_median_ms"`
	IdleRSSFresh         int64     `json:"idle_rss_fresh_bytes"`
	IdleRSSAfterLoads    int64     `json:"idle_rss_after_loads_bytes"`
	IdleRSSLoadedRestart int64     `json:"idle_rss_loaded_restart_bytes"`
	DiskBothAfterStop    int64     `json:"disk_both_after_stop_bytes"`
}

// target is one line of the verdict table.
type target struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Limit float64 `json:"limit"`
	Unit  string  `json:"unit"`
	// AtLeast is true for "value ≥ limit" targets, false for "value ≤ limit".
	AtLeast bool `json:"at_least"`
	Met     bool `json:"met"`
}

// idleWait is how long a server is left alone before its idle RSS is read.
const idleWait = time.Second

func run(args []string, stdout io.Writer) error {
	o, err := parseOptions(args, os.Stderr)
	if err != nil {
		return err
	}
	if _, err := os.Stat(o.quarry); err != nil {
		return fmt.Errorf("quarry binary: %w (run make build first)", err)
	}
	work := o.workDir
	if work == "" {
		if work, err = os.MkdirTemp("", "quarry-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stdout, "# "+format+"\n", a...) }
	ctx := context.Background()

	cities, err := loadDataset("cities", o.cities, o.limit)
	if err != nil {
		return err
	}
	emails, err := loadDataset("emails", o.emails, emailsLimit(o))
	if err != nil {
		return err
	}
	rep := &report{Time: time.Now().UTC(), GOMAXPROCS: runtime.GOMAXPROCS(0), Quick: o.quick, Runs: o.runs, Commit: gitCommit()}
	for _, ds := range []*dataset{cities, emails} {
		rep.Datasets = append(rep.Datasets, datasetInfo{Name: ds.name, Path: ds.path, Docs: len(ds.docs), Bytes: ds.bytes})
		logf("dataset %s: %d documents, %.1f MB raw", ds.name, len(ds.docs), mb(ds.bytes))
	}

	// Footprint, empty: start-up time and idle RSS of fresh servers.
	var idleFresh, cpuEmpty []float64
	rep.Footprint.StartupEmptyMs, cpuEmpty, idleFresh, err = startupSeries(o, func(i int) string { return filepath.Join(work, fmt.Sprintf("empty-%d", i)) }, nil)
	if err != nil {
		return err
	}
	rep.Footprint.StartupEmptyMedian = median(rep.Footprint.StartupEmptyMs)
	rep.Footprint.StartupEmptyCPUMs = median(cpuEmpty)
	rep.Footprint.IdleRSSFresh = int64(median(idleFresh))
	logf("start-up empty %.0f ms (%.0f ms CPU), idle RSS fresh %.1f MB", rep.Footprint.StartupEmptyMedian, rep.Footprint.StartupEmptyCPUMs, mb(rep.Footprint.IdleRSSFresh))

	// Ceiling and ingest, alternated so each ratio compares one run.
	var citiesReader *bluge.Reader
	var ceilingWriters []*bluge.Writer
	defer func() {
		if citiesReader != nil {
			_ = citiesReader.Close()
		}
		for _, w := range ceilingWriters {
			_ = w.Close()
		}
	}()
	var live *server
	var ingestRates, peaks, disks []float64
	for i := 0; i < o.runs; i++ {
		w, c, err := buildCeiling(cities, filepath.Join(work, fmt.Sprintf("ceiling-cities-%d", i)))
		if err != nil {
			return err
		}
		rep.Ceiling.Cities = append(rep.Ceiling.Cities, c)
		rep.Ceiling.CitiesDisk = c.DiskBytes
		last := i == o.runs-1
		if last {
			ceilingWriters = append(ceilingWriters, w)
			if citiesReader, err = w.Reader(); err != nil {
				return err
			}
		} else if err := w.Close(); err != nil {
			return err
		}
		s, _, err := startServer(o.quarry, filepath.Join(work, fmt.Sprintf("data-%d", i)), nil)
		if err != nil {
			return err
		}
		in, err := ingest(ctx, s, "cities", cities)
		if err != nil {
			_ = s.stop()
			return err
		}
		rep.Ingest.Cities = append(rep.Ingest.Cities, in)
		rep.Ingest.Ratios = append(rep.Ingest.Ratios, in.DocsPerS/c.DocsPerS)
		ingestRates = append(ingestRates, in.DocsPerS)
		peaks = append(peaks, float64(in.PeakRSS))
		disks = append(disks, float64(in.DiskBytes))
		logf("run %d: ceiling %.0f docs/s (%.1f MB on disk), ingest %.0f docs/s (%.2f×), peak RSS %.0f MB, disk %.1f MB",
			i+1, c.DocsPerS, mb(c.DiskBytes), in.DocsPerS, in.DocsPerS/c.DocsPerS, mb(in.PeakRSS), mb(in.DiskBytes))
		if last {
			live = s
		} else if err := s.stop(); err != nil {
			return err
		}
	}
	defer func() {
		if live != nil {
			_ = live.stop()
		}
	}()
	cs := make([]float64, len(rep.Ceiling.Cities))
	for i, c := range rep.Ceiling.Cities {
		cs[i] = c.DocsPerS
	}
	rep.Ceiling.CitiesMedian = median(cs)
	rep.Ingest.MedianDocsPerS = median(ingestRates)
	rep.Ingest.MedianRatio = median(rep.Ingest.Ratios)
	rep.Ingest.MedianPeakRSS = int64(median(peaks))
	rep.Ingest.MedianDisk = int64(median(disks))
	rep.Ingest.DiskRatio = float64(rep.Ingest.MedianDisk) / float64(cities.bytes)

	floor, err := buildFloor(cities, filepath.Join(work, "floor-cities"))
	if err != nil {
		return err
	}
	rep.Ceiling.CitiesFloorDisk = floor
	logf("floor: bluge needs %.1f MB (%.2f× raw) for the cities' mapped fields, with nothing stored, in one segment", mb(floor), float64(floor)/float64(cities.bytes))

	// Emails: ceiling (for in-process queries) and a load into the live server.
	ew, ec, err := buildCeiling(emails, filepath.Join(work, "ceiling-emails"))
	if err != nil {
		return err
	}
	ceilingWriters = append(ceilingWriters, ew)
	rep.Ceiling.Emails = ec
	emailsReader, err := ew.Reader()
	if err != nil {
		return err
	}
	defer emailsReader.Close()
	if rep.Ingest.Emails, err = ingest(ctx, live, "emails", emails); err != nil {
		return err
	}
	logf("emails: ceiling %.0f docs/s, ingest %.0f docs/s", ec.DocsPerS, rep.Ingest.Emails.DocsPerS)

	// Queries, on a server done with the merges of its loads.
	waited, err := live.waitIdle(ctx, 30*time.Second)
	if err != nil {
		return err
	}
	logf("server idle after %.1f s", waited.Seconds())
	readers := map[string]*bluge.Reader{"cities": citiesReader, "emails": emailsReader}
	qs := querySet(monthBoundaries(emails))
	for _, q := range qs {
		r, err := runQuery(ctx, live, readers, q, o.warm, o.queryRuns)
		if err != nil {
			return err
		}
		rep.Queries = append(rep.Queries, r)
		logf("query %-16s p50 %7.2f ms (took %5.1f, in process %7.2f ms, %.2f×), p99 %7.2f ms", r.Name, r.ClientP50Ms, r.TookP50Ms, r.InProcP50Ms, r.Ratio, r.ClientP99Ms)
	}
	// Throughput: 1 client, then 8.
	q1, n1, err := throughput(ctx, live, qs, 1, o.throughput)
	if err != nil {
		return err
	}
	q8, n8, err := throughput(ctx, live, qs, 8, o.throughput)
	if err != nil {
		return err
	}
	rep.Throughput = throughputResult{Seconds: o.throughput.Seconds(), QPS1: q1, QPS8: q8, Scaling: q8 / q1, Requests: n1 + n8}
	logf("throughput: 1 client %.0f q/s, 8 clients %.0f q/s (%.2f×)", q1, q8, q8/q1)

	// Footprint, loaded: idle RSS after the loads, then clean restarts.
	time.Sleep(idleWait)
	rss, _, err := live.memory()
	if err != nil {
		return err
	}
	rep.Footprint.IdleRSSAfterLoads = rss
	err = live.stop()
	live = nil
	if err != nil {
		return err
	}
	loadedDir := filepath.Join(work, fmt.Sprintf("data-%d", o.runs-1))
	if rep.Footprint.DiskBothAfterStop, err = diskUsage(loadedDir); err != nil {
		return err
	}
	var idleLoaded, cpuLoaded []float64
	rep.Footprint.StartupLoadedMs, cpuLoaded, idleLoaded, err = startupSeries(o, func(int) string { return loadedDir }, func(s *server) error {
		var cnt struct {
			Count int `json:"count"`
		}
		if err := s.call(ctx, "GET", "/cities,emails/_count", "", nil, &cnt); err != nil {
			return err
		}
		if want := len(cities.docs) + len(emails.docs); cnt.Count != want {
			return fmt.Errorf("after restart _count is %d, want %d", cnt.Count, want)
		}
		return nil
	})
	if err != nil {
		return err
	}
	rep.Footprint.StartupLoadedMedian = median(rep.Footprint.StartupLoadedMs)
	rep.Footprint.StartupLoadedCPUMs = median(cpuLoaded)
	rep.Footprint.IdleRSSLoadedRestart = int64(median(idleLoaded))
	logf("start-up loaded %.0f ms (%.0f ms CPU), idle RSS after loads %.1f MB, after restart %.1f MB, disk after stop %.1f MB",
		rep.Footprint.StartupLoadedMedian, rep.Footprint.StartupLoadedCPUMs, mb(rep.Footprint.IdleRSSAfterLoads),
		mb(rep.Footprint.IdleRSSLoadedRestart), mb(rep.Footprint.DiskBothAfterStop))

	rep.Targets = targets(rep)
	for _, t := range rep.Targets {
		if t.Met {
			rep.Met++
		}
	}
	printTable(stdout, rep)
	if o.out != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(o.out, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// startup is one start-up measurement.
type startup struct {
	wallMs, cpuMs float64 // to a healthy _cluster/health
	idleRSS       float64 // bytes, idleWait after healthy
}

// startupSeries takes o.runs start-up samples on dirFor(run) and returns
// their wall-clock and CPU milliseconds and idle RSS bytes.
func startupSeries(o options, dirFor func(int) string, check func(*server) error) (wall, cpu, idle []float64, err error) {
	for i := 0; i < o.runs; i++ {
		st, err := startupSample(o.quarry, dirFor(i), check)
		if err != nil {
			return nil, nil, nil, err
		}
		wall, cpu, idle = append(wall, st.wallMs), append(cpu, st.cpuMs), append(idle, st.idleRSS)
	}
	return wall, cpu, idle, nil
}

// startupSample starts the server on dir, times it to healthy (wall clock
// and process CPU), runs check (nil: none), reads the idle RSS and stops
// the server cleanly.
func startupSample(bin, dir string, check func(*server) error) (startup, error) {
	s, took, err := startServer(bin, dir, nil)
	if err != nil {
		return startup{}, err
	}
	st := startup{wallMs: ms(took)}
	fail := func(err error) (startup, error) {
		_ = s.stop()
		return startup{}, err
	}
	cpu, err := s.cpuTime()
	if err != nil {
		return fail(err)
	}
	st.cpuMs = ms(cpu)
	if check != nil {
		if err := check(s); err != nil {
			return fail(err)
		}
	}
	time.Sleep(idleWait)
	rss, _, err := s.memory()
	if err != nil {
		return fail(err)
	}
	st.idleRSS = float64(rss)
	return st, s.stop()
}

// emailsLimit keeps the emails a fraction of the cities in quick mode.
func emailsLimit(o options) int {
	if o.quick && (o.limit == 0 || o.limit > 300) {
		return 300
	}
	return o.limit
}

// targets evaluates every target of the issue against the report.
func targets(r *report) []target {
	le := func(name string, v, limit float64, unit string) target {
		return target{Name: name, Value: v, Limit: limit, Unit: unit, Met: v <= limit}
	}
	ge := func(name string, v, limit float64, unit string) target {
		return target{Name: name, Value: v, Limit: limit, Unit: unit, AtLeast: true, Met: v >= limit}
	}
	out := []target{
		ge("ingest docs/s ÷ in-process ceiling", r.Ingest.MedianRatio, 1.0, "×"),
		le("peak RSS during cities load", mb(r.Ingest.MedianPeakRSS), 200, "MB"),
		le("idle RSS, fresh server", mb(r.Footprint.IdleRSSFresh), 40, "MB"),
		le("disk after cities load ÷ raw JSON", r.Ingest.DiskRatio, 1.5, "×"),
		le("start-up to healthy, empty", r.Footprint.StartupEmptyMedian, 100, "ms"),
		le("start-up to healthy, both datasets", r.Footprint.StartupLoadedMedian, 500, "ms"),
	}
	for _, q := range r.Queries {
		out = append(out, le("query "+q.Name+": HTTP p50 ÷ in-process p50", q.Ratio, 1.3, "×"))
		if q.MaxP50Ms > 0 {
			out = append(out, le("query "+q.Name+": HTTP p50", q.ClientP50Ms, q.MaxP50Ms, "ms"))
		}
	}
	out = append(out, ge("search q/s, 8 clients ÷ 1 client", r.Throughput.Scaling, 1.6, "×"))
	return out
}

// printTable writes the verdict table and the summary line.
func printTable(w io.Writer, r *report) {
	fmt.Fprintf(w, "\n%-48s %12s %12s  %s\n", "target", "value", "limit", "verdict")
	fmt.Fprintln(w, strings.Repeat("-", 84))
	for _, t := range r.Targets {
		op := "≤"
		if t.AtLeast {
			op = "≥"
		}
		verdict := "met"
		if !t.Met {
			verdict = "NOT MET"
		}
		fmt.Fprintf(w, "%-48s %10.2f %-2s %s %7.2f %-2s %s\n", t.Name, t.Value, t.Unit, op, t.Limit, t.Unit, verdict)
	}
	fmt.Fprintln(w, strings.Repeat("-", 84))
	fmt.Fprintf(w, "quarry-bench: %d/%d targets met (ingest %.0f docs/s = %.2f× ceiling %.0f docs/s, peak RSS %.0f MB, disk %.2f× raw (bluge alone %.2f×, bluge floor %.2f×), start-up %.0f/%.0f ms, idle %.0f MB, 8-client scaling %.2f×; commit %s, %d run(s)%s)\n",
		r.Met, len(r.Targets), r.Ingest.MedianDocsPerS, r.Ingest.MedianRatio, r.Ceiling.CitiesMedian, mb(r.Ingest.MedianPeakRSS),
		r.Ingest.DiskRatio, float64(r.Ceiling.CitiesDisk)/float64(max(1, r.Datasets[0].Bytes)), float64(r.Ceiling.CitiesFloorDisk)/float64(max(1, r.Datasets[0].Bytes)), r.Footprint.StartupEmptyMedian, r.Footprint.StartupLoadedMedian, mb(r.Footprint.IdleRSSFresh),
		r.Throughput.Scaling, orUnknown(r.Commit), r.Runs, map[bool]string{true: ", quick", false: ""}[r.Quick])
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// gitCommit returns the short hash of HEAD (with -dirty when the work tree
// has changes), or "" outside a git work tree.
func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += "-dirty"
	}
	return c
}
