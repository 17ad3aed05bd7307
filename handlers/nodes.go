package handlers

import (
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
	core "github.com/quarry-search/quarry/searchcore/cluster"
)

// nodeInfoMetrics are the metric names nodes info accepts, in output order.
var nodeInfoMetrics = []string{"settings", "os", "process", "jvm", "thread_pool", "transport", "http", "plugins", "ingest", "indices"}

func isNodeInfoMetric(m string) bool {
	for _, x := range nodeInfoMetrics {
		if x == m {
			return true
		}
	}
	return false
}

// processStart is when this process started (jvm.start_time_in_millis).
var processStart = time.Now()

// NodesInfo answers GET /_nodes (every node, every metric).
func (s *Server) NodesInfo(c echo.Context, p cluster.NodesInfoParams) error {
	return s.nodesInfo(c, nil, nodeInfoMetrics, p)
}

// NodesInfoNodeIdOrMetric answers GET /_nodes/{node_id_or_metric}: when every
// comma-separated entry is a metric name it selects metrics, otherwise nodes.
func (s *Server) NodesInfoNodeIdOrMetric(c echo.Context, v cluster.NodeIDOrMetricPath, params cluster.NodesInfoNodeIdOrMetricParams) error {
	p := cluster.NodesInfoParams(params)
	parts := splitList(string(v))
	allMetrics := len(parts) > 0
	for _, x := range parts {
		if !isNodeInfoMetric(x) {
			allMetrics = false
		}
	}
	if allMetrics {
		return s.nodesInfo(c, nil, parts, p)
	}
	return s.nodesInfo(c, parts, nodeInfoMetrics, p)
}

// NodesInfoNodeIdMetric answers GET /_nodes/{node_id}/{metric}.
func (s *Server) NodesInfoNodeIdMetric(c echo.Context, nodeID cluster.NodeIDPath, metric cluster.NodeMetricPath, params cluster.NodesInfoNodeIdMetricParams) error {
	p := cluster.NodesInfoParams(params)
	metrics, err := parseNodeInfoMetrics(c, string(metric))
	if err != nil {
		return err
	}
	return s.nodesInfo(c, splitList(string(nodeID)), metrics, p)
}

// NodesInfoNodeIdInfoMetric answers GET /_nodes/{node_id}/info/{metric}.
func (s *Server) NodesInfoNodeIdInfoMetric(c echo.Context, nodeID cluster.NodeIDPath, metric cluster.NodeMetricPath, p cluster.NodesInfoNodeIdInfoMetricParams) error {
	return s.NodesInfoNodeIdMetric(c, nodeID, metric, cluster.NodesInfoNodeIdMetricParams(p))
}

