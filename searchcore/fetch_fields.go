package searchcore

import (
	"encoding/json"

	"github.com/quarry-search/quarry/searchcore/highlight"
	"github.com/quarry-search/quarry/searchcore/mapping"
	"github.com/quarry-search/quarry/searchcore/query"
)

// FetchOptions are the fetch-phase options of a search besides _source
// filtering and stored_fields: docvalue_fields, fields, script_fields and
// highlight.
type FetchOptions struct {
	// DocValueFields is docvalue_fields (body entries, then URL entries).
	DocValueFields []mapping.FieldAndFormat
	// FetchFields is the fields option (the 7.10+ fields API).
	FetchFields []mapping.FieldAndFormat
	// ScriptFields is the number of script_fields entries (scripts are not
	// executed: a search naming any is refused once the limit is checked).
	ScriptFields int
	// StoredFieldsSet is true when stored_fields was given at all (even
	// empty), which turns off the default _source fetch.
	StoredFieldsSet bool
	// Highlight is the parsed highlight option (nil when absent).
	Highlight *highlight.Request
}

// DefaultMaxDocvalueFields and DefaultMaxScriptFields are the defaults of
// index.max_docvalue_fields_search and index.max_script_fields.
const (
	DefaultMaxDocvalueFields = 100
	DefaultMaxScriptFields   = 32
)

// fetchBodyKeys are the search body members parsed by parseFetchMember.
var fetchBodyKeys = map[string]bool{"docvalue_fields": true, "fields": true, "script_fields": true, "highlight": true}

// parseFetchMember parses one of fetchBodyKeys into req.
func (r *SearchRequest) parseFetchMember(key string, v json.RawMessage) error {
	var err error
	switch key {
	case "docvalue_fields":
		r.DocValueFields, err = parseFieldAndFormats(key, v)
	case "fields":
		r.FetchFields, err = parseFieldAndFormats(key, v)
	case "script_fields":
		members, derr := decodeObject(v)
		if derr != nil {
			return ParsingError("Unknown key for a %s in [script_fields].", TokenName(v))
		}
		for _, m := range members {
			if _, err := decodeObject(m.value); err != nil {
				return ParsingError("Expected [START_OBJECT] in [script_fields] but found [%s]", TokenName(m.value))
			}
		}
		r.ScriptFields = len(members)
	case "highlight":
		r.Highlight, err = highlight.Parse(v)
	}
	return err
}

// parseSharedFetch parses a fetch member the search body and inner_hits
// definitions share (docvalue_fields, fields, stored_fields, version,
// seq_no_primary_term, explain) into r; ok is false for any other member.
func (r *SearchRequest) parseSharedFetch(key string, v json.RawMessage) (ok bool, err error) {
	switch key {
	case "docvalue_fields", "fields":
		err = r.parseFetchMember(key, v)
	case "stored_fields":
		var list []string
		if list, err = parseStoredFields(v); err == nil {
			r.SetStoredFields(list)
		}
	case "version":
		r.Version, err = boolMember(key, v)
	case "seq_no_primary_term":
		r.SeqNoPrimaryTerm, err = boolMember(key, v)
	case "explain":
		r.Explain, err = boolMember(key, v)
	default:
		return false, nil
	}
	return true, err
}

// useInnerHitsFetch gives r (the search of an inner_hits definition) the
// fetch options of the definition parsed into def.
func (r *SearchRequest) useInnerHitsFetch(def *SearchRequest) {
	r.Version = r.Version || def.Version
	r.SeqNoPrimaryTerm = r.SeqNoPrimaryTerm || def.SeqNoPrimaryTerm
	r.Explain = def.Explain
	r.DocValueFields, r.FetchFields = def.DocValueFields, def.FetchFields
	r.StoredFields, r.StoredFieldsNone, r.StoredFieldsSet = def.StoredFields, def.StoredFieldsNone, def.StoredFieldsSet
}

// parseFieldAndFormats parses docvalue_fields or fields: an array of field
// names and {"field", "format", "include_unmapped"} objects.
func parseFieldAndFormats(key string, v json.RawMessage) ([]mapping.FieldAndFormat, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, ParsingError("Unknown key for a %s in [%s].", TokenName(v), key)
	}
	out := make([]mapping.FieldAndFormat, 0, len(items))
	for _, it := range items {
		var name string
		if err := json.Unmarshal(it, &name); err == nil {
			out = append(out, mapping.FieldAndFormat{Field: name})
			continue
		}
		members, err := decodeObject(it)
		if err != nil {
			return nil, ParsingError("Expected [VALUE_STRING] or [START_OBJECT] in [%s] but found [%s]", key, TokenName(it))
		}
		var ff mapping.FieldAndFormat
		for _, m := range members {
			switch m.key {
			case "field", "format":
				var s string
				if err := json.Unmarshal(m.value, &s); err != nil {
					return nil, ParsingError("[%s] %s doesn't support values of type: %s", key, m.key, TokenName(m.value))
				}
				if m.key == "field" {
					ff.Field = s
				} else {
					ff.Format = s
				}
			case "include_unmapped":
				if err := json.Unmarshal(m.value, &ff.IncludeUnmapped); err != nil {
					return nil, ParsingError("[%s] include_unmapped doesn't support values of type: %s", key, TokenName(m.value))
				}
			default:
				return nil, ParsingError("[%s] unknown field [%s]", key, m.key)
			}
		}
		if ff.Field == "" {
			return nil, ParsingError("[%s] Required [field]", key)
		}
		out = append(out, ff)
	}
	return out, nil
}

