package main

import (
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/cluster"
)

// settingSpec describes one node setting: its default and validator.
type settingSpec struct {
	def   string
	check func(string) error
	doc   string
}

// nodeSettings lists every setting the node accepts. Anything else fails
// start-up with a clear message (like Elasticsearch).
var nodeSettings = withDeprecated(map[string]settingSpec{
	"cluster.name":                      {def: "quarry", doc: "cluster name reported by the APIs"},
	"node.name":                         {def: "", doc: "node name (default: host name)"},
	"path.data":                         {def: "./data", doc: "data folder (badger + bluge)"},
	"path.logs":                         {def: "", doc: "log folder (default: standard error)"},
	"path.scripts":                      {def: "./config/scripts", doc: "folder of .mustache search templates"},
	"network.host":                      {def: "127.0.0.1", doc: "bind address for HTTP"},
	"http.host":                         {def: "", doc: "bind address for HTTP (overrides network.host)"},
	"http.port":                         {def: "9200", check: checkPort, doc: "HTTP port"},
	"http.max_content_length":           {def: "100mb", check: checkBytes, doc: "largest accepted request body"},
	"action.auto_create_index":          {def: "true", check: checkBool, doc: "create missing indices on write"},
	"log.level":                         {def: "info", check: oneOf("debug", "info", "warn", "error"), doc: "log level"},
	"log.format":                        {def: "text", check: oneOf("text", "json"), doc: "log format"},
	"ext.security.enabled":              {def: "true", check: checkBool, doc: "security (authentication and authorization); false makes every request the anonymous superuser"},
	"ext.security.authc.token.timeout":  {def: "20m", check: checkTokenTimeout, doc: "access token lifetime (at most 1h)"},
	"ext.security.http.ssl.enabled":     {def: "false", check: checkBool, doc: "serve HTTPS"},
	"ext.security.http.ssl.certificate": {def: "", doc: "PEM certificate (chain) of the HTTP interface"},
	"ext.security.http.ssl.key":         {def: "", doc: "PEM private key of the HTTP certificate"},
	"ext.security.http.ssl.certificate_authorities": {def: "", doc: "PEM CA certificates trusted for client certificates (comma-separated files)"},
	"ext.security.http.ssl.client_authentication":   {def: "none", check: oneOf("none", "optional", "required"), doc: "client certificates: none, optional or required"},
	"ext.memory.soft_limit":                         {def: "128mb", check: checkBytes, doc: "soft limit of the Go heap (runtime/debug.SetMemoryLimit; 0: none; the GOMEMLIMIT environment variable wins)"},
	"ext.search.points_cache.size":                  {def: "64mb", check: checkBytes, doc: "memory of the per-segment numeric points range queries read (0: none; range queries then read the term dictionaries)"},
	"ext.pprof.enabled":                             {def: "false", check: checkBool, doc: "serve Go runtime profiles under /_quarry/pprof/ (superuser only once security is on)"},
	"path.conf":                                     {def: "./config", doc: "configuration folder (service_tokens, users, users_roles)"},
	"node.processors":                               {def: "", check: checkOptionalInt, doc: "processors used to size thread pools"},
	"search.max_open_scroll_context":                {def: "500", check: checkOptionalInt, doc: "open scroll contexts limit"},
	"indices.query.bool.max_clause_count":           {def: "1024", check: checkOptionalInt, doc: "bool clause limit"},
	"shutdown.timeout":                              {def: "30s", check: checkDuration, doc: "graceful shutdown timeout"},
	"script.allowed_types":                          {def: "", check: searchcore.CheckScriptAllowedTypes, doc: "script types allowed (inline, stored, none; empty: all)"},
	"script.allowed_contexts":                       {def: "", check: searchcore.CheckScriptAllowedContexts, doc: "script contexts allowed (template, score, ..., none; empty: all)"},
	"node.roles":                                    {def: "", check: checkRoles, doc: "node roles (default: data, ingest, master, remote_cluster_client)"},
	"node.local_storage":                            {def: "", check: checkOptionalBool, doc: "deprecated, no effect: every node needs local storage"},
	"ext.watcher.use_ilm_index_management":          {def: "", check: checkOptionalBool, doc: "accepted, no effect (no watcher)"},
	"appsearch.port":                                {def: "", check: checkOptionalPort, doc: "second listener serving only the App Search API (empty: none)"},
	"appsearch.revision":                            {def: "later", check: oneOf("earlier", "later"), doc: "App Search revision of engines created without one"},
	"appsearch.rate_limit":                          {def: "10000", check: checkRateLimit, doc: "App Search requests per key, endpoint and hour (-1: unlimited)"},
	"appsearch.rate_limit.search":                   {def: "12000", check: checkRateLimit, doc: "App Search searches per key and hour (-1: unlimited)"},
	"appsearch.rate_limit.query_suggestion":         {def: "2400", check: checkRateLimit, doc: "App Search query suggestions per key and hour (-1: unlimited)"},
})

