package cluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// setting describes one dynamic cluster setting: its default and a
// validator that normalises the value (a string or a list of strings).
type setting struct {
	pattern string // exact key, or a path.Match pattern with * for one segment
	def     any    // string, []string or nil (no default shown)
	check   func(v any) (any, error)
}

// known lists the dynamic cluster settings Quarry accepts.
var known = []setting{
	{"cluster.routing.allocation.enable", "all", enum("all", "primaries", "new_primaries", "none")},
	{"cluster.routing.rebalance.enable", "all", enum("all", "primaries", "replicas", "none")},
	{"cluster.routing.allocation.allow_rebalance", "indices_all_active", enum("always", "indices_primaries_active", "indices_all_active")},
	{"cluster.routing.allocation.cluster_concurrent_rebalance", "2", intMin(-1)},
	{"cluster.routing.allocation.node_concurrent_recoveries", "2", intMin(0)},
	{"cluster.routing.allocation.node_initial_primaries_recoveries", "4", intMin(0)},
	{"cluster.routing.allocation.same_shard.host", "false", boolean},
	{"cluster.routing.allocation.total_shards_per_node", "-1", intMin(-1)},
	{"cluster.routing.allocation.disk.threshold_enabled", "true", boolean},
	{"cluster.routing.allocation.disk.watermark.low", "85%", text},
	{"cluster.routing.allocation.disk.watermark.high", "90%", text},
	{"cluster.routing.allocation.disk.watermark.flood_stage", "95%", text},
	{"cluster.routing.allocation.awareness.attributes", []string{}, list(nil)},
	{"cluster.routing.allocation.include.*", nil, text},
	{"cluster.routing.allocation.exclude.*", nil, text},
	{"cluster.routing.allocation.require.*", nil, text},
	{"cluster.routing.use_adaptive_replica_selection", "true", boolean},
	{"cluster.blocks.read_only", "false", boolean},
	{"cluster.blocks.read_only_allow_delete", "false", boolean},
	{"cluster.max_shards_per_node", "1000", intMin(1)},
	{"cluster.indices.close.enable", "true", boolean},
	{"cluster.max_voting_config_exclusions", "10", intMin(1)},
	{"cluster.info.update.interval", "30s", timeValue},
	{"cluster.remote.initial_connect_timeout", "30s", timeValue},
	{"cluster.remote.*.seeds", nil, list(seedAddress)},
	{"cluster.remote.*.skip_unavailable", nil, boolean},
	{"cluster.remote.*.mode", nil, enum("sniff", "proxy")},
	{"cluster.remote.*.proxy_address", nil, text},
	{"cluster.remote.*.server_name", nil, text},
	{"cluster.remote.*.node_connections", nil, intMin(1)},
	{"cluster.remote.*.proxy_socket_connections", nil, intMin(1)},
	{"cluster.remote.*.transport.ping_schedule", nil, timeValue},
	{"cluster.remote.*.transport.compress", nil, enum("true", "false", "indexing_data")},
	{"action.auto_create_index", "true", text},
	{"action.destructive_requires_name", "false", boolean},
	{"search.max_open_scroll_context", "500", intMin(0)},
	{"search.default_search_timeout", "-1", timeValue},
	{"search.default_keep_alive", "5m", timeValue},
	{"search.max_keep_alive", "1d", timeValue},
	{"search.max_buckets", "65535", intMin(0)},
	{"search.allow_expensive_queries", "true", boolean},
	{"indices.breaker.total.limit", "95%", text},
	{"indices.breaker.request.limit", "60%", text},
	{"indices.breaker.fielddata.limit", "40%", text},
	{"indices.recovery.max_bytes_per_sec", "40mb", text},
	{"persistent_tasks.allocation.enable", "all", enum("all", "none")},
	{"logger.*", nil, enum("OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL")},
}

// lookup returns the definition of key, or nil when Quarry does not know it.
func lookup(key string) *setting {
	for i := range known {
		s := &known[i]
		if s.pattern == key {
			return s
		}
		if strings.Contains(s.pattern, "*") {
			if s.pattern == "logger.*" {
				if strings.HasPrefix(key, "logger.") && len(key) > len("logger.") {
					return s
				}
				continue
			}
			if strings.Count(s.pattern, ".") == strings.Count(key, ".") {
				if ok, _ := path.Match(s.pattern, key); ok {
					return s
				}
			}
		}
	}
	return nil
}

