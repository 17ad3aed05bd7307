package handlers

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"os"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
)

// catKind says how a cat cell is rendered.
type catKind int

const (
	catText   catKind = iota
	catNumber         // right-aligned
	catBytes          // byte size (bytes param), right-aligned
	catTime           // duration (time param), right-aligned
)

// catColumn is one column of a cat table.
type catColumn struct {
	name    string
	aliases []string
	desc    string
	def     bool // shown without h
	kind    catKind
}

// catTable is a cat API's columns and rows; a cell is nil (null), a string,
// an int64 (number or bytes) or a time.Duration.
type catTable struct {
	cols []catColumn
	rows [][]any
}

// catParams are the parameters every cat API shares.
type catParams struct {
	format string
	h      []string
	help   bool
	s      []string
	v      bool
	bytes  string
	time   string
}

func newCatParams(format *string, h *[]string, help *cluster.EsBoolean, s *[]string, v *cluster.EsBoolean, bytes, tm *string) catParams {
	p := catParams{format: str(format), help: boolParam(help, false), v: boolParam(v, false), bytes: str(bytes), time: str(tm)}
	if h != nil {
		p.h = splitList(strings.Join(*h, ","))
	}
	if s != nil {
		p.s = splitList(strings.Join(*s, ","))
	}
	return p
}

// column finds a column by name or alias.
func (t *catTable) column(name string) int {
	for i, c := range t.cols {
		if c.name == name {
			return i
		}
		for _, a := range c.aliases {
			if a == name {
				return i
			}
		}
	}
	return -1
}

// writeCat renders a cat table in the requested format (one formatter for
// every cat API).
func writeCat(c echo.Context, t *catTable, p catParams) error {
	format := strings.ToLower(p.format)
	if format == "" {
		accept := c.Request().Header.Get(echo.HeaderAccept)
		switch {
		case strings.Contains(accept, "json"):
			format = "json"
		case strings.Contains(accept, "yaml"):
			format = "yaml"
		default:
			format = "text"
		}
	}
	if format != "text" && format != "txt" && format != "json" && format != "yaml" {
		return searchcore.IllegalArgument("Unsupported format [%s]", p.format)
	}
	if p.help {
		return writeCatHelp(c, t)
	}
	// Columns to display: h entries (names, aliases, wildcards) or defaults.
	type shown struct {
		col    int
		header string
	}
	var disp []shown
	if len(p.h) > 0 {
		for _, h := range p.h {
			if strings.Contains(h, "*") {
				for i, col := range t.cols {
					if ok, _ := path.Match(h, col.name); ok {
						disp = append(disp, shown{i, col.name})
					}
				}
				continue
			}
			if i := t.column(h); i >= 0 {
				disp = append(disp, shown{i, h})
			}
		}
	} else {
		for i, col := range t.cols {
			if col.def {
				disp = append(disp, shown{i, col.name})
			}
		}
	}
	// Sort.
	if len(p.s) > 0 {
		type key struct {
			col  int
			desc bool
		}
		var keys []key
		for _, s := range p.s {
			name, dir, _ := strings.Cut(s, ":")
			i := t.column(name)
			if i < 0 {
				return searchcore.IllegalArgument("Unable to sort by unknown sort key `%s`", name)
			}
			keys = append(keys, key{i, strings.EqualFold(dir, "desc")})
		}
		sort.SliceStable(t.rows, func(a, b int) bool {
			for _, k := range keys {
				c := compareCells(t.rows[a][k.col], t.rows[b][k.col])
				if c == 0 {
					continue
				}
				if k.desc {
					return c > 0
				}
				return c < 0
			}
			return false
		})
	}
	cells := make([][]*string, len(t.rows))
	for r, row := range t.rows {
		cells[r] = make([]*string, len(disp))
		for i, d := range disp {
			cells[r][i] = renderCell(row[d.col], t.cols[d.col].kind, p)
		}
	}
	switch format {
	case "json", "yaml":
		rows := make([]orderedJSON, len(cells))
		for r := range cells {
			o := make(orderedJSON, len(disp))
			for i, d := range disp {
				if cells[r][i] == nil {
					o[i] = kvPair{d.header, nil}
				} else {
					o[i] = kvPair{d.header, *cells[r][i]}
				}
			}
			rows[r] = o
		}
		if format == "json" {
			return writeJSON(c, http.StatusOK, rows)
		}
		return c.Blob(http.StatusOK, "application/yaml", catYAML(rows))
	}
	// Text: aligned columns, numbers right-aligned.
	width := make([]int, len(disp))
	if p.v {
		for i, d := range disp {
			width[i] = len(d.header)
		}
	}
	for r := range cells {
		for i := range disp {
			if cells[r][i] != nil && len(*cells[r][i]) > width[i] {
				width[i] = len(*cells[r][i])
			}
		}
	}
	var buf bytes.Buffer
	line := func(vals []string, header bool) {
		for i, v := range vals {
			right := !header && t.cols[disp[i].col].kind != catText
			pad := strings.Repeat(" ", width[i]-len(v))
			if right {
				buf.WriteString(pad + v)
			} else {
				buf.WriteString(v + pad)
			}
			if i < len(vals)-1 {
				buf.WriteByte(' ')
			}
		}
		buf.WriteByte('\n')
	}
	if p.v {
		hs := make([]string, len(disp))
		for i, d := range disp {
			hs[i] = d.header
		}
		line(hs, true)
	}
	for r := range cells {
		vals := make([]string, len(disp))
		for i := range disp {
			if cells[r][i] != nil {
				vals[i] = *cells[r][i]
			}
		}
		line(vals, false)
	}
	return c.Blob(http.StatusOK, "text/plain; charset=UTF-8", buf.Bytes())
}