// parseNodeInfoMetrics validates a metric list (_all alone means all).
func parseNodeInfoMetrics(c echo.Context, v string) ([]string, error) {
	parts := splitList(v)
	var bad []string
	all := false
	for _, x := range parts {
		switch {
		case x == "_all":
			all = true
		case !isNodeInfoMetric(x):
			bad = append(bad, x)
		}
	}
	if len(bad) > 0 {
		return nil, searchcore.IllegalArgument("request [%s] contains unrecognized metric%s: [%s]", c.Request().URL.Path, plural(len(bad)), strings.Join(bad, ", "))
	}
	if all {
		if len(parts) > 1 {
			return nil, searchcore.IllegalArgument("request [%s] contains _all and individual metrics [%s]", c.Request().URL.Path, v)
		}
		return nodeInfoMetrics, nil
	}
	return parts, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// splitList splits a comma-separated list, dropping empty entries.
func splitList(v string) []string {
	var out []string
	for _, x := range strings.Split(v, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func (s *Server) nodesInfo(c echo.Context, specs, metrics []string, p cluster.NodesInfoParams) error {
	want := map[string]bool{}
	for _, m := range metrics {
		want[m] = true
	}
	nodes := core.ResolveNodes(s.core.Nodes(), s.core.LocalNode().ID, specs)
	human := boolParam(p.Human, false)
	flat := boolParam(p.FlatSettings, false)
	out := orderedJSON{}
	for _, n := range nodes {
		out = append(out, kvPair{n.ID, s.nodeInfoJSON(n, want, human, flat)})
	}
	return writeJSON(c, http.StatusOK, orderedJSON{
		{"_nodes", orderedJSON{{"total", len(nodes)}, {"successful", len(nodes)}, {"failed", 0}}},
		{"cluster_name", s.core.ClusterName()},
		{"nodes", out},
	})
}

// indexingBuffer is the memory Quarry lets recently indexed documents use
// before a flush: like Elasticsearch's default, 10% of the memory the
// process may use (its Go memory limit, or else the machine's memory).
func indexingBuffer() int64 {
	return heapMax() / 10
}

// heapMax is the Go memory limit when one is set, else the machine's memory.
func heapMax() int64 {
	if lim := debug.SetMemoryLimit(-1); lim > 0 && lim < 1<<62 {
		return lim
	}
	return core.TotalMemory()
}

func (s *Server) nodeInfoJSON(n core.Node, want map[string]bool, human, flat bool) orderedJSON {
	attrs := orderedJSON{}
	keys := make([]string, 0, len(n.Attributes))
	for k := range n.Attributes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		attrs = append(attrs, kvPair{k, n.Attributes[k]})
	}
	o := orderedJSON{
		{"name", n.Name},
		{"transport_address", n.TransportAddress},
		{"host", n.Host},
		{"ip", n.IP},
		{"version", Version},
		{"build_flavor", "default"},
		{"build_type", "tar"},
		{"build_hash", buildHash},
	}
	if want["indices"] {
		buf := indexingBuffer()
		if human {
			o = append(o, kvPair{"total_indexing_buffer", humanBytes(buf)})
		}
		o = append(o, kvPair{"total_indexing_buffer_in_bytes", buf})
	}
	o = append(o, kvPair{"roles", append([]string{}, n.Roles...)}, kvPair{"attributes", attrs})
	if want["settings"] {
		flatSettings := map[string]any{}
		for k, v := range n.Settings {
			if v != "" {
				flatSettings[k] = v
			}
		}
		o = append(o, kvPair{"settings", searchcore.RenderSettings(flatSettings, flat)})
	}
	if want["os"] {
		info := core.ReadOSInfo(n.Processors)
		o = append(o, kvPair{"os", orderedJSON{
			{"refresh_interval_in_millis", 1000},
			{"name", info.Name},
			{"pretty_name", info.PrettyName},
			{"arch", info.Arch},
			{"version", info.Version},
			{"available_processors", info.AvailableProcessors},
			{"allocated_processors", info.AllocatedProcessors},
		}})
	}
	if want["process"] {
		o = append(o, kvPair{"process", orderedJSON{
			{"refresh_interval_in_millis", 1000},
			{"id", os.Getpid()},
			{"mlockall", core.MLockAll()},
		}})
	}
	if want["jvm"] {
		o = append(o, kvPair{"jvm", runtimeInfoJSON()})
	}
	if want["thread_pool"] {
		o = append(o, kvPair{"thread_pool", threadPoolInfoJSON()})
	}
	if want["transport"] {
		// No transport layer yet (single node): nothing is bound.
		o = append(o, kvPair{"transport", orderedJSON{{"bound_address", []string{}}, {"profiles", orderedJSON{}}}})
	}
	if want["http"] {
		h := orderedJSON{{"bound_address", []string{n.HTTPAddress}}, {"publish_address", n.HTTPAddress}}
		if human {
			h = append(h, kvPair{"max_content_length", humanBytes(s.opts.MaxContentLength)})
		}
		h = append(h, kvPair{"max_content_length_in_bytes", s.opts.MaxContentLength})
		o = append(o, kvPair{"http", h})
	}
	if want["plugins"] {
		o = append(o, kvPair{"plugins", pluginsJSON(installedPlugins)}, kvPair{"modules", pluginsJSON(builtinModules)})
	}
	if want["ingest"] {
		procs := make([]orderedJSON, 0, len(ingestProcessors))
		for _, t := range ingestProcessors {
			procs = append(procs, orderedJSON{{"type", t}})
		}
		o = append(o, kvPair{"ingest", orderedJSON{{"processors", procs}}})
	}
	return o
}

// buildHash is the short commit hash of this build (from the Go build
// information when it carries one).
var buildHash = func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 7 {
				return s.Value[:7]
			}
		}
	}
	return "quarry"
}()

// plugin describes an installed plugin or built-in module.
type plugin struct {
	name, description string
}

// installedPlugins: Quarry has no plugin system.
var installedPlugins []plugin