// AddDocValueFieldParams appends the docvalue_fields URL parameter's names.
func (r *SearchRequest) AddDocValueFieldParams(names []string) {
	for _, n := range names {
		if n != "" {
			r.DocValueFields = append(r.DocValueFields, mapping.FieldAndFormat{Field: n})
		}
	}
}

// fetchPlan is the fetch phase of a search resolved against one index.
type fetchPlan struct {
	docValues []mapping.FetchField
	fields    []mapping.FetchField
	highlight *highlight.Plan
}

// prepareFetch resolves the fetch options against idx, enforcing the
// index's limits the way Elasticsearch's shard-level checks do. docPath is
// the nested path of the hits fetched ("" for top-level hits).
func (r *SearchRequest) prepareFetch(idx *Index, qctx *query.Context, docPath string) (*fetchPlan, error) {
	st := idx.Settings()
	if r.StoredFieldsNone {
		if r.Source != nil && r.Source.Enabled() {
			return nil, Errorf(Invalid, "search_exception", "[stored_fields] cannot be disabled if [_source] is requested")
		}
		if len(r.FetchFields) > 0 {
			return nil, Errorf(Invalid, "search_exception", "[stored_fields] cannot be disabled when using the [fields] option")
		}
	}
	if r.ScriptFields > 0 {
		if max := st.MaxScriptFields; r.ScriptFields > max {
			return nil, IllegalArgument("Trying to retrieve too many script_fields. Must be less than or equal to: [%d] but was [%d]. "+
				"This limit can be set by changing the [index.max_script_fields] index level setting.", max, r.ScriptFields)
		}
		return nil, IllegalArgument("[script_fields] are not supported: this node does not execute scripts; use [fields] or [docvalue_fields] instead")
	}
	p := &fetchPlan{}
	mp := idx.Mapping()
	var err error
	if len(r.DocValueFields) > 0 {
		if p.docValues, err = mp.ResolveDocValueFields(r.DocValueFields, st.MaxDocvalueFields, docPath); err != nil {
			return nil, err
		}
	}
	if len(r.FetchFields) > 0 {
		if p.fields, err = mp.ResolveFetchFields(r.FetchFields); err != nil {
			return nil, err
		}
	}
	if r.Highlight != nil {
		if p.highlight, err = r.Highlight.Prepare(r.Query, qctx); err != nil {
			return nil, err
		}
		p.highlight.MaxAnalyzedOffset = st.HighlightMaxAnalyzedOffset
	}
	return p, nil
}

// fetchesSource is Elasticsearch's FetchPhase rule for loading _source:
// by default unless stored_fields or script_fields are given; with a
// stored_fields list only when it names _source or _source is requested;
// never with stored_fields: _none_.
func (r *SearchRequest) fetchesSource() bool {
	switch {
	case r.StoredFieldsNone:
		return false
	case r.StoredFieldsSet:
		return containsString(r.StoredFields, "_source") || r.Source != nil
	default:
		return r.ScriptFields == 0 || r.Source != nil
	}
}

// applyFetch adds the docvalue_fields, fields and highlight output of one
// hit (src is its _source).
func (p *fetchPlan) apply(h *Hit, idx *Index, src []byte) error {
	if p == nil || len(src) == 0 {
		return nil
	}
	if len(p.docValues) > 0 || len(p.fields) > 0 {
		out := h.Fields
		if out == nil {
			out = map[string][]any{}
		}
		mp := idx.Mapping()
		if err := mp.DocValues(src, p.docValues, idx.Analyzers(), out); err != nil {
			return err
		}
		if err := mp.FetchValues(src, p.fields, idx.Analyzers(), out); err != nil {
			return err
		}
		if len(out) > 0 {
			h.Fields = out
		}
	}
	if p.highlight != nil {
		hl, err := p.highlight.Highlight(src, h.ID)
		if err != nil {
			return err
		}
		if len(hl) > 0 {
			h.Highlight = hl
		}
	}
	return nil
}