// writeCatHelp lists the columns: name | aliases | description.
func writeCatHelp(c echo.Context, t *catTable) error {
	w1, w2 := 0, 0
	for _, col := range t.cols {
		w1 = max(w1, len(col.name))
		w2 = max(w2, len(strings.Join(col.aliases, ",")))
	}
	var buf bytes.Buffer
	for _, col := range t.cols {
		fmt.Fprintf(&buf, "%-*s | %-*s | %s\n", w1, col.name, w2, strings.Join(col.aliases, ","), col.desc)
	}
	return c.Blob(http.StatusOK, "text/plain; charset=UTF-8", buf.Bytes())
}

// catYAML renders rows as a YAML sequence of mappings.
func catYAML(rows []orderedJSON) []byte {
	var buf bytes.Buffer
	buf.WriteString("---\n")
	if len(rows) == 0 {
		buf.WriteString("[]\n")
	}
	for _, row := range rows {
		for i, kv := range row {
			if i == 0 {
				buf.WriteString("- ")
			} else {
				buf.WriteString("  ")
			}
			buf.WriteString(kv.K + ": ")
			if kv.V == nil {
				buf.WriteString("null\n")
			} else {
				buf.WriteString(strconv.Quote(kv.V.(string)) + "\n")
			}
		}
	}
	return buf.Bytes()
}