// builtinModules are the Elasticsearch modules whose features Quarry builds in.
var builtinModules = []plugin{
	{"analysis-common", "Adds \"built in\" analyzers to Elasticsearch."},
}

// ingestProcessors are the ingest processor types this node runs: none, as
// Quarry has no ingest pipelines (yet), so the list is empty.
var ingestProcessors []string

func pluginsJSON(list []plugin) []orderedJSON {
	out := make([]orderedJSON, 0, len(list))
	for _, p := range list {
		out = append(out, orderedJSON{
			{"name", p.name},
			{"version", Version},
			{"elasticsearch_version", Version},
			{"java_version", "1.8"},
			{"description", p.description},
			{"classname", ""},
			{"extended_plugins", []string{}},
			{"has_native_controller", false},
			{"licensed", false},
			{"type", "isolated"},
		})
	}
	return out
}

// runtimeInfoJSON describes the Go runtime in the JVM-shaped fields clients
// read (the heap is the Go heap, bounded by the memory limit).
func runtimeInfoJSON() orderedJSON {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return orderedJSON{
		{"pid", os.Getpid()},
		{"version", strings.TrimPrefix(runtime.Version(), "go")},
		{"vm_name", "Go"},
		{"vm_version", runtime.Version()},
		{"vm_vendor", "The Go Authors"},
		{"bundled_jdk", false},
		{"using_bundled_jdk", nil},
		{"start_time_in_millis", processStart.UnixMilli()},
		{"mem", orderedJSON{
			{"heap_init_in_bytes", 0},
			{"heap_max_in_bytes", heapMax()},
			{"non_heap_init_in_bytes", 0},
			{"non_heap_max_in_bytes", 0},
			{"direct_max_in_bytes", 0},
		}},
		{"gc_collectors", []string{"go"}},
		{"memory_pools", []string{"heap", "stack"}},
		{"using_compressed_ordinary_object_pointers", "false"},
		{"input_arguments", append([]string{}, os.Args[1:]...)},
	}
}

// humanBytes renders a byte count like Elasticsearch (1.5gb, 512mb, 10kb, 7b).
func humanBytes(n int64) string {
	units := []string{"b", "kb", "mb", "gb", "tb", "pb"}
	f := float64(n)
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%db", n)
	}
	str := fmt.Sprintf("%.1f", f)
	str = strings.TrimSuffix(str, ".0")
	return str + units[i]
}

// ---------------------------------------------------------------- nodes stats

// nodeStatsMetrics are the statistics groups nodes stats reports.
var nodeStatsMetrics = []string{"indices", "os", "process", "jvm", "thread_pool", "fs", "http", "breaker"}

// indexStatsMetrics are the index statistics Quarry measures; esIndexMetrics
// are the others Elasticsearch knows (accepted, not reported).
var (
	indexStatsMetrics = []string{"docs", "store", "indexing", "get", "search", "refresh"}
	esIndexMetrics    = []string{"merge", "flush", "warmer", "query_cache", "fielddata", "completion", "segments", "translog", "suggest", "request_cache", "recovery", "bulk", "shard_stats"}
)

func contains(list []string, x string) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}

// NodesStats answers GET /_nodes/stats.
func (s *Server) NodesStats(c echo.Context, p cluster.NodesStatsParams) error {
	return s.nodesStats(c, "", "", "", p)
}

// NodesStatsMetric answers GET /_nodes/stats/{metric}.
func (s *Server) NodesStatsMetric(c echo.Context, metric cluster.NodeStatsMetricPath, p cluster.NodesStatsMetricParams) error {
	return s.nodesStats(c, "", string(metric), "", cluster.NodesStatsParams(p))
}

// NodesStatsMetricIndexMetric answers GET /_nodes/stats/{metric}/{index_metric}.
func (s *Server) NodesStatsMetricIndexMetric(c echo.Context, metric cluster.NodeStatsMetricPath, indexMetric cluster.NodeStatsIndexMetricPath, p cluster.NodesStatsMetricIndexMetricParams) error {
	return s.nodesStats(c, "", string(metric), string(indexMetric), cluster.NodesStatsParams(p))
}

