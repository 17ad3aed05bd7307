package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path"
	"sort"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
)

// Deprecation messages of the 7.x typed and field-mapping APIs.
const (
	putMappingTypeNameWarning  = "[types removal] Using include_type_name in put mapping requests is deprecated. The parameter will be removed in the next major version."
	getMappingTypeNameWarning  = "[types removal] Using include_type_name in get mapping requests is deprecated. The parameter will be removed in the next major version."
	createIndexTypeNameWarning = "[types removal] Using include_type_name in create index requests is deprecated. The parameter will be removed in the next major version."
	getIndexTypeNameWarning    = "[types removal] Using `include_type_name` in get indices requests is deprecated. The parameter will be removed in the next major version."
	fieldMappingLocalWarning   = "Use [local] in get field mapping requests is deprecated. The parameter will be removed in the next major version"
	fieldMappingTypeWarning    = "[types removal] Using include_type_name in get field mapping requests is deprecated. The parameter will be removed in the next major version."
	defaultMappingWarning      = "[_default_] mapping is deprecated since it is not useful anymore now that indexes cannot have more than one type"
)

// IndicesPutMappingType answers the typed PUT /{index}/_mapping/{type}: as
// in 7.x it needs include_type_name=true, which is deprecated.
func (s *Server) IndicesPutMappingType(c echo.Context, index cluster.IndexListPath, typ cluster.MappingTypePath, p cluster.IndicesPutMappingTypeParams) error {
	if !s.typeNameParam(c, p.IncludeTypeName, putMappingTypeNameWarning) {
		return searchcore.IllegalArgument("Types cannot be provided in put mapping requests, unless the include_type_name parameter is set to true.")
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return searchcore.ValidationError("mapping source is empty")
	}
	indices, err := s.resolve(string(index), p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards)
	if err != nil {
		return err
	}
	if len(indices) == 0 {
		return searchcore.IndexNotFound(string(index))
	}
	if string(typ) == searchcore.DefaultMappingName {
		// The default mapping is replaced, not merged (SPEC "Mapping update").
		if err := s.core.PutDefaultMapping(c.Request().Context(), indices, body); err != nil {
			return err
		}
		s.deprecationWarning(c, defaultMappingWarning)
		return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
	}
	// The body is {"properties":...} or wrapped in the type: {"<type>":{...}}.
	if err := s.core.PutTypedMapping(c.Request().Context(), indices, string(typ), body); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{{"acknowledged", true}})
}

// IndicesPutMappingTypePost is the POST form of IndicesPutMappingType.
func (s *Server) IndicesPutMappingTypePost(c echo.Context, index cluster.IndexListPath, typ cluster.MappingTypePath, p cluster.IndicesPutMappingTypePostParams) error {
	return s.IndicesPutMappingType(c, index, typ, cluster.IndicesPutMappingTypeParams(p))
}

// IndicesGetFieldMapping answers GET /_mapping/field/{fields}.
func (s *Server) IndicesGetFieldMapping(c echo.Context, fields cluster.MappingFieldsPath, p cluster.IndicesGetFieldMappingParams) error {
	return s.getFieldMapping(c, "_all", string(fields), p)
}

// IndicesGetFieldMappingIndex answers GET /{index}/_mapping/field/{fields}.
func (s *Server) IndicesGetFieldMappingIndex(c echo.Context, index cluster.IndexListPath, fields cluster.MappingFieldsPath, p cluster.IndicesGetFieldMappingIndexParams) error {
	return s.getFieldMapping(c, string(index), string(fields), cluster.IndicesGetFieldMappingParams(p))
}

func (s *Server) getFieldMapping(c echo.Context, index, fields string, p cluster.IndicesGetFieldMappingParams) error {
	if p.Local != nil {
		// Deprecated in 7.8 and a no-op: mappings are always read locally.
		s.deprecationWarning(c, fieldMappingLocalWarning)
	}
	typed := s.typeNameParam(c, p.IncludeTypeName, fieldMappingTypeWarning)
	indices, err := s.resolve(index, p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards)
	if err != nil {
		return err
	}
	patterns := splitList(fields)
	out := orderedJSON{}
	for _, ix := range indices {
		all := map[string]json.RawMessage{}
		collectFields(ix.MappingJSON(), "", all)
		names := make([]string, 0, len(all))
		for name := range all {
			for _, pat := range patterns {
				if ok, _ := path.Match(pat, name); ok || pat == name {
					names = append(names, name)
					break
				}
			}
		}
		sort.Strings(names)
		mappings := orderedJSON{}
		for _, name := range names {
			leaf := name[strings.LastIndex(name, ".")+1:]
			mappings = append(mappings, kvPair{name, orderedJSON{{"full_name", name}, {"mapping", orderedJSON{{leaf, all[name]}}}}})
		}
		var wrapped any = mappings
		if typed {
			if typ := ix.MappingType(); typ == "" {
				wrapped = orderedJSON{}
			} else {
				wrapped = orderedJSON{{typ, mappings}}
			}
		}
		out = append(out, kvPair{ix.Name(), orderedJSON{{"mappings", wrapped}}})
	}
	return writeJSON(c, http.StatusOK, out)
}