func compareCells(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	switch x := a.(type) {
	case int64:
		y, _ := b.(int64)
		return cmpInt(x, y)
	case time.Duration:
		y, _ := b.(time.Duration)
		return cmpInt(int64(x), int64(y))
	case float64:
		y, _ := b.(float64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
}

func cmpInt(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

var byteUnits = map[string]int64{"b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "t": 1 << 40, "tb": 1 << 40, "p": 1 << 50, "pb": 1 << 50}

var timeUnits = map[string]time.Duration{"d": 24 * time.Hour, "h": time.Hour, "m": time.Minute, "s": time.Second, "ms": time.Millisecond, "micros": time.Microsecond, "nanos": time.Nanosecond}

func renderCell(v any, kind catKind, p catParams) *string {
	var s string
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		s = x
	case float64:
		s = strconv.FormatFloat(x, 'f', 1, 64)
	case int64:
		switch {
		case kind == catBytes && p.bytes != "":
			s = strconv.FormatInt(x/byteUnits[p.bytes], 10)
		case kind == catBytes:
			s = humanBytes(x)
		default:
			s = strconv.FormatInt(x, 10)
		}
	case int:
		s = strconv.Itoa(x)
	case time.Duration:
		if p.time != "" {
			s = strconv.FormatInt(int64(x/timeUnits[p.time]), 10)
		} else {
			s = humanDuration(x)
		}
	default:
		s = fmt.Sprint(x)
	}
	return &s
}

// humanDuration renders a duration like Elasticsearch's TimeValue (1.5s, 3m, 2.1h).
func humanDuration(d time.Duration) string {
	units := []struct {
		d   time.Duration
		suf string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}, {time.Microsecond, "micros"}}
	for _, u := range units {
		if d >= u.d {
			f := float64(d) / float64(u.d)
			s := strconv.FormatFloat(math.Floor(f*10)/10, 'f', 1, 64)
			return strings.TrimSuffix(s, ".0") + u.suf
		}
	}
	return fmt.Sprintf("%dnanos", int64(d))
}

// ---------------------------------------------------------------- _cat

// catEndpoints is the _cat help listing.
var catEndpoints = []string{
	"/_cat/aliases", "/_cat/aliases/{alias}", "/_cat/count", "/_cat/count/{index}", "/_cat/health",
	"/_cat/indices", "/_cat/indices/{index}", "/_cat/master", "/_cat/nodes", "/_cat/plugins",
	"/_cat/shards", "/_cat/shards/{index}", "/_cat/templates", "/_cat/templates/{name}",
}

// CatHelp answers GET /_cat with the list of cat APIs.
func (s *Server) CatHelp(c echo.Context, _ cluster.CatHelpParams) error {
	return c.Blob(http.StatusOK, "text/plain; charset=UTF-8", []byte("=^.^=\n"+strings.Join(catEndpoints, "\n")+"\n"))
}

// ---------------------------------------------------------------- health

var catHealthCols = []catColumn{
	{"epoch", []string{"t", "time"}, "seconds since 1970-01-01 00:00:00", true, catNumber},
	{"timestamp", []string{"ts", "hms", "hhmmss"}, "time in HH:MM:SS", true, catText},
	{"cluster", []string{"cl"}, "cluster name", true, catText},
	{"status", []string{"st"}, "health status", true, catText},
	{"node.total", []string{"nt", "nodeTotal"}, "total number of nodes", true, catNumber},
	{"node.data", []string{"nd", "nodeData"}, "number of nodes that can store data", true, catNumber},
	{"shards", []string{"t", "sh", "shards.total", "shardsTotal"}, "total number of shards", true, catNumber},
	{"pri", []string{"p", "shards.primary", "shardsPrimary"}, "number of primary shards", true, catNumber},
	{"relo", []string{"r", "shards.relocating", "shardsRelocating"}, "number of relocating nodes", true, catNumber},
	{"init", []string{"i", "shards.initializing", "shardsInitializing"}, "number of initializing nodes", true, catNumber},
	{"unassign", []string{"u", "shards.unassigned", "shardsUnassigned"}, "number of unassigned shards", true, catNumber},
	{"pending_tasks", []string{"pt", "pendingTasks"}, "number of pending tasks", true, catNumber},
	{"max_task_wait_time", []string{"mtwt", "maxTaskWaitTime"}, "wait time of longest task pending", true, catText},
	{"active_shards_percent", []string{"asp", "activeShardsPercent"}, "active number of shards in percent", true, catText},
}

// CatHealth answers GET /_cat/health.
func (s *Server) CatHealth(c echo.Context, p cluster.CatHealthParams) error {
	h := s.core.Health(c.Request().Context(), searchcore.HealthRequest{AllIndices: true, Indices: s.core.Indices()})
	now := time.Now()
	cols := append([]catColumn(nil), catHealthCols...)
	if !boolParam(p.Ts, true) {
		cols[0].def, cols[1].def = false, false
	}
	t := &catTable{cols: cols, rows: [][]any{{
		now.Unix(), now.UTC().Format("15:04:05"), h.ClusterName, h.Status,
		int64(h.NumberOfNodes), int64(h.NumberOfDataNodes), int64(h.ActiveShards), int64(h.ActivePrimaryShards),
		int64(h.RelocatingShards), int64(h.InitializingShards), int64(h.UnassignedShards), int64(h.NumberOfPendingTasks),
		"-", strconv.FormatFloat(h.ActiveShardsPercent, 'f', 1, 64) + "%",
	}}}
	return writeCat(c, t, newCatParams(p.Format, p.H, p.Help, p.S, p.V, nil, (*string)(p.Time)))
}

// ---------------------------------------------------------------- nodes

var catNodesCols = []catColumn{
	{"id", []string{"id", "nodeId"}, "unique node id", false, catText},
	{"pid", []string{"p"}, "process id", false, catNumber},
	{"ip", []string{"i"}, "ip address", true, catText},
	{"port", []string{"po"}, "bound transport port", false, catText},
	{"http_address", []string{"http"}, "bound http address", false, catText},
	{"version", []string{"v"}, "es version", false, catText},
	{"build", []string{"b"}, "es build hash", false, catText},
	{"heap.current", []string{"hc", "heapCurrent"}, "used heap", false, catBytes},
	{"heap.percent", []string{"hp", "heapPercent"}, "used heap ratio", true, catNumber},
	{"heap.max", []string{"hm", "heapMax"}, "max configured heap", false, catBytes},
	{"ram.current", []string{"rc", "ramCurrent"}, "used machine memory", false, catBytes},
	{"ram.percent", []string{"rp", "ramPercent"}, "used machine memory ratio", true, catNumber},
	{"ram.max", []string{"rm", "ramMax"}, "total machine memory", false, catBytes},
	{"cpu", nil, "recent cpu usage", true, catNumber},
	{"load_1m", []string{"l"}, "1m load avg", true, catText},
	{"load_5m", []string{"l"}, "5m load avg", true, catText},
	{"load_15m", []string{"l"}, "15m load avg", true, catText},
	{"uptime", []string{"u"}, "node uptime", false, catTime},
	{"node.role", []string{"r", "role", "nodeRole"}, "m:master eligible node, d:data node, i:ingest node, r:remote cluster client node, -:coordinating node only", true, catText},
	{"master", []string{"m"}, "*:current master", true, catText},
	{"name", []string{"n"}, "node name", true, catText},
}

// roleLetters abbreviates node roles like Elasticsearch's cat nodes.
var roleLetters = map[string]string{"data": "d", "data_cold": "c", "data_content": "s", "data_frozen": "f", "data_hot": "h", "data_warm": "w",
	"ingest": "i", "master": "m", "ml": "l", "remote_cluster_client": "r", "transform": "t", "voting_only": "v"}

// CatNodes answers GET /_cat/nodes.
func (s *Server) CatNodes(c echo.Context, p cluster.CatNodesParams) error {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heapMaxB := heapMax()
	mem := readMemInfo()
	load := readLoadAvg()
	master, hasMaster := s.core.MasterNode()
	t := &catTable{cols: catNodesCols}
	for _, n := range s.core.Nodes() {
		id := n.ID
		if !boolParam(p.FullId, false) && len(id) > 4 {
			id = id[:4]
		}
		var letters []string
		for _, r := range n.Roles {
			letters = append(letters, roleLetters[r])
		}
		sort.Strings(letters)
		role := strings.Join(letters, "")
		if role == "" {
			role = "-"
		}
		mark := "-"
		if hasMaster && master.ID == n.ID {
			mark = "*"
		}
		heapUsed := int64(ms.HeapAlloc)
		var ramPct any
		if mem.total > 0 {
			ramPct = int64(math.Round(float64(mem.total-mem.available) * 100 / float64(mem.total)))
		}
		_, port, _ := strings.Cut(n.TransportAddress, ":")
		t.rows = append(t.rows, []any{
			id, int64(os.Getpid()), n.IP, port, n.HTTPAddress, Version, buildHash,
			heapUsed, int64(math.Round(float64(heapUsed) * 100 / float64(max(heapMaxB, 1)))), heapMaxB,
			mem.total - mem.available, ramPct, mem.total,
			cpuPercent(), load[0], load[1], load[2], time.Since(processStart), role, mark, n.Name,
		})
	}
	return writeCat(c, t, newCatParams(p.Format, p.H, p.Help, p.S, p.V, (*string)(p.Bytes), (*string)(p.Time)))
}

type memInfo struct{ total, available int64 }

// readMemInfo reads the machine memory from /proc/meminfo.
func readMemInfo() memInfo {
	var m memInfo
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return m
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "MemTotal:":
			m.total = n * 1024
		case "MemAvailable:":
			m.available = n * 1024
		}
	}
	return m
}

