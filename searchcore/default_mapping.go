package searchcore

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

// DefaultMappingName is the name of the _default_ mapping of the typed
// (6.x style) mapping APIs.
const DefaultMappingName = "_default_"

// DefaultMappingJSON returns the index's _default_ mapping as rendered, or
// nil when it has none.
func (ix *Index) DefaultMappingJSON() json.RawMessage {
	return ix.metaSnapshot().DefaultMapping
}

// PutDefaultMapping stores the _default_ mapping of each index, replacing
// the one it had (no merge, as Elasticsearch 6.x). The body is the mapping,
// bare or wrapped as {"_default_":{...}}; it is validated like any mapping.
// It leaves the index's own mapping type alone: the default only becomes
// the base of the index's first type (see withDefaults).
func (e *Engine) PutDefaultMapping(ctx context.Context, indices []*Index, body json.RawMessage) error {
	body, _ = unwrapMember(body, DefaultMappingName)
	rendered := make([]json.RawMessage, len(indices))
	for i, idx := range indices {
		mp, err := mapping.Parse(body, idx.Analyzers())
		if err != nil {
			return err
		}
		if rendered[i], err = json.Marshal(mp); err != nil {
			return err
		}
	}
	for i, idx := range indices {
		if err := idx.setDefaultMapping(ctx, rendered[i]); err != nil {
			return err
		}
	}
	return nil
}

// setDefaultMapping persists and publishes a new _default_ mapping.
func (ix *Index) setDefaultMapping(ctx context.Context, raw json.RawMessage) error {
	ix.metaMu.Lock()
	defer ix.metaMu.Unlock()
	m := *ix.meta
	m.DefaultMapping = raw
	m.Version++
	if err := ix.engine.persistMeta(ctx, &m); err != nil {
		return err
	}
	ix.meta = &m
	return nil
}

// hasType reports whether the index has a mapping type yet: one a mapping
// request named, or any mapping at all (dynamic or from a template).
func (m *indexMeta) hasType() bool {
	if m.MappingType != "" {
		return true
	}
	raw := bytes.TrimSpace(m.Mapping)
	return len(raw) > 0 && string(raw) != "{}" && string(raw) != "null"
}

// defaultBase is the mapping the first document of an index without a
// type is parsed against: its _default_ mapping, or nil when the index has
// a type already or no default. The caller holds metaMu.
func (ix *Index) defaultBase() (*mapping.Mapping, error) {
	m := ix.meta
	if raw := bytes.TrimSpace(m.DefaultMapping); len(raw) == 0 || string(raw) == "{}" || m.hasType() {
		return nil, nil
	}
	return mapping.Parse(m.DefaultMapping, ix.analyzers)
}

// withDefaults applies a _default_ mapping to the first mapping of a type
// as Elasticsearch's XContentHelper.mergeDefaults: members of defaults
// missing from content are added, objects merge recursively, and content
// wins on conflicts. Lists of single-key objects (dynamic_templates) merge
// by key, the default entries after the content ones; other lists are the
// defaults followed by the content values not already present.
func withDefaults(content, defaults json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(defaults)) == 0 {
		return content, nil
	}
	c, err := decodeObjectNumbers(content)
	if err != nil || c == nil {
		// Not an object: the mapping parser reports it.
		return content, nil
	}
	d, err := decodeObjectNumbers(defaults)
	if err != nil {
		return nil, err
	}
	mergeDefaults(c, d)
	return json.Marshal(c)
}

// decodeObjectNumbers decodes a JSON object keeping numbers exact.
func decodeObjectNumbers(raw json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

func mergeDefaults(content, defaults map[string]any) {
	for k, dv := range defaults {
		cv, ok := content[k]
		if !ok {
			content[k] = dv
			continue
		}
		switch d := dv.(type) {
		case map[string]any:
			if c, ok := cv.(map[string]any); ok {
				mergeDefaults(c, d)
			}
		case []any:
			if c, ok := cv.([]any); ok {
				content[k] = mergeDefaultList(c, d)
			}
		}
	}
}

func mergeDefaultList(content, defaults []any) []any {
	if singleKeyObjects(content) && singleKeyObjects(defaults) {
		out := append([]any(nil), content...)
		index := map[string]map[string]any{}
		for _, v := range content {
			for k, inner := range v.(map[string]any) {
				if m, ok := inner.(map[string]any); ok {
					index[k] = m
				}
			}
		}
		for _, v := range defaults {
			for k, inner := range v.(map[string]any) {
				if m, ok := index[k]; ok {
					if dm, ok := inner.(map[string]any); ok {
						mergeDefaults(m, dm)
					}
					continue
				}
				out = append(out, v)
			}
		}
		return out
	}
	out := append([]any(nil), defaults...)
	for _, v := range content {
		found := false
		for _, o := range out {
			if reflect.DeepEqual(o, v) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, v)
		}
	}
	return out
}

// singleKeyObjects reports whether every value is an object of one member.
func singleKeyObjects(vals []any) bool {
	for _, v := range vals {
		if m, ok := v.(map[string]any); !ok || len(m) != 1 {
			return false
		}
	}
	return true
}
