package security

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// RoleDescriptor is a role: cluster privileges, index privileges (with
// document- and field-level security), run_as, applications and metadata.
type RoleDescriptor struct {
	Cluster           []string               `json:"cluster"`
	Indices           []IndicesPrivileges    `json:"indices"`
	Applications      []ApplicationPrivilege `json:"applications"`
	RunAs             []string               `json:"run_as"`
	Metadata          map[string]any         `json:"metadata"`
	TransientMetadata map[string]any         `json:"transient_metadata,omitempty"`
}

// IndicesPrivileges grants privileges on the indices whose names match
// Names; Query restricts the visible documents, FieldSecurity the fields.
type IndicesPrivileges struct {
	Names                  []string        `json:"names"`
	Privileges             []string        `json:"privileges"`
	FieldSecurity          *FieldSecurity  `json:"field_security,omitempty"`
	Query                  json.RawMessage `json:"query,omitempty"`
	AllowRestrictedIndices bool            `json:"allow_restricted_indices"`
}

// FieldSecurity lists the granted fields minus the excepted ones
// (wildcards allowed).
type FieldSecurity struct {
	Grant  []string `json:"grant"`
	Except []string `json:"except,omitempty"`
}

// ApplicationPrivilege grants application privileges on resources.
type ApplicationPrivilege struct {
	Application string   `json:"application"`
	Privileges  []string `json:"privileges"`
	Resources   []string `json:"resources"`
}

// normalize replaces nil lists and maps with empty ones (JSON [] and {}).
func (r *RoleDescriptor) normalize() {
	if r.Cluster == nil {
		r.Cluster = []string{}
	}
	if r.Indices == nil {
		r.Indices = []IndicesPrivileges{}
	}
	if r.Applications == nil {
		r.Applications = []ApplicationPrivilege{}
	}
	if r.RunAs == nil {
		r.RunAs = []string{}
	}
	if r.Metadata == nil {
		r.Metadata = map[string]any{}
	}
	for i := range r.Indices {
		if r.Indices[i].Privileges == nil {
			r.Indices[i].Privileges = []string{}
		}
	}
}

// ValidateRoleName checks a role name (1 to 507 printable ASCII characters,
// no leading or trailing whitespace).
func ValidateRoleName(name string) error {
	return validateName("Role", name, 507)
}

func validateName(kind, name string, max int) error {
	ok := len(name) >= 1 && len(name) <= max && strings.TrimSpace(name) == name
	for _, c := range name {
		if c < 0x20 || c > 0x7e {
			ok = false
		}
	}
	if !ok {
		return eserr.ValidationError(fmt.Sprintf("%s names must be at least 1 and no more than %d characters. They can contain alphanumeric characters (a-z, A-Z, 0-9), spaces, punctuation, and printable symbols in the Basic Latin (ASCII) block. Leading or trailing whitespace is not allowed.", kind, max))
	}
	return nil
}

func roleParseError(name, format string, args ...any) *eserr.Error {
	return eserr.Errorf(eserr.Invalid, "parse_exception", "failed to parse role [%s]. %s", name, fmt.Sprintf(format, args...))
}

func indicesParseError(name, format string, args ...any) *eserr.Error {
	return eserr.Errorf(eserr.Invalid, "parse_exception", "failed to parse indices privileges for role [%s]. %s", name, fmt.Sprintf(format, args...))
}

// jsonKind names a JSON value's type the way Elasticsearch's parser does.
func jsonKind(raw json.RawMessage) string { return searchcore.TokenName(raw) }

// stringList reads a string or an array of strings.
func stringList(raw json.RawMessage) ([]string, bool) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, true
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil && jsonKind(raw) == "START_ARRAY" {
		if many == nil {
			many = []string{}
		}
		return many, true
	}
	return nil, false
}