// Defaults returns the default value of every exact known setting (flat keys).
func Defaults() map[string]any {
	out := map[string]any{}
	for _, s := range known {
		if s.def != nil && !strings.Contains(s.pattern, "*") {
			out[s.pattern] = s.def
		}
	}
	return out
}

var text = func(v any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("expected a single value, got a list")
	}
	return s, nil
}

func enum(values ...string) func(any) (any, error) {
	return func(v any) (any, error) {
		s, err := text(v)
		if err != nil {
			return nil, err
		}
		for _, x := range values {
			if strings.EqualFold(x, s.(string)) {
				return s, nil
			}
		}
		return nil, fmt.Errorf("no enum constant for [%s], expected one of [%s]", s, strings.Join(values, ", "))
	}
}

func boolean(v any) (any, error) {
	s, err := text(v)
	if err != nil {
		return nil, err
	}
	if s != "true" && s != "false" {
		return nil, fmt.Errorf("Failed to parse value [%s] as only [true] or [false] are allowed.", s)
	}
	return s, nil
}

func intMin(min int) func(any) (any, error) {
	return func(v any) (any, error) {
		s, err := text(v)
		if err != nil {
			return nil, err
		}
		n, perr := strconv.Atoi(s.(string))
		if perr != nil {
			return nil, fmt.Errorf("Failed to parse value [%s] as an integer", s)
		}
		if n < min {
			return nil, fmt.Errorf("Failed to parse value [%s], must be >= [%d]", s, min)
		}
		return s, nil
	}
}

func timeValue(v any) (any, error) {
	s, err := text(v)
	if err != nil {
		return nil, err
	}
	str := s.(string)
	if str == "-1" || str == "0" {
		return str, nil
	}
	for _, unit := range []string{"nanos", "micros", "ms", "s", "m", "h", "d"} {
		if num, ok := strings.CutSuffix(str, unit); ok {
			if _, perr := strconv.ParseFloat(num, 64); perr == nil && num != "" {
				return str, nil
			}
		}
	}
	return nil, fmt.Errorf("failed to parse setting value [%s] as a time value: unit is missing or unrecognized", str)
}

// seedAddress checks a remote-cluster seed: host:port.
func seedAddress(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" {
		return fmt.Errorf("invalid seed address [%s]: expected [host:port]", s)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("failed to parse port [%s] of seed address [%s]", port, s)
	}
	return nil
}

func list(each func(string) error) func(any) (any, error) {
	return func(v any) (any, error) {
		var items []string
		switch t := v.(type) {
		case string:
			if t != "" {
				items = strings.Split(t, ",")
				for i := range items {
					items[i] = strings.TrimSpace(items[i])
				}
			}
		case []string:
			items = t
		}
		if items == nil {
			items = []string{}
		}
		if each != nil {
			for _, it := range items {
				if err := each(it); err != nil {
					return nil, err
				}
			}
		}
		return items, nil
	}
}

// flatten turns a settings object (nested or flat keys, or a mix) into flat
// keys. Scalars become strings (as Elasticsearch stores settings), arrays
// lists of strings and JSON null a nil value (reset).
func flatten(raw json.RawMessage) (map[string]any, []string, error) {
	out := map[string]any{}
	var order []string
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return out, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, nil, eserr.ParsingError("failed to parse settings: %v", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, nil, eserr.ParsingError("settings must be an object")
	}
	var walk func(prefix string, m map[string]any) error
	walk = func(prefix string, m map[string]any) error {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			key := prefix + k
			switch t := m[k].(type) {
			case map[string]any:
				if err := walk(key+".", t); err != nil {
					return err
				}
				continue
			case nil:
				out[key] = nil
			case []any:
				items := make([]string, 0, len(t))
				for _, it := range t {
					switch x := it.(type) {
					case map[string]any, []any:
						return eserr.IllegalArgument("failed to parse setting [%s]: lists may hold only values", key)
					default:
						items = append(items, scalar(x))
					}
				}
				out[key] = items
			default:
				out[key] = scalar(t)
			}
			order = append(order, key)
		}
		return nil
	}
	if err := walk("", obj); err != nil {
		return nil, nil, err
	}
	return out, order, nil
}

func scalar(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return t.String()
	case bool:
		return strconv.FormatBool(t)
	case nil:
		return ""
	default:
		return fmt.Sprint(t)
	}
}
