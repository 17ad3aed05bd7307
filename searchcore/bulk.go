package searchcore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// BulkDefaults are the URL-level defaults of a bulk request.
type BulkDefaults struct {
	Index        string
	Routing      string
	Pipeline     string
	RequireAlias bool
	// FetchSource is the URL _source option applied to update items.
	FetchSource json.RawMessage
	// SourceDefault is the _source URL parameter applied to update items.
	Refresh Refresh
}

// BulkItem is one parsed bulk operation. PreErr is an item-level error found
// while parsing (the item fails, the rest of the request goes on).
type BulkItem struct {
	Req    *DocRequest
	PreErr error
}

// ParseBulk parses an NDJSON bulk body. Malformed action lines fail the whole
// request (nothing is executed); problems specific to one item are returned
// as that item's PreErr. Source lines are sub-slices of body (no copies).
func ParseBulk(body []byte, d BulkDefaults) ([]BulkItem, error) {
	var items []BulkItem
	line := 0
	pos := 0
	next := func() ([]byte, bool, bool) {
		if pos >= len(body) {
			return nil, false, false
		}
		end := bytes.IndexByte(body[pos:], '\n')
		terminated := true
		var l []byte
		if end < 0 {
			l = body[pos:]
			pos = len(body)
			terminated = false
		} else {
			l = body[pos : pos+end]
			pos += end + 1
		}
		line++
		return bytes.TrimRight(l, "\r"), terminated, true
	}
	for {
		action, terminated, ok := next()
		if !ok {
			break
		}
		if len(bytes.TrimSpace(action)) == 0 {
			continue
		}
		if !terminated {
			return nil, IllegalArgument("The bulk request must be terminated by a newline [\\n]")
		}
		actionLine := line
		op, meta, err := parseBulkAction(action, actionLine)
		if err != nil {
			return nil, err
		}
		req := &DocRequest{Op: op, Index: d.Index, Routing: d.Routing, Pipeline: d.Pipeline, RequireAlias: d.RequireAlias, FetchSource: d.FetchSource}
		item := BulkItem{Req: req}
		item.PreErr = applyBulkMeta(req, meta, actionLine)
		if e, ok := AsError(item.PreErr); ok && e.Type == "__fatal" {
			e.Type = "illegal_argument_exception"
			return nil, e
		}
		if op != OpDelete {
			src, terminated, ok := next()
			if !ok || (!terminated && len(bytes.TrimSpace(src)) > 0) {
				if !ok {
					return nil, IllegalArgument("The bulk request must be terminated by a newline [\\n]")
				}
				return nil, IllegalArgument("The bulk request must be terminated by a newline [\\n]")
			}
			if op == OpUpdate {
				if item.PreErr == nil {
					u, err := parseUpdateBody(src)
					if err != nil {
						item.PreErr = err
					} else {
						req.Update = u
						if len(u.Source) > 0 {
							req.FetchSource = u.Source
						}
						if u.IfSeqNo != nil {
							req.IfSeqNo, req.IfPrimaryTerm = u.IfSeqNo, u.IfPrimaryTerm
						}
					}
				}
			} else {
				req.Source = src
				if item.PreErr == nil {
					item.PreErr = checkSourceLine(src)
				}
			}
		}
		if item.PreErr == nil && req.Index == "" {
			return nil, ValidationError("index is missing")
		}
		items = append(items, item)
	}
	if len(items) == 0 {
		return nil, ValidationError("no requests added")
	}
	return items, nil
}

// checkSourceLine rejects a source line that is not a JSON object.
func checkSourceLine(src []byte) error {
	s := bytes.TrimSpace(src)
	if len(s) == 0 {
		return MapperParsing("failed to parse, document is empty")
	}
	if s[0] != '{' {
		return MapperParsing("failed to parse").Caused(
			Errorf(Invalid, "not_x_content_exception", "Compressor detection can only be called on some xcontent bytes or compressed xcontent bytes"))
	}
	return nil
}

// parseBulkAction parses {"<op>": {...}} and returns the op and its members.
func parseBulkAction(line []byte, n int) (Op, []member, error) {
	malformed := func(format string, args ...any) error {
		return IllegalArgument("Malformed action/metadata line [%d], %s", n, fmt.Sprintf(format, args...))
	}
	trim := bytes.TrimSpace(line)
	if len(trim) == 0 || trim[0] != '{' {
		return "", nil, malformed("expected START_OBJECT or END_OBJECT but found [%s]", TokenName(trim))
	}
	members, err := decodeObject(trim)
	if err != nil {
		return "", nil, malformed("expected START_OBJECT but found [VALUE_STRING]")
	}
	if len(members) == 0 {
		return "", nil, malformed("expected FIELD_NAME but found [END_OBJECT]")
	}
	if len(members) > 1 {
		return "", nil, malformed("expected END_OBJECT but found [FIELD_NAME]")
	}
	op := Op(members[0].key)
	switch op {
	case OpIndex, OpCreate, OpUpdate, OpDelete:
	default:
		return "", nil, malformed("expected field [create], [delete], [index] or [update] but found [%s]", members[0].key)
	}
	v := bytes.TrimSpace(members[0].value)
	if len(v) == 0 || v[0] != '{' {
		return "", nil, malformed("expected START_OBJECT but found [%s]", TokenName(v))
	}
	meta, err := decodeObject(v)
	if err != nil {
		return "", nil, malformed("expected START_OBJECT but found [VALUE_STRING]")
	}
	return op, meta, nil
}