// checkOptionalPort accepts "" or a port number.
func checkOptionalPort(v string) error {
	if v == "" {
		return nil
	}
	return checkPort(v)
}

// checkRateLimit accepts a positive budget or -1 (unlimited).
func checkRateLimit(v string) error {
	if n, err := strconv.Atoi(v); err != nil || n == 0 || n < -1 {
		return fmt.Errorf("must be a positive integer or -1")
	}
	return nil
}

// deprecatedSettings are accepted with a deprecation warning and no effect.
var deprecatedSettings = []string{
	"node.local_storage",
	"ext.enrich.enabled", "ext.flattened.enabled", "ext.ilm.enabled", "ext.monitoring.enabled", "ext.rollup.enabled",
	"ext.slm.enabled", "ext.sql.enabled", "ext.transform.enabled", "ext.vectors.enabled",
}

// withDeprecated adds the deprecated settings that specs does not list
// itself (accepted with no effect) and returns specs.
func withDeprecated(specs map[string]settingSpec) map[string]settingSpec {
	for _, k := range deprecatedSettings {
		if _, ok := specs[k]; !ok {
			specs[k] = settingSpec{def: "", check: checkOptionalBool, doc: "deprecated, no effect"}
		}
	}
	return specs
}

// Deprecations returns the deprecation warning of every deprecated setting
// that is set, in the words Elasticsearch uses.
func (s Settings) Deprecations() []string {
	var out []string
	for _, k := range deprecatedSettings {
		if s[k] != "" {
			out = append(out, fmt.Sprintf("[%s] setting was deprecated in Elasticsearch and will be removed in a future release! See the breaking changes documentation for the next major version.", k))
		}
	}
	return out
}

// Attributes returns the node.attr.* settings without the prefix.
func (s Settings) Attributes() map[string]string {
	out := map[string]string{}
	for k, v := range s {
		if a, ok := strings.CutPrefix(k, "node.attr."); ok {
			out[a] = v
		}
	}
	return out
}