// readLoadAvg returns the 1, 5 and 15 minute load averages (nil when unknown).
func readLoadAvg() [3]any {
	var out [3]any
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return out
	}
	f := strings.Fields(string(b))
	for i := 0; i < 3 && i < len(f); i++ {
		if v, err := strconv.ParseFloat(f[i], 64); err == nil {
			out[i] = strconv.FormatFloat(v, 'f', 2, 64)
		}
	}
	return out
}

// cpuSampler measures the machine's CPU usage between two calls
// (/proc/stat), like Elasticsearch's os probe.
var cpuSampler struct {
	sync.Mutex
	idle, total int64
}

// cpuPercent returns the CPU usage since the previous call (since boot on
// the first), or nil when /proc/stat is unreadable.
func cpuPercent() any {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return nil
	}
	var total, idle int64
	for i, x := range f[1:] {
		n, _ := strconv.ParseInt(x, 10, 64)
		total += n
		if i == 3 || i == 4 { // idle, iowait
			idle += n
		}
	}
	cpuSampler.Lock()
	defer cpuSampler.Unlock()
	dt, di := total-cpuSampler.total, idle-cpuSampler.idle
	cpuSampler.total, cpuSampler.idle = total, idle
	if dt <= 0 {
		return int64(0)
	}
	return int64(math.Round(float64(dt-di) * 100 / float64(dt)))
}