// NodesStatsNodeId answers GET /_nodes/{node_id}/stats.
func (s *Server) NodesStatsNodeId(c echo.Context, nodeID cluster.NodeIDPath, p cluster.NodesStatsNodeIdParams) error {
	return s.nodesStats(c, string(nodeID), "", "", cluster.NodesStatsParams(p))
}

// NodesStatsNodeIdMetric answers GET /_nodes/{node_id}/stats/{metric}.
func (s *Server) NodesStatsNodeIdMetric(c echo.Context, nodeID cluster.NodeIDPath, metric cluster.NodeStatsMetricPath, p cluster.NodesStatsNodeIdMetricParams) error {
	return s.nodesStats(c, string(nodeID), string(metric), "", cluster.NodesStatsParams(p))
}

// NodesStatsNodeIdMetricIndexMetric answers GET /_nodes/{node_id}/stats/{metric}/{index_metric}.
func (s *Server) NodesStatsNodeIdMetricIndexMetric(c echo.Context, nodeID cluster.NodeIDPath, metric cluster.NodeStatsMetricPath, indexMetric cluster.NodeStatsIndexMetricPath, p cluster.NodesStatsNodeIdMetricIndexMetricParams) error {
	return s.nodesStats(c, string(nodeID), string(metric), string(indexMetric), cluster.NodesStatsParams(p))
}

// parseStatsList validates a metric list against the known names; "" and
// _all select everything.
func parseStatsList(c echo.Context, v, what string, known, accepted []string) (map[string]bool, error) {
	want := map[string]bool{}
	parts := splitList(v)
	if len(parts) == 0 || (len(parts) == 1 && parts[0] == "_all") {
		for _, m := range known {
			want[m] = true
		}
		return want, nil
	}
	var bad []string
	for _, x := range parts {
		switch {
		case x == "_all":
			return nil, searchcore.IllegalArgument("request [%s] contains _all and individual %ss [%s]", c.Request().URL.Path, what, v)
		case contains(known, x):
			want[x] = true
		case contains(accepted, x):
		default:
			bad = append(bad, x)
		}
	}
	if len(bad) > 0 {
		return nil, searchcore.IllegalArgument("request [%s] contains unrecognized %s%s: [%s]", c.Request().URL.Path, what, plural(len(bad)), strings.Join(bad, ", "))
	}
	return want, nil
}

func (s *Server) nodesStats(c echo.Context, nodeIDs, metric, indexMetric string, p cluster.NodesStatsParams) error {
	metrics, err := parseStatsList(c, metric, "metric", nodeStatsMetrics, nil)
	if err != nil {
		return err
	}
	indexMetrics, err := parseStatsList(c, indexMetric, "index metric", indexStatsMetrics, esIndexMetrics)
	if err != nil {
		return err
	}
	if indexMetric != "" && !metrics["indices"] {
		return searchcore.IllegalArgument("request [%s] contains index metrics [%s] but indices stats not requested", c.Request().URL.Path, indexMetric)
	}
	level := "node"
	if p.Level != nil {
		level = string(*p.Level)
	}
	nodes := core.ResolveNodes(s.core.Nodes(), s.core.LocalNode().ID, splitList(nodeIDs))
	out := orderedJSON{}
	for _, n := range nodes {
		out = append(out, kvPair{n.ID, s.nodeStatsJSON(n, metrics, indexMetrics, level, boolParam(p.Human, false))})
	}
	return writeJSON(c, http.StatusOK, orderedJSON{
		{"_nodes", orderedJSON{{"total", len(nodes)}, {"successful", len(nodes)}, {"failed", 0}}},
		{"cluster_name", s.core.ClusterName()},
		{"nodes", out},
	})
}