// Roles returns the node.roles setting (nil when unset).
func (s Settings) Roles() []string {
	if s["node.roles"] == "" {
		return nil
	}
	var out []string
	for _, r := range strings.Split(s["node.roles"], ",") {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// knownRoles are the node roles Quarry accepts in node.roles.
var knownRoles = []string{"data", "data_cold", "data_content", "data_frozen", "data_hot", "data_warm", "ingest", "master", "ml", "remote_cluster_client", "transform", "voting_only"}

func checkRoles(v string) error {
	for _, r := range strings.Split(v, ",") {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		ok := false
		for _, k := range knownRoles {
			ok = ok || k == r
		}
		if !ok {
			return fmt.Errorf("unknown role [%s]", r)
		}
	}
	return nil
}

func checkOptionalBool(v string) error {
	if v == "" {
		return nil
	}
	return checkBool(v)
}

// Settings are the resolved node settings (flat keys).
type Settings map[string]string

// Get returns the value of a known setting.
func (s Settings) Get(key string) string { return s[key] }

// Bool returns a boolean setting.
func (s Settings) Bool(key string) bool { return s[key] == "true" }

// Int returns an integer setting (0 when empty).
func (s Settings) Int(key string) int {
	n, _ := strconv.Atoi(s[key])
	return n
}

// Bytes returns a byte-size setting.
func (s Settings) Bytes(key string) int64 {
	n, _ := parseBytes(s[key])
	return n
}

// Duration returns a time setting.
func (s Settings) Duration(key string) time.Duration {
	d, _ := parseDuration(s[key])
	return d
}

// loadSettings merges defaults < YAML file < QUARRY_* environment < -E flags
// and validates every key and value.
func loadSettings(configFile string, overrides []string, environ []string) (Settings, error) {
	s := Settings{}
	for k, spec := range nodeSettings {
		s[k] = spec.def
	}
	if configFile != "" {
		b, err := os.ReadFile(configFile)
		if err != nil {
			return nil, fmt.Errorf("read config %s: %w", configFile, err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("parse config %s: %w", configFile, err)
		}
		flat := map[string]string{}
		flattenYAML("", doc, flat)
		for k, v := range flat {
			if err := setSetting(s, k, v, "config file "+configFile); err != nil {
				return nil, err
			}
		}
	}
	envNames := map[string]string{}
	for k := range nodeSettings {
		envNames["QUARRY_"+strings.ToUpper(strings.NewReplacer(".", "_").Replace(k))] = k
	}
	for _, kv := range environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, "QUARRY_") {
			continue
		}
		key, known := envNames[name]
		if !known {
			return nil, fmt.Errorf("unknown setting in environment variable [%s]: no setting is named like it (known: %s)", name, strings.Join(knownEnvNames(envNames), ", "))
		}
		if err := setSetting(s, key, val, "environment variable "+name); err != nil {
			return nil, err
		}
	}
	for _, o := range overrides {
		k, v, ok := strings.Cut(o, "=")
		if !ok {
			return nil, fmt.Errorf("setting [%s] must be in the form key=value", o)
		}
		if err := setSetting(s, strings.TrimSpace(k), v, "-E"); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func knownEnvNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func setSetting(s Settings, key, val, from string) error {
	spec, ok := nodeSettings[key]
	if attr, isAttr := strings.CutPrefix(key, "node.attr."); isAttr && attr != "" {
		// Node attributes are free-form (node.attr.rack: r1).
		spec, ok = settingSpec{}, true
	}
	if !ok {
		return fmt.Errorf("unknown setting [%s] (from %s) please check that any required plugins are installed, or check the documentation for the settings Quarry accepts", key, from)
	}
	if spec.check != nil {
		if err := spec.check(val); err != nil {
			return fmt.Errorf("invalid value [%s] for setting [%s] (from %s): %v", val, key, from, err)
		}
	}
	s[key] = val
	return nil
}

func flattenYAML(prefix string, v any, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, sub := range t {
			flattenYAML(prefix+k+".", sub, out)
		}
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = fmt.Sprint(x)
		}
		out[strings.TrimSuffix(prefix, ".")] = strings.Join(parts, ",")
	case nil:
		out[strings.TrimSuffix(prefix, ".")] = ""
	default:
		out[strings.TrimSuffix(prefix, ".")] = fmt.Sprint(t)
	}
}

func checkBool(v string) error {
	if v != "true" && v != "false" {
		return fmt.Errorf("must be true or false")
	}
	return nil
}

func checkTokenTimeout(v string) error {
	d, err := parseDuration(v)
	if err != nil {
		return err
	}
	if d < time.Second || d > time.Hour {
		return fmt.Errorf("must be between 1s and 1h")
	}
	return nil
}

func checkPort(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("must be a port number between 0 and 65535")
	}
	return nil
}

func checkOptionalInt(v string) error {
	if v == "" {
		return nil
	}
	if n, err := strconv.Atoi(v); err != nil || n < 0 {
		return fmt.Errorf("must be a non-negative integer")
	}
	return nil
}

func checkBytes(v string) error {
	_, err := parseBytes(v)
	return err
}

func checkDuration(v string) error {
	_, err := parseDuration(v)
	return err
}

func oneOf(vals ...string) func(string) error {
	return func(v string) error {
		for _, x := range vals {
			if v == x {
				return nil
			}
		}
		return fmt.Errorf("must be one of %s", strings.Join(vals, ", "))
	}
}

// parseBytes parses "100mb", "512kb", "1gb", "1024" (bytes).
func parseBytes(v string) (int64, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	mults := []struct {
		suf string
		m   int64
	}{{"tb", 1 << 40}, {"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10}, {"b", 1}}
	for _, u := range mults {
		if strings.HasSuffix(s, u.suf) {
			n, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, u.suf)), 64)
			if err != nil || n < 0 {
				return 0, fmt.Errorf("must be a byte size like 100mb")
			}
			return int64(n * float64(u.m)), nil
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("must be a byte size like 100mb")
	}
	return n, nil
}

func parseDuration(v string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("must be a duration like 30s")
	}
	return d, nil
}

// nodeConfig describes the local node for the engine (nodes info, cat).
func nodeConfig(s Settings) cluster.NodeConfig {
	host := s.Get("http.host")
	if host == "" {
		host = s.Get("network.host")
	}
	flat := map[string]string{}
	for k, v := range s {
		if v != "" {
			flat[k] = v
		}
	}
	static := make([]string, 0, len(nodeSettings))
	for k := range nodeSettings {
		static = append(static, k)
	}
	return cluster.NodeConfig{
		Roles:          s.Roles(),
		Attributes:     s.Attributes(),
		Settings:       flat,
		Processors:     s.Int("node.processors"),
		HTTPAddress:    net.JoinHostPort(host, s.Get("http.port")),
		StaticSettings: static,
	}
}
