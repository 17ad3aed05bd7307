package analysis

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// params is the settings object of one analysis component.
type params map[string]json.RawMessage

// decodeObject decodes raw as a JSON object; null or empty input gives nil.
func decodeObject(raw json.RawMessage, what string) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, eserr.IllegalArgument("failed to parse analysis settings [%s]: expected an object", what)
	}
	return m, nil
}

// sortedKeys returns the keys of m in order, so errors are deterministic.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// str returns a string setting; numbers and booleans are accepted as their text
// (Elasticsearch settings are strings internally).
func (p params) str(key string) (string, bool) {
	raw, ok := p[key]
	if !ok {
		return "", false
	}
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, true
	}
	return string(raw), true
}

// integer returns an int setting or def when absent.
func (p params) integer(name, key string, def int) (int, error) {
	s, ok := p.str(key)
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, eserr.IllegalArgument("Failed to parse value [%s] for setting [index.analysis.%s.%s]", s, name, key)
	}
	return n, nil
}

// boolean returns a bool setting or def when absent.
func (p params) boolean(name, key string, def bool) (bool, error) {
	s, ok := p.str(key)
	if !ok {
		return def, nil
	}
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, eserr.IllegalArgument("Failed to parse value [%s] as only [true] or [false] are allowed.", s)
}

// list returns a list setting: a JSON array of scalars, or a single string.
func (p params) list(key string) ([]string, bool) {
	raw, ok := p[key]
	if !ok {
		return nil, false
	}
	var arr []json.RawMessage
	if err := json.Unmarshal(raw, &arr); err == nil {
		out := make([]string, 0, len(arr))
		for _, v := range arr {
			var s string
			if json.Unmarshal(v, &s) == nil {
				out = append(out, s)
			} else {
				out = append(out, string(bytes.TrimSpace(v)))
			}
		}
		return out, true
	}
	if s, ok := p.str(key); ok {
		return []string{s}, true
	}
	return nil, false
}

// nameList is like list but splits a single comma-separated string, as
// Elasticsearch does for "filter": "lowercase,asciifolding".
func (p params) nameList(key string) []string {
	raw, ok := p[key]
	if !ok {
		return nil
	}
	var arr []string
	if json.Unmarshal(raw, &arr) == nil {
		return arr
	}
	s, _ := p.str(key)
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
