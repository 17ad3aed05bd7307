package searchcore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/quarry-search/quarry/searchcore/mapping"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/quarry-search/quarry/searchcore/highlight"
)

// IndexSettings are the parsed settings the core acts on.
type IndexSettings struct {
	NumberOfShards int
	// RoutingShards is index.number_of_routing_shards (routing hash space).
	RoutingShards        int
	NumberOfReplicas     int
	RefreshInterval      time.Duration // <= 0 disables periodic refresh
	MaxResultWindow      int
	MaxTermsCount        int
	MaxRegexLength       int
	MaxSlicesPerScroll   int
	MaxInnerResultWindow int
	// MaxDocvalueFields and MaxScriptFields are
	// index.max_docvalue_fields_search and index.max_script_fields.
	MaxDocvalueFields int
	MaxScriptFields   int
	// HighlightMaxAnalyzedOffset is index.highlight.max_analyzed_offset.
	HighlightMaxAnalyzedOffset int
	// MaxRescoreWindow is index.max_rescore_window (0: max_result_window).
	MaxRescoreWindow int
	// NestedObjectsLimit is index.mapping.nested_objects.limit.
	NestedObjectsLimit int
	Hidden             bool
	// Analysis is the index.analysis object, rebuilt from the flat keys.
	Analysis json.RawMessage
}

// staticSettings cannot change on an open index.
var staticSettings = map[string]struct{}{
	"index.number_of_shards":         {},
	"index.uuid":                     {},
	"index.creation_date":            {},
	"index.provided_name":            {},
	"index.version.created":          {},
	"index.number_of_routing_shards": {},
	"index.codec":                    {},
}

// knownSettings lists accepted index settings (besides the prefixes below).
var knownSettings = map[string]struct{}{
	"index.number_of_shards": {}, "index.number_of_replicas": {}, "index.refresh_interval": {},
	"index.max_result_window": {}, "index.max_inner_result_window": {}, "index.max_terms_count": {},
	"index.max_regex_length": {}, "index.max_slices_per_scroll": {}, "index.max_docvalue_fields_search": {},
	"index.max_script_fields": {}, "index.max_ngram_diff": {}, "index.max_shingle_diff": {},
	"index.max_rescore_window": {}, "index.max_adjacency_matrix_filters": {}, "index.max_refresh_listeners": {},
	"index.max_analyzed_offset": {}, "index.hidden": {}, "index.auto_expand_replicas": {},
	"index.search.idle.after": {}, "index.codec": {}, "index.uuid": {}, "index.creation_date": {},
	"index.provided_name": {}, "index.version.created": {}, "index.version.upgraded": {},
	"index.number_of_routing_shards": {}, "index.gc_deletes": {}, "index.default_pipeline": {},
	"index.final_pipeline": {}, "index.priority": {}, "index.query.default_field": {},
	"index.shard.check_on_startup": {}, "index.load_fixed_bitset_filters_eagerly": {},
	"index.format": {}, "index.frozen": {}, "index.requests.cache.enable": {}, "index.soft_deletes.enabled": {},
	"index.soft_deletes.retention_lease.period": {}, "index.routing_partition_size": {},
	"index.write.wait_for_active_shards": {}, "index.unassigned.node_left.delayed_timeout": {},
	"index.mapping.coerce": {}, "index.mapping.ignore_malformed": {}, "index.sort.field": {}, "index.sort.order": {},
	"index.lifecycle.name": {}, "index.lifecycle.rollover_alias": {}, "index.merge.scheduler.max_thread_count": {},
	"index.translog.durability": {}, "index.translog.sync_interval": {}, "index.translog.flush_threshold_size": {},
	"index.store.type": {}, "index.store.preload": {}, "index.highlight.max_analyzed_offset": {},
}

// knownPrefixes lists setting namespaces accepted as a whole.
var knownPrefixes = []string{
	"index.analysis.", "index.routing.", "index.blocks.", "index.mapping.", "index.similarity.",
	"index.merge.", "index.translog.", "index.indexing.slowlog.", "index.search.slowlog.",
	"index.lifecycle.", "index.store.", "index.queries.", "index.shard.", "index.sort.", "index.version.",
	"index.soft_deletes.", "index.search.",
}

