package cluster

import (
	"bytes"
	"encoding/json"
	"path"
	"sort"
	"strings"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Template is an index template: composable (`_index_template`, chosen by
// priority, the single best match applies) or legacy (`_template`, every
// match applies, merged by ascending order). Settings are flat, normalised
// keys (index.*); Mappings is a typeless mapping object; Aliases maps alias
// names to their definitions.
type Template struct {
	Name   string `json:"name"`
	Legacy bool   `json:"legacy,omitempty"`
	// Component marks a component template (`_component_template`): the
	// settings, mappings and aliases composable templates are built from
	// (composed_of); it has no index patterns of its own.
	Component     bool                       `json:"component,omitempty"`
	IndexPatterns []string                   `json:"index_patterns"`
	Settings      map[string]any             `json:"settings,omitempty"`
	Mappings      json.RawMessage            `json:"mappings,omitempty"`
	Aliases       map[string]json.RawMessage `json:"aliases,omitempty"`
	ComposedOf    []string                   `json:"composed_of,omitempty"`
	Priority      *int64                     `json:"priority,omitempty"`
	Order         int64                      `json:"order,omitempty"`
	Version       *int64                     `json:"version,omitempty"`
	Meta          json.RawMessage            `json:"_meta,omitempty"`
}

// Matches reports whether the template applies to an index name.
// Like Elasticsearch, a catch-all "*" pattern does not apply to hidden
// (dot-prefixed) indices.
func (t *Template) Matches(index string) bool {
	for _, p := range t.IndexPatterns {
		if p == "*" && strings.HasPrefix(index, ".") {
			continue
		}
		if ok, _ := path.Match(p, index); ok && !strings.Contains(p, "/") {
			return true
		}
		if p == index {
			return true
		}
	}
	return false
}

func (t *Template) priority() int64 {
	if t.Priority == nil {
		return 0
	}
	return *t.Priority
}

// Templates returns the templates of one kind, sorted by name.
func (s *State) Templates(legacy bool) []*Template {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []*Template
	for _, t := range s.templates {
		if t.Legacy == legacy && !t.Component {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ComponentTemplates returns the component templates, sorted by name.
func (s *State) ComponentTemplates() []*Template {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []*Template
	for _, t := range s.templates {
		if t.Component {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (t *Template) key() string {
	switch {
	case t.Component:
		return componentKey(t.Name)
	case t.Legacy:
		return "legacy/" + t.Name
	}
	return "index/" + t.Name
}

func componentKey(name string) string { return "component/" + name }

// PutTemplate stores a template. With create, an existing one is an error.
// Composable templates with overlapping patterns need distinct priorities.
func (s *State) PutTemplate(t *Template, create bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(t.IndexPatterns) == 0 && !t.Component {
		return eserr.ValidationError("index patterns are missing")
	}
	key := t.key()
	if _, ok := s.templates[key]; ok && create {
		if t.Component {
			return eserr.IllegalArgument("component template [%s] already exists", t.Name)
		}
		return eserr.IllegalArgument("index template [%s] already exists", t.Name)
	}
	if !t.Legacy && !t.Component {
		var missing []string
		for _, c := range t.ComposedOf {
			if _, ok := s.templates[componentKey(c)]; !ok {
				missing = append(missing, c)
			}
		}
		if len(missing) > 0 {
			return eserr.IllegalArgument("index template [%s] specifies component templates %s that do not exist", t.Name, "["+strings.Join(missing, ", ")+"]")
		}
		var clash []string
		for k, o := range s.templates {
			if o.Legacy || o.Component || k == key || o.priority() != t.priority() || !overlap(o.IndexPatterns, t.IndexPatterns) {
				continue
			}
			clash = append(clash, o.Name+" => ["+strings.Join(o.IndexPatterns, ", ")+"]")
		}
		if len(clash) > 0 {
			sort.Strings(clash)
			names := make([]string, len(clash))
			for i, c := range clash {
				names[i], _, _ = strings.Cut(c, " => ")
			}
			return eserr.IllegalArgument("index template [%s] has index patterns [%s] matching patterns from existing templates [%s] with patterns (%s) that have the same priority [%d], multiple index templates may not match during index creation, please use a different priority",
				t.Name, strings.Join(t.IndexPatterns, ", "), strings.Join(names, ","), strings.Join(clash, ","), t.priority())
		}
	}
	if s.templates == nil {
		s.templates = map[string]*Template{}
	}
	s.templates[key] = t
	return nil
}

// DeleteTemplates removes the templates of one kind whose names match a
// comma-separated list of names or wildcards; it returns what it removed.
func (s *State) DeleteTemplates(legacy bool, names string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var removed []string
	for k, t := range s.templates {
		if t.Legacy == legacy && !t.Component && NameMatches(names, t.Name) {
			delete(s.templates, k)
			removed = append(removed, t.Name)
		}
	}
	sort.Strings(removed)
	return removed
}

// DeleteComponentTemplates removes the component templates matching a
// comma-separated list of names or wildcards and returns their names.
// Like Elasticsearch it removes nothing while a composable template still
// uses one of them.
func (s *State) DeleteComponentTemplates(names string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var matched []string
	for _, t := range s.templates {
		if t.Component && NameMatches(names, t.Name) {
			matched = append(matched, t.Name)
		}
	}
	sort.Strings(matched)
	inUse := map[string]bool{}
	var users []string
	for _, t := range s.templates {
		if t.Legacy || t.Component {
			continue
		}
		used := false
		for _, c := range t.ComposedOf {
			for _, m := range matched {
				if c == m {
					inUse[m], used = true, true
				}
			}
		}
		if used {
			users = append(users, t.Name)
		}
	}
	if len(users) > 0 {
		var comps []string
		for _, m := range matched {
			if inUse[m] {
				comps = append(comps, m)
			}
		}
		sort.Strings(users)
		return nil, eserr.IllegalArgument("component templates [%s] cannot be removed as they are still in use by index templates [%s]", strings.Join(comps, ", "), strings.Join(users, ", "))
	}
	for _, m := range matched {
		delete(s.templates, componentKey(m))
	}
	return matched, nil
}

// NameMatches matches a name against a comma-separated list of names or
// wildcard patterns ("" and _all match everything).
func NameMatches(list, name string) bool {
	if list == "" || list == "_all" {
		return true
	}
	for _, p := range strings.Split(list, ",") {
		if ok, _ := path.Match(strings.TrimSpace(p), name); ok {
			return true
		}
	}
	return false
}

// overlap reports whether two pattern lists can match a common name (like
// Elasticsearch: one pattern matches the other, in either direction).
func overlap(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			ok1, _ := path.Match(x, y)
			ok2, _ := path.Match(y, x)
			if ok1 || ok2 || x == y {
				return true
			}
		}
	}
	return false
}

// TemplatesFor returns the templates that apply to a new index, in the
// order they are applied (later ones override earlier ones): the one
// best-priority composable template preceded by its component templates
// in composed_of order, or else the matching legacy templates by
// ascending order.
func (s *State) TemplatesFor(index string) []*Template {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var best *Template
	var legacy []*Template
	for _, t := range s.templates {
		if t.Component || !t.Matches(index) {
			continue
		}
		if t.Legacy {
			legacy = append(legacy, t)
		} else if best == nil || t.priority() > best.priority() {
			best = t
		}
	}
	if best != nil {
		out := make([]*Template, 0, len(best.ComposedOf)+1)
		for _, c := range best.ComposedOf {
			if ct, ok := s.templates[componentKey(c)]; ok {
				out = append(out, ct)
			}
		}
		return append(out, best)
	}
	sort.Slice(legacy, func(i, j int) bool {
		if legacy[i].Order != legacy[j].Order {
			return legacy[i].Order < legacy[j].Order
		}
		return legacy[i].Name < legacy[j].Name
	})
	return legacy
}

// MergeMappings deep-merges mapping objects: objects merge member by member
// (so properties accumulate), anything else is replaced by the later value.
func MergeMappings(list ...json.RawMessage) (json.RawMessage, error) {
	var acc map[string]any
	for _, raw := range list {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			return nil, eserr.MapperParsing("Failed to parse mapping: %v", err)
		}
		if acc == nil {
			acc = map[string]any{}
		}
		deepMerge(acc, m)
	}
	if acc == nil {
		return nil, nil
	}
	return json.Marshal(acc)
}

func deepMerge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				deepMerge(dm, sm)
				continue
			}
			cp := map[string]any{}
			deepMerge(cp, sm)
			dst[k] = cp
			continue
		}
		dst[k] = v
	}
}