// ---------------------------------------------------------------- indices

var catIndicesCols = []catColumn{
	{"health", []string{"h"}, "current health status", true, catText},
	{"status", []string{"s"}, "open/close status", true, catText},
	{"index", []string{"i", "idx"}, "index name", true, catText},
	{"uuid", []string{"id", "uuid"}, "index uuid", true, catText},
	{"pri", []string{"p", "shards.primary", "shardsPrimary"}, "number of primary shards", true, catNumber},
	{"rep", []string{"r", "shards.replica", "shardsReplica"}, "number of replica shards", true, catNumber},
	{"docs.count", []string{"dc", "docsCount"}, "available docs", true, catNumber},
	{"docs.deleted", []string{"dd", "docsDeleted"}, "deleted docs", true, catNumber},
	{"creation.date", []string{"cd"}, "index creation date (millisecond value)", false, catNumber},
	{"creation.date.string", []string{"cds"}, "index creation date (as string)", false, catText},
	{"store.size", []string{"ss", "storeSize"}, "store size of primaries & replicas", true, catBytes},
	{"pri.store.size", nil, "store size of primaries", true, catBytes},
	{"indexing.index_total", []string{"iito", "indexingIndexTotal"}, "number of indexing ops", false, catNumber},
	{"indexing.delete_total", []string{"idto", "indexingDeleteTotal"}, "number of delete ops", false, catNumber},
	{"refresh.total", []string{"rto", "refreshTotal"}, "total refreshes", false, catNumber},
}

// CatIndices answers GET /_cat/indices.
func (s *Server) CatIndices(c echo.Context, p cluster.CatIndicesParams) error {
	return s.catIndices(c, "", p)
}

// CatIndicesIndex answers GET /_cat/indices/{index}.
func (s *Server) CatIndicesIndex(c echo.Context, index cluster.IndexListPath, p cluster.CatIndicesIndexParams) error {
	return s.catIndices(c, string(index), cluster.CatIndicesParams(p))
}

func (s *Server) catIndices(c echo.Context, expr string, p cluster.CatIndicesParams) error {
	// Wildcards expand to open and closed indices unless expand_wildcards
	// says otherwise; closed indices are listed, never an error.
	o, err := resolveOptions(nil, nil, p.ExpandWildcards, true)
	if err != nil {
		return err
	}
	if p.ExpandWildcards == nil || len(*p.ExpandWildcards) == 0 {
		o.ExpandClosed = true
	}
	o.AllowClosed = true
	if expr == "" {
		expr = "_all"
	}
	indices, err := s.core.Resolve(expr, o)
	if err != nil {
		return err
	}
	h := s.core.Health(c.Request().Context(), searchcore.HealthRequest{Indices: indices, Level: "indices"})
	stats := s.core.ShardStats(indices)
	t := &catTable{cols: catIndicesCols}
	for _, ix := range indices {
		var docs, deleted, store, itot, dtot, rtot int64
		for _, st := range stats {
			if st.Index == ix.Name() {
				docs += st.Docs
				deleted += st.Deleted
				store += st.StoreBytes
				itot += st.IndexTotal
				dtot += st.DeleteTotal
				rtot += st.Refreshes
			}
		}
		health := h.Indices[ix.Name()].Status
		if p.Health != nil && string(*p.Health) != health {
			continue
		}
		set := ix.Settings()
		created := ix.SettingsFlat()["index.creation_date"]
		var createdMs any
		var createdStr any
		if ms, err := strconv.ParseInt(fmt.Sprint(created), 10, 64); err == nil {
			createdMs = ms
			createdStr = time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
		}
		if ix.IsClosed() {
			// A closed index has no statistics.
			t.rows = append(t.rows, []any{
				health, "close", ix.Name(), ix.UUID(), int64(set.NumberOfShards), int64(set.NumberOfReplicas),
				nil, nil, createdMs, createdStr, nil, nil, nil, nil, nil,
			})
			continue
		}
		// A single node holds primaries only: both sizes are the primaries'.
		t.rows = append(t.rows, []any{
			health, "open", ix.Name(), ix.UUID(), int64(set.NumberOfShards), int64(set.NumberOfReplicas),
			docs, deleted, createdMs, createdStr, store, store, itot, dtot, rtot,
		})
	}
	return writeCat(c, t, newCatParams(p.Format, p.H, p.Help, p.S, p.V, (*string)(p.Bytes), (*string)(p.Time)))
}