// flattenSettings turns a settings object (nested or flat, with or without
// the "index." prefix) into flat "index.*" keys. Leaf values become strings
// (ES stores settings as strings), arrays lists of strings, null stays nil.
func flattenSettings(raw json.RawMessage) (map[string]any, error) {
	out := make(map[string]any)
	raw = trimJSON(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return nil, Errorf(Invalid, "settings_exception", "Failed to load settings from [%s]", string(raw)).
			Caused(Errorf(Invalid, "json_parse_exception", "%s", err.Error()))
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return nil, Errorf(Invalid, "settings_exception", "Failed to load settings from [%s]", string(raw))
	}
	var walk func(prefix string, v any) error
	walk = func(prefix string, v any) error {
		switch t := v.(type) {
		case map[string]any:
			for k, sub := range t {
				if err := walk(prefix+k+".", sub); err != nil {
					return err
				}
			}
			return nil
		case []any:
			list := make([]string, 0, len(t))
			for _, x := range t {
				list = append(list, settingString(x))
			}
			out[strings.TrimSuffix(prefix, ".")] = list
		case nil:
			out[strings.TrimSuffix(prefix, ".")] = nil
		default:
			out[strings.TrimSuffix(prefix, ".")] = settingString(t)
		}
		return nil
	}
	if err := walk("", obj); err != nil {
		return nil, err
	}
	norm := make(map[string]any, len(out))
	for k, v := range out {
		if !strings.HasPrefix(k, "index.") {
			k = "index." + k
		}
		norm[k] = v
	}
	return norm, nil
}

func settingString(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return t.String()
	case bool:
		return strconv.FormatBool(t)
	default:
		b, _ := json.Marshal(t)
		return string(b)
	}
}

// parseIndexSettings validates flat settings and extracts what the core uses.
func parseIndexSettings(flat map[string]any) (*IndexSettings, error) {
	s := &IndexSettings{
		NumberOfShards:             1,
		NumberOfReplicas:           1,
		RefreshInterval:            time.Second,
		MaxResultWindow:            10000,
		MaxTermsCount:              65536,
		MaxRegexLength:             1000,
		MaxSlicesPerScroll:         1024,
		MaxInnerResultWindow:       100,
		MaxDocvalueFields:          DefaultMaxDocvalueFields,
		MaxScriptFields:            DefaultMaxScriptFields,
		HighlightMaxAnalyzedOffset: highlight.DefaultMaxAnalyzedOffset,
		NestedObjectsLimit:         mapping.NestedObjectsLimit,
	}
	for k, v := range flat {
		if k == verifiedBeforeClose {
			return nil, IllegalArgument("private index setting [%s] can not be set explicitly", k)
		}
		if !isKnownSetting(k) {
			return nil, IllegalArgument("unknown setting [%s] please check that any required plugins are installed, or check the breaking changes documentation for removed settings", k)
		}
		str, _ := v.(string)
		var err error
		switch k {
		case "index.number_of_shards":
			s.NumberOfShards, err = intSetting(k, str, 1, 1024)
		case "index.number_of_routing_shards":
			s.RoutingShards, err = intSetting(k, str, 1, 1<<20)
		case "index.number_of_replicas":
			s.NumberOfReplicas, err = intSetting(k, str, 0, 1<<30)
		case "index.max_result_window":
			s.MaxResultWindow, err = intSetting(k, str, 1, 1<<31-1)
		case "index.max_terms_count":
			s.MaxTermsCount, err = intSetting(k, str, 1, 1<<31-1)
		case "index.max_regex_length":
			s.MaxRegexLength, err = intSetting(k, str, 1, 1<<31-1)
		case "index.max_slices_per_scroll":
			s.MaxSlicesPerScroll, err = intSetting(k, str, 1, 1<<31-1)
		case "index.max_inner_result_window":
			s.MaxInnerResultWindow, err = intSetting(k, str, 1, 1<<31-1)
		case "index.max_docvalue_fields_search":
			s.MaxDocvalueFields, err = intSetting(k, str, 0, 1<<31-1)
		case "index.max_script_fields":
			s.MaxScriptFields, err = intSetting(k, str, 0, 1<<31-1)
		case "index.highlight.max_analyzed_offset":
			s.HighlightMaxAnalyzedOffset, err = intSetting(k, str, 1, 1<<31-1)
		case "index.max_rescore_window":
			s.MaxRescoreWindow, err = intSetting(k, str, 1, 1<<31-1)
		case "index.mapping.nested_objects.limit":
			s.NestedObjectsLimit, err = intSetting(k, str, 0, 1<<31-1)
		case "index.refresh_interval":
			var d time.Duration
			d, err = ParseTimeValue(str, k)
			s.RefreshInterval = d
		case "index.hidden":
			s.Hidden, err = boolSetting(k, str)
		}
		if err != nil {
			return nil, err
		}
	}
	if s.RoutingShards == 0 {
		s.RoutingShards = defaultRoutingShards(s.NumberOfShards)
	}
	if s.RoutingShards < s.NumberOfShards || s.RoutingShards%s.NumberOfShards != 0 {
		return nil, IllegalArgument("the number of source shards [%d] must be a factor of [%d]", s.NumberOfShards, s.RoutingShards)
	}
	analysis, err := nestSettings(flat, "index.analysis.")
	if err != nil {
		return nil, err
	}
	s.Analysis = analysis
	return s, nil
}

