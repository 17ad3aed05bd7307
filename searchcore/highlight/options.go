// Package highlight implements the search "highlight" option: it parses the
// highlight request, extracts the terms of the (highlight) query, re-analyses
// the _source text of each hit with the field's analyzer and renders
// fragments with the matches wrapped in tags, the way Elasticsearch's
// unified highlighter (the default; "fvh" is served by it too) and plain
// highlighter render them.
package highlight

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Options are the options settable globally and per field; nil members are
// unset and inherit the global value, then the default.
type Options struct {
	PreTags           []string
	PostTags          []string
	FragmentSize      *int
	NumberOfFragments *int
	NoMatchSize       *int
	RequireFieldMatch *bool
	HighlightQuery    json.RawMessage
	// Order is "none" or "score".
	Order string
	// Type is "unified", "plain" or "fvh" ("" = unified).
	Type string
	// BoundaryScanner is "sentence", "word" or "chars" (unified: sentence).
	BoundaryScanner string
	// Fragmenter is "span" or "simple" (plain highlighter; "" = span).
	Fragmenter string
}

// Field is one entry of highlight.fields.
type Field struct {
	Name string
	Options
}

// Request is a parsed highlight option.
type Request struct {
	Options
	// TagsSchema is "styled" or "" (global only).
	TagsSchema string
	// Encoder is "default" or "html" (global only).
	Encoder string
	Fields  []Field
}

// styledPreTags are the pre tags of tags_schema "styled".
var styledPreTags = []string{
	`<em class="hlt1">`, `<em class="hlt2">`, `<em class="hlt3">`, `<em class="hlt4">`, `<em class="hlt5">`,
	`<em class="hlt6">`, `<em class="hlt7">`, `<em class="hlt8">`, `<em class="hlt9">`, `<em class="hlt10">`,
}

// member is one key/value of a JSON object, in document order.
type member struct {
	key   string
	value json.RawMessage
}

func decodeObject(raw []byte, what string) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, eserr.ParsingError("[%s] failed to parse: %s", what, err.Error())
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, eserr.ParsingError("[%s] expected an object but found [%s]", what, eserr.TokenName(raw))
	}
	var out []member
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, eserr.ParsingError("[%s] failed to parse: %s", what, err.Error())
		}
		key, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, eserr.ParsingError("[%s] failed to parse: %s", what, err.Error())
		}
		out = append(out, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, eserr.ParsingError("[%s] failed to parse: %s", what, err.Error())
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, eserr.ParsingError("[%s] unexpected trailing content", what)
	}
	return out, nil
}

// Parse parses the highlight member of a search body, with
// HighlightBuilder's rules and messages.
func Parse(raw json.RawMessage) (*Request, error) {
	members, err := decodeObject(raw, "highlight")
	if err != nil {
		return nil, err
	}
	r := &Request{}
	for _, m := range members {
		switch m.key {
		case "tags_schema":
			s, err := stringValue("highlight", m)
			if err != nil {
				return nil, err
			}
			if s != "styled" && s != "default" {
				return nil, eserr.IllegalArgument("Unknown tag schema [%s]", s)
			}
			r.TagsSchema = s
		case "encoder":
			s, err := stringValue("highlight", m)
			if err != nil {
				return nil, err
			}
			r.Encoder = s
		case "fields":
			if r.Fields, err = parseFields(m.value); err != nil {
				return nil, err
			}
		default:
			known, err := r.Options.parse("highlight", m)
			if err != nil {
				return nil, err
			}
			if !known {
				return nil, eserr.ParsingError("[highlight] unknown field [%s]", m.key)
			}
		}
	}
	if r.TagsSchema == "styled" && r.PreTags == nil {
		r.PreTags = styledPreTags
		r.PostTags = []string{"</em>"}
	}
	if r.PreTags != nil && r.PostTags == nil {
		return nil, eserr.IllegalArgument("pre_tags are set but post_tags are not set")
	}
	return r, nil
}