// ---------------------------------------------------------------- count

var catCountCols = []catColumn{
	{"epoch", []string{"t", "time"}, "seconds since 1970-01-01 00:00:00", true, catNumber},
	{"timestamp", []string{"ts", "hms", "hhmmss"}, "time in HH:MM:SS", true, catText},
	{"count", []string{"dc", "docs.count", "docsCount"}, "the document count", true, catNumber},
}

// CatCount answers GET /_cat/count.
func (s *Server) CatCount(c echo.Context, p cluster.CatCountParams) error {
	return s.catCount(c, "_all", p)
}

// CatCountIndex answers GET /_cat/count/{index}.
func (s *Server) CatCountIndex(c echo.Context, index cluster.IndexListPath, p cluster.CatCountIndexParams) error {
	return s.catCount(c, string(index), cluster.CatCountParams(p))
}

func (s *Server) catCount(c echo.Context, expr string, p cluster.CatCountParams) error {
	indices, err := s.core.Resolve(expr, searchcore.ResolveOptions{ExpandOpen: true, AllowNoIndices: true})
	if err != nil {
		return err
	}
	res, err := s.core.Count(c.Request().Context(), indices, nil, 0)
	if err != nil {
		return err
	}
	now := time.Now()
	t := &catTable{cols: catCountCols, rows: [][]any{{now.Unix(), now.UTC().Format("15:04:05"), res.Count}}}
	return writeCat(c, t, newCatParams(p.Format, p.H, p.Help, p.S, p.V, nil, nil))
}

// ---------------------------------------------------------------- master

var catMasterCols = []catColumn{
	{"id", nil, "node id", true, catText},
	{"host", []string{"h"}, "host name", true, catText},
	{"ip", nil, "ip address", true, catText},
	{"node", []string{"n"}, "node name", true, catText},
}

// CatMaster answers GET /_cat/master.
func (s *Server) CatMaster(c echo.Context, p cluster.CatMasterParams) error {
	t := &catTable{cols: catMasterCols}
	if m, ok := s.core.MasterNode(); ok {
		t.rows = append(t.rows, []any{m.ID, m.Host, m.IP, m.Name})
	}
	return writeCat(c, t, newCatParams(p.Format, p.H, p.Help, p.S, p.V, nil, nil))
}

// ---------------------------------------------------------------- plugins

var catPluginsCols = []catColumn{
	{"id", nil, "unique node id", false, catText},
	{"name", []string{"n"}, "node name", true, catText},
	{"component", []string{"c"}, "component", true, catText},
	{"version", []string{"v"}, "component version", true, catText},
	{"description", []string{"d"}, "plugin details", false, catText},
	{"type", []string{"t"}, "plugin type", false, catText},
}

// CatPlugins answers GET /_cat/plugins (installed plugins; Quarry has none).
func (s *Server) CatPlugins(c echo.Context, p cluster.CatPluginsParams) error {
	t := &catTable{cols: catPluginsCols}
	for _, n := range s.core.Nodes() {
		for _, pl := range installedPlugins {
			t.rows = append(t.rows, []any{n.ID, n.Name, pl.name, Version, pl.description, "isolated"})
		}
	}
	return writeCat(c, t, newCatParams(p.Format, p.H, p.Help, p.S, p.V, nil, nil))
}

// ---------------------------------------------------------------- aliases

var catAliasesCols = []catColumn{
	{"alias", []string{"a"}, "alias name", true, catText},
	{"index", []string{"i", "idx"}, "index alias points to", true, catText},
	{"filter", []string{"f", "fi"}, "filter", true, catText},
	{"routing.index", []string{"ri", "routingIndex"}, "index routing", true, catText},
	{"routing.search", []string{"rs", "routingSearch"}, "search routing", true, catText},
	{"is_write_index", []string{"w", "isWriteIndex"}, "write index", true, catText},
}