// ParseRoleDescriptor parses a role body (an empty body is an empty role)
// and validates its privilege names. Errors are Elasticsearch's
// parse_exception and action_request_validation_exception.
func ParseRoleDescriptor(name string, body []byte) (*RoleDescriptor, error) {
	r := &RoleDescriptor{}
	if len(bytes.TrimSpace(body)) == 0 {
		r.normalize()
		return r, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		if jsonKind(body) != "START_OBJECT" {
			return nil, roleParseError(name, "expected an object but found [%s] instead", jsonKind(body))
		}
		return nil, roleParseError(name, "invalid JSON: %s", jsonErrText(err))
	}
	for _, k := range sortedKeys(top) {
		raw := top[k]
		switch k {
		case "cluster":
			l, ok := stringList(raw)
			if !ok {
				return nil, roleParseError(name, "expected field [cluster] value to be an array of strings, but found [%s] instead", jsonKind(raw))
			}
			r.Cluster = l
		case "run_as":
			l, ok := stringList(raw)
			if !ok {
				return nil, roleParseError(name, "expected field [run_as] value to be an array of strings, but found [%s] instead", jsonKind(raw))
			}
			r.RunAs = l
		case "indices", "index":
			var items []json.RawMessage
			if jsonKind(raw) != "START_ARRAY" || json.Unmarshal(raw, &items) != nil {
				return nil, roleParseError(name, "expected field [%s] value to be an array, but found [%s] instead", k, jsonKind(raw))
			}
			for _, it := range items {
				ip, err := parseIndicesPrivileges(name, it)
				if err != nil {
					return nil, err
				}
				r.Indices = append(r.Indices, ip)
			}
		case "applications", "application":
			if jsonKind(raw) != "START_ARRAY" || json.Unmarshal(raw, &r.Applications) != nil {
				return nil, roleParseError(name, "expected field [%s] value to be an array of application privileges, but found [%s] instead", k, jsonKind(raw))
			}
			for _, a := range r.Applications {
				if a.Application == "" {
					return nil, roleParseError(name, "missing required [application] field in application privileges")
				}
			}
		case "metadata":
			if jsonKind(raw) != "START_OBJECT" || json.Unmarshal(raw, &r.Metadata) != nil {
				return nil, roleParseError(name, "expected field [metadata] value to be an object, but found [%s] instead", jsonKind(raw))
			}
		case "transient_metadata":
			if jsonKind(raw) != "START_OBJECT" {
				return nil, roleParseError(name, "expected field [transient_metadata] value to be an object, but found [%s] instead", jsonKind(raw))
			}
			// Server-owned: the client's value is ignored, like Elasticsearch.
		case "global":
			if jsonKind(raw) != "START_OBJECT" {
				return nil, roleParseError(name, "expected field [global] value to be an object, but found [%s] instead", jsonKind(raw))
			}
		default:
			return nil, roleParseError(name, "unexpected field [%s]", k)
		}
	}
	r.normalize()
	return r, nil
}

func jsonErrText(err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("%s at offset %d", se.Error(), se.Offset)
	}
	return err.Error()
}

func parseIndicesPrivileges(role string, raw json.RawMessage) (IndicesPrivileges, error) {
	var ip IndicesPrivileges
	var m map[string]json.RawMessage
	if jsonKind(raw) != "START_OBJECT" || json.Unmarshal(raw, &m) != nil {
		return ip, indicesParseError(role, "expected field [indices] value to be an array of objects, but found an array element of type [%s]", jsonKind(raw))
	}
	for _, k := range sortedKeys(m) {
		v := m[k]
		switch k {
		case "names":
			l, ok := stringList(v)
			if !ok {
				return ip, indicesParseError(role, "expected field [names] value to be a string or an array of strings, but found [%s] instead", jsonKind(v))
			}
			ip.Names = l
		case "privileges":
			l, ok := stringList(v)
			if !ok {
				return ip, indicesParseError(role, "expected field [privileges] value to be an array of strings, but found [%s] instead", jsonKind(v))
			}
			ip.Privileges = l
		case "field_security":
			fs, err := parseFieldSecurity(role, v)
			if err != nil {
				return ip, err
			}
			ip.FieldSecurity = fs
		case "query":
			q, err := parseRoleQuery(role, v)
			if err != nil {
				return ip, err
			}
			ip.Query = q
		case "allow_restricted_indices":
			if json.Unmarshal(v, &ip.AllowRestrictedIndices) != nil {
				return ip, indicesParseError(role, "expected field [allow_restricted_indices] value to be a boolean, but found [%s] instead", jsonKind(v))
			}
		default:
			return ip, indicesParseError(role, "unexpected field [%s]", k)
		}
	}
	if ip.Names == nil {
		return ip, indicesParseError(role, "missing required [names] field")
	}
	if ip.Privileges == nil {
		return ip, indicesParseError(role, "missing required [privileges] field")
	}
	for _, n := range ip.Names {
		if _, err := compileNamePattern(n); err != nil {
			return ip, indicesParseError(role, "invalid index name pattern [%s]: %v", n, err)
		}
	}
	return ip, nil
}