// applyBulkMeta applies the action metadata members to req.
func applyBulkMeta(req *DocRequest, meta []member, n int) error {
	var itemErr error
	for _, m := range meta {
		v := m.value
		str := func() (string, error) {
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				var b bool
				if err := json.Unmarshal(v, &b); err == nil {
					return strconv.FormatBool(b), nil
				}
				var num json.Number
				if err := json.Unmarshal(v, &num); err == nil {
					return num.String(), nil
				}
				return "", &Error{Code: Invalid, Type: "__fatal", Reason: fmt.Sprintf("Malformed action/metadata line [%d], expected a simple value for field [%s] but found [%s]", n, m.key, TokenName(v))}
			}
			return s, nil
		}
		num := func() (int64, error) {
			s, err := str()
			if err != nil {
				return 0, err
			}
			x, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return 0, &Error{Code: Invalid, Type: "__fatal", Reason: fmt.Sprintf("Malformed action/metadata line [%d], failed to parse [%s] value [%s]", n, m.key, s)}
			}
			return x, nil
		}
		var err error
		switch m.key {
		case "_index":
			req.Index, err = str()
		case "_type":
			// Accepted (7.x), types are gone.
			_, err = str()
		case "_id":
			var id string
			if id, err = str(); err == nil {
				if id == "" {
					itemErr = IllegalArgument("if _id is specified it must not be empty")
				}
				req.ID = id
			}
		case "routing", "_routing":
			req.Routing, err = str()
		case "pipeline":
			req.Pipeline, err = str()
		case "op_type":
			var s string
			if s, err = str(); err == nil {
				switch {
				case s == "create" && req.Op == OpIndex:
					req.Op = OpCreate
				case s == "index" || s == "create":
				default:
					itemErr = IllegalArgument("opType must be 'create' or 'index', found: [%s]", s)
				}
			}
		case "if_seq_no":
			var x int64
			if x, err = num(); err == nil {
				req.IfSeqNo = &x
			}
		case "if_primary_term":
			var x int64
			if x, err = num(); err == nil {
				req.IfPrimaryTerm = &x
			}
		case "version":
			var x int64
			if x, err = num(); err == nil {
				req.Version = &x
			}
		case "version_type":
			var s string
			if s, err = str(); err == nil {
				switch VersionType(s) {
				case VersionInternal, VersionExternal, VersionExternalGTE, VersionForce:
					req.VersionType = VersionType(s)
				default:
					itemErr = IllegalArgument("No version type match [%s]", s)
				}
			}
		case "require_alias":
			var s string
			if s, err = str(); err == nil {
				req.RequireAlias = s == "true"
			}
		case "retry_on_conflict", "_source", "dynamic_templates":
			if req.Op != OpUpdate && m.key != "dynamic_templates" {
				return &Error{Code: Invalid, Type: "__fatal", Reason: fmt.Sprintf("Action/metadata line [%d] contains an unknown parameter [%s]", n, m.key)}
			}
			if m.key == "_source" {
				req.FetchSource = v
			}
		default:
			return &Error{Code: Invalid, Type: "__fatal", Reason: fmt.Sprintf("Action/metadata line [%d] contains an unknown parameter [%s]", n, m.key)}
		}
		if err != nil {
			return err
		}
	}
	if itemErr == nil && req.Pipeline != "" && req.Pipeline != "_none" {
		itemErr = IllegalArgument("pipeline with id [%s] does not exist", req.Pipeline)
	}
	return itemErr
}

// parseUpdateBody parses the body of an update (API or bulk item).
func parseUpdateBody(raw []byte) (*UpdateBody, error) {
	members, err := decodeObject(bytes.TrimSpace(raw))
	if err != nil {
		return nil, err
	}
	u := &UpdateBody{}
	for _, m := range members {
		switch m.key {
		case "doc":
			if !isObject(m.value) {
				return nil, ParsingError("[UpdateRequest] doc doesn't support values of type: %s", TokenName(m.value))
			}
			u.Doc = m.value
		case "upsert":
			if !isObject(m.value) {
				return nil, ParsingError("[UpdateRequest] upsert doesn't support values of type: %s", TokenName(m.value))
			}
			u.Upsert = m.value
		case "doc_as_upsert":
			if u.DocAsUpsert, err = boolMember(m.key, m.value); err != nil {
				return nil, err
			}
		case "detect_noop":
			b, err := boolMember(m.key, m.value)
			if err != nil {
				return nil, err
			}
			u.DetectNoop = &b
		case "scripted_upsert":
			if u.ScriptedUpsert, err = boolMember(m.key, m.value); err != nil {
				return nil, err
			}
		case "script":
			u.Script = m.value
		case "_source":
			u.Source = m.value
		case "if_seq_no", "if_primary_term":
			n, err := intMember(m.key, m.value)
			if err != nil {
				return nil, err
			}
			x := int64(n)
			if m.key == "if_seq_no" {
				u.IfSeqNo = &x
			} else {
				u.IfPrimaryTerm = &x
			}
		default:
			return nil, ParsingError("[UpdateRequest] unknown field [%s]", m.key)
		}
	}
	return u, nil
}

// ParseUpdateBody exposes update body parsing to the handlers.
func ParseUpdateBody(raw []byte) (*UpdateBody, error) { return parseUpdateBody(raw) }