func (s *Server) nodeStatsJSON(n core.Node, metrics, indexMetrics map[string]bool, level string, human bool) orderedJSON {
	now := time.Now().UnixMilli()
	o := orderedJSON{
		{"timestamp", now},
		{"name", n.Name},
		{"transport_address", n.TransportAddress},
		{"host", n.Host},
		{"ip", n.IP},
		{"roles", append([]string{}, n.Roles...)},
	}
	if len(n.Attributes) > 0 {
		o = append(o, kvPair{"attributes", n.Attributes})
	}
	if metrics["indices"] {
		o = append(o, kvPair{"indices", s.indicesStatsJSON(indexMetrics, level)})
	}
	if metrics["os"] {
		mem := readMemInfo()
		load := readLoadAvg()
		osStats := orderedJSON{{"timestamp", now}}
		cpu := orderedJSON{{"percent", cpuPercent()}}
		if load[0] != nil {
			la := orderedJSON{}
			for i, k := range []string{"1m", "5m", "15m"} {
				f, _ := strconv.ParseFloat(load[i].(string), 64)
				la = append(la, kvPair{k, f})
			}
			cpu = append(cpu, kvPair{"load_average", la})
		}
		osStats = append(osStats, kvPair{"cpu", cpu})
		if mem.total > 0 {
			used := mem.total - mem.available
			osStats = append(osStats, kvPair{"mem", orderedJSON{
				{"total_in_bytes", mem.total},
				{"free_in_bytes", mem.available},
				{"used_in_bytes", used},
				{"free_percent", int64(math.Round(float64(mem.available) * 100 / float64(mem.total)))},
				{"used_percent", int64(math.Round(float64(used) * 100 / float64(mem.total)))},
			}})
		}
		o = append(o, kvPair{"os", osStats})
	}
	if metrics["process"] {
		o = append(o, kvPair{"process", processStatsJSON(now)})
	}
	if metrics["jvm"] {
		o = append(o, kvPair{"jvm", runtimeStatsJSON(now)})
	}
	if metrics["thread_pool"] {
		o = append(o, kvPair{"thread_pool", s.stats.threadPoolJSON()})
	}
	if metrics["fs"] {
		o = append(o, kvPair{"fs", fsStatsJSON(now, s.core.DataPath())})
	}
	if metrics["http"] {
		o = append(o, kvPair{"http", s.stats.httpJSON()})
	}
	if metrics["breaker"] {
		o = append(o, kvPair{"breakers", s.stats.breakersJSON(human)})
	}
	return o
}

// indexSums are the measured index statistics of a set of shards.
type indexSums struct {
	docs, deleted, store, indexTotal, deleteTotal, refreshes, gets int64
}

func (a *indexSums) add(st searchcore.ShardStats) {
	a.merge(indexSums{docs: st.Docs, deleted: st.Deleted, store: st.StoreBytes, indexTotal: st.IndexTotal, deleteTotal: st.DeleteTotal,
		refreshes: st.Refreshes, gets: st.GetTotal})
}

// merge adds the sums of b.
func (a *indexSums) merge(b indexSums) {
	a.docs += b.docs
	a.deleted += b.deleted
	a.store += b.store
	a.indexTotal += b.indexTotal
	a.deleteTotal += b.deleteTotal
	a.refreshes += b.refreshes
	a.gets += b.gets
}

func (a indexSums) json(want map[string]bool, search *searchcore.SearchContextStats) orderedJSON {
	o := orderedJSON{}
	if want["docs"] {
		o = append(o, kvPair{"docs", orderedJSON{{"count", a.docs}, {"deleted", a.deleted}}})
	}
	if want["store"] {
		o = append(o, kvPair{"store", orderedJSON{{"size_in_bytes", a.store}}})
	}
	if want["indexing"] {
		o = append(o, kvPair{"indexing", orderedJSON{{"index_total", a.indexTotal}, {"delete_total", a.deleteTotal}}})
	}
	if want["get"] {
		o = append(o, kvPair{"get", orderedJSON{{"total", a.gets}}})
	}
	if want["search"] && search != nil {
		o = append(o, kvPair{"search", orderedJSON{
			{"open_contexts", search.OpenContexts},
			{"scroll_total", search.ScrollTotal},
			{"scroll_time_in_millis", search.ScrollTimeInMillis},
			{"scroll_current", search.ScrollCurrent},
			{"point_in_time_total", search.PointInTimeTotal},
			{"point_in_time_current", search.PointInTimeCurrent},
		}})
	}
	if want["refresh"] {
		o = append(o, kvPair{"refresh", orderedJSON{{"total", a.refreshes}}})
	}
	return o
}