func parseFieldSecurity(role string, raw json.RawMessage) (*FieldSecurity, error) {
	var m map[string]json.RawMessage
	if jsonKind(raw) != "START_OBJECT" || json.Unmarshal(raw, &m) != nil {
		return nil, indicesParseError(role, "expected field [field_security] value to be an object, but found [%s] instead", jsonKind(raw))
	}
	fs := &FieldSecurity{}
	for k, v := range m {
		l, ok := stringList(v)
		switch {
		case k != "grant" && k != "except":
			return nil, indicesParseError(role, "unexpected field [field_security.%s]", k)
		case !ok:
			return nil, indicesParseError(role, "expected field [field_security.%s] value to be an array of strings, but found [%s] instead", k, jsonKind(v))
		case k == "grant":
			fs.Grant = l
		default:
			fs.Except = l
		}
	}
	if fs.Grant == nil {
		if fs.Except != nil {
			return nil, indicesParseError(role, "[field_security.except] requires [field_security.grant]")
		}
		fs.Grant = []string{}
	}
	for _, e := range fs.Except {
		covered := false
		for _, g := range fs.Grant {
			covered = covered || globMatch(g, e)
		}
		if !covered {
			return nil, eserr.IllegalArgument("Exceptions for field permissions must be a subset of the granted fields but %v is not a subset of %v", fs.Except, fs.Grant)
		}
	}
	return fs, nil
}

// parseRoleQuery accepts a query object or a string holding one and keeps
// the object.
func parseRoleQuery(role string, raw json.RawMessage) (json.RawMessage, error) {
	switch jsonKind(raw) {
	case "START_OBJECT":
		return append(json.RawMessage(nil), bytes.TrimSpace(raw)...), nil
	case "VALUE_STRING":
		var s string
		_ = json.Unmarshal(raw, &s)
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &obj) != nil || obj == nil {
			return nil, indicesParseError(role, "[query] must be a query object or a string holding one")
		}
		return json.RawMessage(bytes.TrimSpace([]byte(s))), nil
	}
	return nil, indicesParseError(role, "expected field [query] value to be a string or an object, but found [%s] instead", jsonKind(raw))
}

// Validate checks that every privilege names a known privilege or an action
// pattern (action_request_validation_exception otherwise).
func (r *RoleDescriptor) Validate() error {
	var msgs []string
	for _, c := range r.Cluster {
		if _, ok := findPrivilege(clusterPrivileges, c); !ok && !isAction(c) {
			msgs = append(msgs, fmt.Sprintf("unknown cluster privilege [%s]. a privilege must be either one of the predefined cluster privilege names [%s] or a pattern over one of the available cluster actions", c, strings.Join(privilegeNames(clusterPrivileges), ",")))
		}
	}
	for _, ip := range r.Indices {
		if len(ip.Names) == 0 {
			msgs = append(msgs, "indices privileges must refer to at least one index name or index name pattern")
		}
		if len(ip.Privileges) == 0 {
			msgs = append(msgs, "indices privileges must define at least one privilege")
		}
		for _, p := range ip.Privileges {
			if _, ok := findPrivilege(indexPrivileges, p); !ok && !isAction(p) {
				msgs = append(msgs, fmt.Sprintf("unknown index privilege [%s]. a privilege must be either one of the predefined fixed indices privileges [%s] or a pattern over one of the available index actions", p, strings.Join(privilegeNames(indexPrivileges), ",")))
			}
		}
	}
	if len(msgs) > 0 {
		return eserr.ValidationError(msgs...)
	}
	return nil
}