func isKnownSetting(k string) bool {
	if _, ok := knownSettings[k]; ok {
		return true
	}
	for _, p := range knownPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

func intSetting(key, v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, IllegalArgument("Failed to parse value [%s] for setting [%s]", v, key)
	}
	if n < lo {
		return 0, IllegalArgument("Failed to parse value [%s] for setting [%s] must be >= %d", v, key, lo)
	}
	if n > hi {
		return 0, IllegalArgument("Failed to parse value [%s] for setting [%s] must be <= %d", v, key, hi)
	}
	return n, nil
}

func boolSetting(key, v string) (bool, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, IllegalArgument("Failed to parse value [%s] as only [true] or [false] are allowed.", v)
}

// ParseTimeValue parses an Elasticsearch time value ("1s", "500ms", "2m",
// "-1" meaning disabled, returned as -1).
func ParseTimeValue(v, setting string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if v == "-1" {
		return -1, nil
	}
	if v == "0" {
		return 0, nil
	}
	units := []struct {
		suffix string
		mul    time.Duration
	}{{"nanos", time.Nanosecond}, {"micros", time.Microsecond}, {"ms", time.Millisecond}, {"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}, {"d", 24 * time.Hour}}
	lower := strings.ToLower(v)
	for _, u := range units {
		if strings.HasSuffix(lower, u.suffix) {
			num := strings.TrimSpace(lower[:len(lower)-len(u.suffix)])
			if n, err := strconv.ParseInt(num, 10, 64); err == nil && n >= 0 {
				return time.Duration(n) * u.mul, nil
			}
			if f, err := strconv.ParseFloat(num, 64); err == nil && f >= 0 {
				return time.Duration(f * float64(u.mul)), nil
			}
			break
		}
	}
	return 0, Errorf(Invalid, "illegal_argument_exception",
		"failed to parse setting [%s] with value [%s] as a time value: unit is missing or unrecognized", setting, v)
}

// nestSettings rebuilds the nested object below prefix from flat keys.
func nestSettings(flat map[string]any, prefix string) (json.RawMessage, error) {
	root := map[string]any{}
	found := false
	for k, v := range flat {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		found = true
		setNested(root, strings.Split(strings.TrimPrefix(k, prefix), "."), v)
	}
	if !found {
		return nil, nil
	}
	return json.Marshal(root)
}

func setNested(m map[string]any, parts []string, v any) {
	for i, p := range parts {
		if i == len(parts)-1 {
			m[p] = v
			return
		}
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
}

// RenderSettings renders flat settings nested (ES default) or flat.
func RenderSettings(flat map[string]any, flatForm bool) map[string]any {
	if flatForm {
		out := make(map[string]any, len(flat))
		for k, v := range flat {
			out[k] = v
		}
		return out
	}
	root := map[string]any{}
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		setNested(root, strings.Split(k, "."), flat[k])
	}
	return root
}

// SettingsFlat returns a copy of the index's flat settings; a closed
// index also has index.verified_before_close, as Elasticsearch adds it on
// closing (and removes it on opening).
func (ix *Index) SettingsFlat() map[string]any {
	m := ix.metaSnapshot()
	out := make(map[string]any, len(m.Settings)+1)
	for k, v := range m.Settings {
		out[k] = v
	}
	if m.State == stateClosed {
		out[verifiedBeforeClose] = "true"
	}
	return out
}

// Aliases returns a copy of the index's aliases.
func (ix *Index) Aliases() map[string]*AliasMeta {
	m := ix.metaSnapshot()
	out := make(map[string]*AliasMeta, len(m.Aliases))
	for k, v := range m.Aliases {
		out[k] = v
	}
	return out
}

// MappingJSON returns the rendered mapping.
func (ix *Index) MappingJSON() json.RawMessage {
	return ix.metaSnapshot().Mapping
}

// MappingType is the index's mapping type as the 7.x typed APIs see it: the
// type a typed or typeless mapping request set, else _doc once the index has
// any mapping (dynamic or from a template), else empty (no mapping yet).
func (ix *Index) MappingType() string {
	m := ix.metaSnapshot()
	switch {
	case m.MappingType != "":
		return m.MappingType
	case m.hasType():
		return DefaultMappingType
	}
	return ""
}

// String implements fmt.Stringer for logs.
func (ix *Index) String() string { return fmt.Sprintf("[%s/%s]", ix.Name(), ix.UUID()) }