func (s *Server) indicesStatsJSON(want map[string]bool, level string) orderedJSON {
	stats := s.core.ShardStats(nil)
	search := s.core.SearchContextStats()
	var total indexSums
	for _, st := range stats {
		total.add(st)
	}
	o := total.json(want, &search)
	switch level {
	case "indices":
		per := orderedJSON{}
		byIndex := map[string]*indexSums{}
		var names []string
		for _, st := range stats {
			if byIndex[st.Index] == nil {
				byIndex[st.Index] = &indexSums{}
				names = append(names, st.Index)
			}
			byIndex[st.Index].add(st)
		}
		for _, name := range names {
			per = append(per, kvPair{name, byIndex[name].json(want, nil)})
		}
		o = append(o, kvPair{"indices", per})
	case "shards":
		per := orderedJSON{}
		var cur string
		var list []orderedJSON
		flush := func() {
			if cur != "" {
				per = append(per, kvPair{cur, list})
			}
		}
		for _, st := range stats {
			if st.Index != cur {
				flush()
				cur, list = st.Index, nil
			}
			var one indexSums
			one.add(st)
			list = append(list, orderedJSON{{strconv.Itoa(st.Shard), one.json(want, nil)}})
		}
		flush()
		o = append(o, kvPair{"shards", per})
	}
	return o
}

// processStatsJSON measures this process (/proc/self).
func processStatsJSON(now int64) orderedJSON {
	o := orderedJSON{{"timestamp", now}}
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		o = append(o, kvPair{"open_file_descriptors", len(fds)})
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		o = append(o, kvPair{"max_file_descriptors", lim.Cur})
	}
	if b, err := os.ReadFile("/proc/self/stat"); err == nil {
		// Fields after the command name: utime and stime are 14 and 15.
		if i := strings.LastIndexByte(string(b), ')'); i > 0 {
			f := strings.Fields(string(b[i+1:]))
			if len(f) > 13 {
				ut, _ := strconv.ParseInt(f[11], 10, 64)
				st, _ := strconv.ParseInt(f[12], 10, 64)
				// Clock ticks are 100 per second on Linux.
				o = append(o, kvPair{"cpu", orderedJSON{{"total_in_millis", (ut + st) * 10}}})
			}
		}
	}
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			pages, _ := strconv.ParseInt(f[0], 10, 64)
			o = append(o, kvPair{"mem", orderedJSON{{"total_virtual_in_bytes", pages * int64(os.Getpagesize())}}})
		}
	}
	return o
}

// runtimeStatsJSON measures the Go runtime in the JVM-shaped fields.
func runtimeStatsJSON(now int64) orderedJSON {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	hmax := heapMax()
	pct := int64(0)
	if hmax > 0 {
		pct = int64(math.Round(float64(ms.HeapAlloc) * 100 / float64(hmax)))
	}
	return orderedJSON{
		{"timestamp", now},
		{"uptime_in_millis", time.Since(processStart).Milliseconds()},
		{"mem", orderedJSON{
			{"heap_used_in_bytes", ms.HeapAlloc},
			{"heap_used_percent", pct},
			{"heap_committed_in_bytes", ms.HeapSys - ms.HeapReleased},
			{"heap_max_in_bytes", hmax},
			{"non_heap_used_in_bytes", ms.StackInuse + ms.MSpanInuse + ms.MCacheInuse + ms.GCSys + ms.OtherSys},
			{"non_heap_committed_in_bytes", ms.StackSys + ms.MSpanSys + ms.MCacheSys + ms.GCSys + ms.OtherSys},
		}},
		{"threads", orderedJSON{{"count", runtime.NumGoroutine()}}},
		{"gc", orderedJSON{{"collectors", orderedJSON{{"go", orderedJSON{
			{"collection_count", ms.NumGC},
			{"collection_time_in_millis", int64(ms.PauseTotalNs / 1e6)},
		}}}}}},
	}
}

// fsStatsJSON measures the file system holding the data folder.
func fsStatsJSON(now int64, dataPath string) orderedJSON {
	o := orderedJSON{{"timestamp", now}}
	var st syscall.Statfs_t
	abs, _ := filepath.Abs(dataPath)
	if syscall.Statfs(abs, &st) != nil {
		return o
	}
	bs := int64(st.Bsize)
	total, free, avail := int64(st.Blocks)*bs, int64(st.Bfree)*bs, int64(st.Bavail)*bs
	o = append(o,
		kvPair{"total", orderedJSON{{"total_in_bytes", total}, {"free_in_bytes", free}, {"available_in_bytes", avail}}},
		kvPair{"data", []orderedJSON{{{"path", abs}, {"total_in_bytes", total}, {"free_in_bytes", free}, {"available_in_bytes", avail}}}},
	)
	return o
}