// parseFields parses highlight.fields: an object keyed by field name, or
// an array of one-member objects (to keep an order).
func parseFields(raw json.RawMessage) ([]Field, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err == nil {
		var out []Field
		for _, item := range list {
			members, err := decodeObject(item, "highlight")
			if err != nil {
				return nil, err
			}
			if len(members) != 1 {
				return nil, eserr.IllegalArgument("If highlighter fields is an array it must contain objects containing a single field")
			}
			f, err := parseField(members[0])
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
		return out, nil
	}
	members, err := decodeObject(raw, "highlight")
	if err != nil {
		return nil, err
	}
	out := make([]Field, 0, len(members))
	for _, m := range members {
		f, err := parseField(m)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func parseField(m member) (Field, error) {
	f := Field{Name: m.key}
	members, err := decodeObject(m.value, "highlight_field")
	if err != nil {
		return f, err
	}
	for _, fm := range members {
		known, err := f.Options.parse("highlight_field", fm)
		if err != nil {
			return f, err
		}
		if !known {
			return f, eserr.ParsingError("[highlight_field] unknown field [%s]", fm.key)
		}
	}
	return f, nil
}

// parse reads one option shared by the global and the field level; known
// is false for keys that are not such options.
func (o *Options) parse(what string, m member) (known bool, err error) {
	switch m.key {
	case "pre_tags":
		o.PreTags, err = stringList(what, m)
	case "post_tags":
		o.PostTags, err = stringList(what, m)
	case "fragment_size":
		o.FragmentSize, err = intValue(what, m)
	case "number_of_fragments":
		o.NumberOfFragments, err = intValue(what, m)
		if err == nil && *o.NumberOfFragments < 0 {
			return true, eserr.IllegalArgument("[number_of_fragments] must be greater than or equal to 0")
		}
	case "no_match_size":
		o.NoMatchSize, err = intValue(what, m)
	case "fragment_offset", "phrase_limit", "max_analyzed_offset", "boundary_max_scan":
		_, err = intValue(what, m)
	case "require_field_match":
		var b bool
		if jerr := json.Unmarshal(m.value, &b); jerr != nil {
			return true, eserr.ParsingError("[%s] require_field_match doesn't support values of type: %s", what, eserr.TokenName(m.value))
		}
		o.RequireFieldMatch = &b
	case "force_source", "highlight_filter":
		var b bool
		if jerr := json.Unmarshal(m.value, &b); jerr != nil {
			return true, eserr.ParsingError("[%s] %s doesn't support values of type: %s", what, m.key, eserr.TokenName(m.value))
		}
	case "highlight_query":
		if _, derr := decodeObject(m.value, what); derr != nil {
			return true, derr
		}
		o.HighlightQuery = m.value
	case "order":
		var s string
		if s, err = stringValue(what, m); err == nil {
			switch s {
			case "score", "none":
				o.Order = s
			default:
				return true, eserr.IllegalArgument("No enum constant org.elasticsearch.search.fetch.subphase.highlight.HighlightBuilder.Order.%s", toUpper(s))
			}
		}
	case "type":
		var s string
		if s, err = stringValue(what, m); err == nil {
			o.Type = s
		}
	case "boundary_scanner":
		var s string
		if s, err = stringValue(what, m); err == nil {
			switch s {
			case "chars", "word", "sentence":
				o.BoundaryScanner = s
			default:
				return true, eserr.IllegalArgument("Invalid boundary_scanner type: [%s]", s)
			}
		}
	case "fragmenter":
		o.Fragmenter, err = stringValue(what, m)
	case "boundary_chars", "boundary_scanner_locale":
		_, err = stringValue(what, m)
	case "matched_fields":
		_, err = stringList(what, m)
	case "options":
		_, err = decodeObject(m.value, what)
	default:
		return false, nil
	}
	return true, err
}

func toUpper(s string) string { return string(bytes.ToUpper([]byte(s))) }

func stringValue(what string, m member) (string, error) {
	var s string
	if err := json.Unmarshal(m.value, &s); err != nil {
		return "", eserr.ParsingError("[%s] %s doesn't support values of type: %s", what, m.key, eserr.TokenName(m.value))
	}
	return s, nil
}

func intValue(what string, m member) (*int, error) {
	var n int
	if err := json.Unmarshal(m.value, &n); err != nil {
		var s string
		if json.Unmarshal(m.value, &s) == nil {
			if jerr := json.Unmarshal([]byte(s), &n); jerr == nil {
				return &n, nil
			}
		}
		return nil, eserr.ParsingError("[%s] %s doesn't support values of type: %s", what, m.key, eserr.TokenName(m.value))
	}
	return &n, nil
}

func stringList(what string, m member) ([]string, error) {
	var list []string
	if err := json.Unmarshal(m.value, &list); err != nil {
		var s string
		if json.Unmarshal(m.value, &s) == nil {
			return []string{s}, nil
		}
		return nil, eserr.ParsingError("[%s] %s doesn't support values of type: %s", what, m.key, eserr.TokenName(m.value))
	}
	return list, nil
}
