package cluster

import (
	"bufio"
	"os"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

// NodeConfig is how the local node is configured (from the node settings).
type NodeConfig struct {
	// Roles of the node; empty means DefaultRoles.
	Roles []string
	// Attributes are the node.attr.* settings without the prefix.
	Attributes map[string]string
	// Settings are every node setting (flat keys), reported by nodes info.
	Settings map[string]string
	// Processors is the node.processors setting (0 = the machine's count).
	Processors int
	// HTTPAddress is the bound HTTP address (host:port).
	HTTPAddress string
	// StaticSettings names every setting the node accepts at startup only
	// (set or not): the cluster settings API answers "not dynamically
	// updateable" for them instead of "not recognized".
	StaticSettings []string
}

// DefaultRoles are the roles a node has when node.roles is not set.
var DefaultRoles = []string{"data", "ingest", "master", "remote_cluster_client"}

// Node describes one node of the cluster.
type Node struct {
	ID               string
	Name             string
	Host             string
	IP               string
	TransportAddress string
	HTTPAddress      string
	Roles            []string
	Attributes       map[string]string
	Settings         map[string]string
	// StaticSettings is NodeConfig.StaticSettings as a set.
	StaticSettings map[string]bool
	Processors     int
	Master         bool
}

// NewNode builds the description of the local node.
func NewNode(id, name string, cfg NodeConfig) Node {
	roles := append([]string(nil), cfg.Roles...)
	if len(roles) == 0 {
		roles = append(roles, DefaultRoles...)
	}
	sort.Strings(roles)
	attrs := map[string]string{}
	for k, v := range cfg.Attributes {
		attrs[k] = v
	}
	static := map[string]bool{}
	for _, k := range cfg.StaticSettings {
		static[k] = true
	}
	addr := cfg.HTTPAddress
	if addr == "" {
		addr = "127.0.0.1:9200"
	}
	host, _, _ := strings.Cut(addr, ":")
	if i := strings.LastIndex(addr, ":"); i >= 0 {
		host = strings.Trim(addr[:i], "[]")
	}
	return Node{
		ID: id, Name: name, Host: host, IP: host,
		// There is no transport layer yet: the node reports the port ES
		// would use next to its HTTP address.
		TransportAddress: host + ":9300",
		HTTPAddress:      addr,
		Roles:            roles,
		Attributes:       attrs,
		Settings:         cfg.Settings,
		StaticSettings:   static,
		Processors:       AllocatedProcessors(cfg.Processors),
		Master:           hasRole(roles, "master"),
	}
}

func hasRole(roles []string, r string) bool {
	for _, x := range roles {
		if x == r {
			return true
		}
	}
	return false
}

// AllocatedProcessors is node.processors bounded by the machine's count and
// never larger than 32 (0 = the machine's count).
func AllocatedProcessors(setting int) int {
	n := runtime.NumCPU()
	if setting > 0 && setting < n {
		n = setting
	}
	if n > 32 {
		n = 32
	}
	return n
}

// ResolveNodes selects the nodes matching Elasticsearch node specifications:
// _all, *, _local, _master, ids, names, host names or addresses (wildcards
// allowed), role filters (master:true, data:false, ...) and attribute
// filters (attr:value). No specification selects every node.
func ResolveNodes(nodes []Node, local string, specs []string) []Node {
	if len(specs) == 0 {
		return nodes
	}
	selected := map[string]bool{}
	for _, spec := range specs {
		spec = strings.TrimSpace(spec)
		switch {
		case spec == "_all" || spec == "*":
			for _, n := range nodes {
				selected[n.ID] = true
			}
		case spec == "_local":
			selected[local] = true
		case spec == "_master":
			for _, n := range nodes {
				if n.Master {
					selected[n.ID] = true
					break
				}
			}
		case strings.Contains(spec, ":"):
			k, v, _ := strings.Cut(spec, ":")
			for _, n := range nodes {
				if matchAttr(n, k, v) {
					selected[n.ID] = true
				}
			}
		default:
			for _, n := range nodes {
				for _, f := range []string{n.ID, n.Name, n.Host, n.IP} {
					if ok, _ := path.Match(spec, f); ok {
						selected[n.ID] = true
					}
				}
			}
		}
	}
	var out []Node
	for _, n := range nodes {
		if selected[n.ID] {
			out = append(out, n)
		}
	}
	return out
}

var roleNames = map[string]bool{"master": true, "data": true, "ingest": true, "remote_cluster_client": true, "ml": true, "transform": true, "voting_only": true,
	"data_content": true, "data_hot": true, "data_warm": true, "data_cold": true, "data_frozen": true}

func matchAttr(n Node, k, v string) bool {
	if roleNames[k] {
		want := v == "true"
		return hasRole(n.Roles, k) == want
	}
	for ak, av := range n.Attributes {
		okK, _ := path.Match(k, ak)
		okV, _ := path.Match(v, av)
		if okK && okV {
			return true
		}
	}
	return false
}

// OSInfo describes the operating system.
type OSInfo struct {
	Name, PrettyName, Arch, Version string
	AvailableProcessors             int
	AllocatedProcessors             int
}

// ReadOSInfo reads the operating system description (/proc, /etc/os-release).
func ReadOSInfo(processors int) OSInfo {
	info := OSInfo{
		Name:                osName(),
		Arch:                runtime.GOARCH,
		AvailableProcessors: runtime.NumCPU(),
		AllocatedProcessors: processors,
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		info.Version = strings.TrimSpace(string(b))
	}
	info.PrettyName = info.Name
	if f, err := os.Open("/etc/os-release"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "PRETTY_NAME="); ok {
				info.PrettyName = strings.Trim(v, `"`)
			}
		}
		f.Close()
	}
	return info
}

func osName() string {
	switch runtime.GOOS {
	case "linux":
		return "Linux"
	case "darwin":
		return "Mac OS X"
	case "windows":
		return "Windows"
	}
	return runtime.GOOS
}

// MLockAll reports whether the process has its memory locked (VmLck > 0).
func MLockAll() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmLck:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n > 0
			}
		}
	}
	return false
}

// TotalMemory returns the machine's memory in bytes (/proc/meminfo), or 0.
func TotalMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n * 1024
			}
		}
	}
	return 0
}