// collectFields lists every field of a mapping by full path (objects'
// properties and multi-fields included) with its definition.
func collectFields(raw json.RawMessage, prefix string, out map[string]json.RawMessage) {
	var m struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Fields     map[string]json.RawMessage `json:"fields"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	for name, def := range m.Properties {
		full := prefix + name
		out[full] = def
		collectFields(def, full+".", out)
	}
	for name, def := range m.Fields {
		out[prefix+name] = def
	}
}

// mappingsJSON is an index's mapping for the get index and get mapping
// APIs: bare, or with include_type_name=true under its type name ({} while
// the index has no mapping), beside its _default_ mapping if it has one.
func mappingsJSON(idx *searchcore.Index, typed bool) any {
	if !typed {
		return idx.MappingJSON()
	}
	return typedMappingsJSON(idx)
}

// typedMappingsJSON lists an index's mappings by type name: _default_ (if
// set) first, then the index's type (once it has one).
func typedMappingsJSON(idx *searchcore.Index) orderedJSON {
	out := orderedJSON{}
	if def := idx.DefaultMappingJSON(); len(def) > 0 {
		out = append(out, kvPair{searchcore.DefaultMappingName, def})
	}
	if typ := idx.MappingType(); typ != "" {
		out = append(out, kvPair{typ, idx.MappingJSON()})
	}
	return out
}

// IndicesGetMappingType answers the typed GET /{index}/_mapping/{type} as
// 7.x RestGetMappingAction: it needs include_type_name=true; indices
// without a matching type are left out, and types found in no index make a
// 404 naming them beside the mappings found.
func (s *Server) IndicesGetMappingType(c echo.Context, index cluster.IndexListPath, typ cluster.MappingTypePath, p cluster.IndicesGetMappingTypeParams) error {
	if !boolParam(p.IncludeTypeName, false) {
		return searchcore.IllegalArgument("Types cannot be provided in get mapping requests, unless include_type_name is set to true.")
	}
	s.deprecationWarning(c, getMappingTypeNameWarning)
	indices, err := s.resolve(string(index), p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards)
	if err != nil {
		return err
	}
	patterns := splitList(string(typ))
	found := map[string]bool{}
	out := orderedJSON{}
	for _, ix := range indices {
		kept := orderedJSON{}
		for _, kv := range typedMappingsJSON(ix) {
			for _, pat := range patterns {
				if typeMatches(pat, kv.K) {
					kept = append(kept, kv)
					found[kv.K] = true
					break
				}
			}
		}
		if len(kept) > 0 {
			out = append(out, kvPair{ix.Name(), orderedJSON{{"mappings", kept}}})
		}
	}
	// Patterns that matched no type of any index are missing.
	var missing []string
	for _, pat := range patterns {
		hit := false
		for name := range found {
			hit = hit || typeMatches(pat, name)
		}
		if !hit && pat != "_all" {
			missing = append(missing, pat)
		}
	}
	if len(missing) == 0 {
		return writeJSON(c, http.StatusOK, out)
	}
	sort.Strings(missing)
	noun := "type"
	if len(missing) > 1 {
		noun = "types"
	}
	body := append(orderedJSON{{"error", noun + " [" + strings.Join(missing, ",") + "] missing"}, {"status", http.StatusNotFound}}, out...)
	return writeJSON(c, http.StatusNotFound, body)
}

// typeMatches reports whether a type pattern of the get mapping API (a
// name, _all, or a wildcard pattern) selects the type name.
func typeMatches(pat, name string) bool {
	ok, _ := path.Match(pat, name)
	return ok || pat == name || pat == "_all"
}

// typedMappings reads the mappings of a create index request into req: as
// given, or with include_type_name=true as {"<type>": {...}}, setting the
// type's own mapping and the type name; a _default_ member is the index's
// default mapping.
func typedMappings(raw json.RawMessage, index string, typed bool, req *searchcore.CreateIndexRequest) error {
	req.Mappings = raw
	if !typed {
		return nil
	}
	members, err := decodeMembers(raw)
	if err != nil || len(members) == 0 {
		return err
	}
	req.Mappings = nil
	if def, ok := members[searchcore.DefaultMappingName]; ok {
		req.DefaultMapping = def
		delete(members, searchcore.DefaultMappingName)
	}
	var types []string
	for k := range members {
		types = append(types, k)
	}
	switch {
	case len(types) > 1:
		sort.Strings(types)
		return searchcore.IllegalArgument("Rejecting mapping update to [%s] as the final mapping would have more than 1 type: [%s]", index, strings.Join(types, ", "))
	case len(types) == 1:
		req.Mappings, req.MappingType = members[types[0]], types[0]
	}
	return nil
}
