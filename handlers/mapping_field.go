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
)

// IndicesPutMappingType answers the typed PUT /{index}/_mapping/{type}: as
// in 7.x it needs include_type_name=true, which is deprecated.
func (s *Server) IndicesPutMappingType(c echo.Context, index cluster.IndexListPath, typ cluster.MappingTypePath, p cluster.IndicesPutMappingTypeParams) error {
	if p.IncludeTypeName != nil {
		s.deprecationWarning(c, putMappingTypeNameWarning)
	}
	if !boolParam(p.IncludeTypeName, false) {
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
	if string(typ) == "_default_" {
		return searchcore.IllegalArgument("The [default] mapping cannot be updated on index [%s]: [_default_] mappings are not allowed on new indices and should no longer be used. See [https://www.elastic.co/guide/en/elasticsearch/reference/current/breaking-changes-7.0.html#default-mapping-not-allowed] for more information.", indices[0].Name())
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
	if p.IncludeTypeName != nil {
		s.deprecationWarning(c, fieldMappingTypeWarning)
	}
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
		if boolParam(p.IncludeTypeName, false) {
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
// the index has no mapping).
func mappingsJSON(idx *searchcore.Index, typed bool) any {
	if !typed {
		return idx.MappingJSON()
	}
	typ := idx.MappingType()
	if typ == "" {
		return orderedJSON{}
	}
	return orderedJSON{{typ, idx.MappingJSON()}}
}

// typedMappings reads the mappings of a create index request: as given, or
// with include_type_name=true as {"<type>": {...}}, returning the type's own
// mapping and the type name.
func typedMappings(raw json.RawMessage, index string, typed bool) (json.RawMessage, string, error) {
	if !typed {
		return raw, "", nil
	}
	members, err := decodeMembers(raw)
	if err != nil || len(members) == 0 {
		return raw, "", err
	}
	var types []string
	for k := range members {
		types = append(types, k)
	}
	if len(types) > 1 {
		sort.Strings(types)
		return nil, "", searchcore.IllegalArgument("Rejecting mapping update to [%s] as the final mapping would have more than 1 type: [%s]", index, strings.Join(types, ", "))
	}
	return members[types[0]], types[0], nil
}