// CatAliases answers GET /_cat/aliases.
func (s *Server) CatAliases(c echo.Context, p cluster.CatAliasesParams) error {
	return s.catAliases(c, "", p)
}

// CatAliasesName answers GET /_cat/aliases/{name}.
func (s *Server) CatAliasesName(c echo.Context, name cluster.AliasNamePath, p cluster.CatAliasesNameParams) error {
	return s.catAliases(c, string(name), cluster.CatAliasesParams(p))
}

func (s *Server) catAliases(c echo.Context, pattern string, p cluster.CatAliasesParams) error {
	t := &catTable{cols: catAliasesCols}
	for _, ix := range s.core.Indices() {
		aliases := ix.Aliases()
		names := make([]string, 0, len(aliases))
		for n := range aliases {
			if pattern == "" || aliasMatches(pattern, n) {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			a := aliases[n]
			filter, ri, rs, w := "-", "-", "-", "-"
			if len(a.Filter) > 0 {
				filter = "*"
			}
			if a.IndexRouting != "" {
				ri = a.IndexRouting
			}
			if a.SearchRouting != "" {
				rs = a.SearchRouting
			}
			if a.IsWriteIndex != nil {
				w = strconv.FormatBool(*a.IsWriteIndex)
			}
			t.rows = append(t.rows, []any{n, ix.Name(), filter, ri, rs, w})
		}
	}
	return writeCat(c, t, newCatParams(p.Format, p.H, p.Help, p.S, p.V, nil, nil))
}

// ---------------------------------------------------------------- shards

var catShardsCols = []catColumn{
	{"index", []string{"i", "idx"}, "index name", true, catText},
	{"shard", []string{"s", "sh"}, "shard name", true, catNumber},
	{"prirep", []string{"p", "pr", "primaryOrReplica"}, "primary or replica", true, catText},
	{"state", []string{"st"}, "shard state", true, catText},
	{"docs", []string{"d", "dc"}, "number of docs in shard", true, catNumber},
	{"store", []string{"sto"}, "store size of shard (how much disk it uses)", true, catBytes},
	{"ip", nil, "ip of node where it lives", true, catText},
	{"id", nil, "unique id of node where it lives", false, catText},
	{"node", []string{"n"}, "name of node where it lives", true, catText},
	{"indexing.index_total", []string{"iito", "indexingIndexTotal"}, "number of indexing ops", false, catNumber},
	{"indexing.delete_total", []string{"idto", "indexingDeleteTotal"}, "number of delete ops", false, catNumber},
	{"refresh.total", []string{"rto", "refreshTotal"}, "total refreshes", false, catNumber},
}

// CatShards answers GET /_cat/shards.
func (s *Server) CatShards(c echo.Context, p cluster.CatShardsParams) error {
	return s.catShards(c, "_all", p)
}

// CatShardsIndex answers GET /_cat/shards/{index}.
func (s *Server) CatShardsIndex(c echo.Context, index cluster.IndexListPath, p cluster.CatShardsIndexParams) error {
	return s.catShards(c, string(index), cluster.CatShardsParams(p))
}

func (s *Server) catShards(c echo.Context, expr string, p cluster.CatShardsParams) error {
	indices, err := s.core.Resolve(expr, searchcore.ResolveOptions{ExpandOpen: true, AllowNoIndices: true})
	if err != nil {
		return err
	}
	node := s.core.LocalNode()
	t := &catTable{cols: catShardsCols}
	for _, st := range s.core.ShardStats(indices) {
		t.rows = append(t.rows, []any{st.Index, int64(st.Shard), "p", "STARTED", st.Docs, st.StoreBytes, node.IP, node.ID, node.Name,
			st.IndexTotal, st.DeleteTotal, st.Refreshes})
		// Replicas cannot be placed on a single node.
		ix, _ := s.core.Index(st.Index)
		for r := 0; ix != nil && r < ix.Settings().NumberOfReplicas; r++ {
			t.rows = append(t.rows, []any{st.Index, int64(st.Shard), "r", "UNASSIGNED", nil, nil, nil, nil, nil, nil, nil, nil})
		}
	}
	return writeCat(c, t, newCatParams(p.Format, p.H, p.Help, p.S, p.V, (*string)(p.Bytes), (*string)(p.Time)))
}
