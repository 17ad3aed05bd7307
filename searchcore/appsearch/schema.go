package appsearch

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// FieldType is an App Search field type.
type FieldType string

// The four field types; every new field starts as text.
const (
	Text        FieldType = "text"
	Number      FieldType = "number"
	Date        FieldType = "date"
	Geolocation FieldType = "geolocation"
)

// ParseFieldType parses a schema type name.
func ParseFieldType(s string) (FieldType, bool) {
	switch t := FieldType(s); t {
	case Text, Number, Date, Geolocation:
		return t, true
	}
	return "", false
}

// Revision selects one of the two documented behaviours of the API.
type Revision string

// The revisions: earlier (double numbers, "lat, lon" only, OR in queries) and
// later (32-bit floats, four geolocation formats, geo sorting).
const (
	RevisionEarlier Revision = "earlier"
	RevisionLater   Revision = "later"
)

// ParseRevision parses a revision name ("" is the default).
func ParseRevision(s string, def Revision) (Revision, error) {
	switch s {
	case "":
		return def, nil
	case string(RevisionEarlier), string(RevisionLater):
		return Revision(s), nil
	}
	return "", Errorf(eserr.Invalid, "Revision must be one of: earlier, later")
}

// Schema maps field names to types (without the implicit id field).
type Schema map[string]FieldType

// Clone returns a copy of s.
func (s Schema) Clone() Schema {
	out := make(Schema, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}

// Fields returns the field names sorted.
func (s Schema) Fields() []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Type returns the type of a field; id is text, unknown fields are "".
func (s Schema) Type(field string) FieldType {
	if field == "id" {
		return Text
	}
	return s[field]
}

// reservedFields cannot be used as field names.
var reservedFields = map[string]bool{
	"id": true, "engine_id": true, "highlight": true, "any": true, "all": true, "none": true,
	"or": true, "and": true, "not": true, "external_id": true, "search_index_id": true,
}

// maxFieldNameLength is the longest field name (APPSEARCH.md §9).
const maxFieldNameLength = 64

// ValidateFieldName checks App Search's field-name rules: lowercase letters,
// digits and underscores, at least one letter, no leading underscore, at
// most 64 characters, not reserved. It returns the per-document message.
func ValidateFieldName(name string) string {
	if name == "" {
		return "Fields can only contain lowercase letters, numbers, and underscores: ."
	}
	letter := false
	for _, c := range name {
		switch {
		case c >= 'a' && c <= 'z':
			letter = true
		case c >= '0' && c <= '9', c == '_':
		default:
			return fmt.Sprintf("Fields can only contain lowercase letters, numbers, and underscores: %s.", name)
		}
	}
	switch {
	case strings.HasPrefix(name, "_"):
		return fmt.Sprintf("Fields cannot begin with an underscore: %s.", name)
	case !letter:
		return fmt.Sprintf("Fields must contain at least one letter: %s.", name)
	case len(name) > maxFieldNameLength:
		return fmt.Sprintf("Field name is too long (maximum is %d characters): %s.", maxFieldNameLength, name)
	case reservedFields[name] && name != "id":
		return fmt.Sprintf("Field name is reserved: %s.", name)
	}
	return ""
}

// analyzerFor maps an engine language to a core analyzer.
func analyzerFor(lang string) string {
	switch lang {
	case "da":
		return "danish"
	case "de":
		return "german"
	case "en":
		return "english"
	case "es":
		return "spanish"
	case "fr":
		return "french"
	case "it":
		return "italian"
	case "nl":
		return "dutch"
	case "pt", "pt-br":
		return "portuguese"
	case "ru":
		return "russian"
	case "ja", "ko", "zh":
		return "cjk"
	}
	return "standard"
}

// Languages are the accepted engine languages (nil means universal).
var Languages = []string{"da", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pt", "pt-br", "ru", "th", "zh"}

// KeywordSuffix names the exact-value sub-field of text fields: filters,
// facets, sorting and grouping on text field f use "f" + KeywordSuffix.
const KeywordSuffix = ".enum"

// SourceKey is the _source member holding the App Search view of a document.
const SourceKey = "_as"

// FieldMapping returns the core mapping of one field.
func FieldMapping(t FieldType, rev Revision, lang string) map[string]any {
	switch t {
	case Number:
		typ := "float"
		if rev == RevisionEarlier {
			typ = "double"
		}
		return map[string]any{"type": typ, "ignore_malformed": true}
	case Date:
		return map[string]any{"type": "date", "ignore_malformed": true}
	case Geolocation:
		return map[string]any{"type": "geo_point", "ignore_malformed": true}
	}
	return map[string]any{
		"type":     "text",
		"analyzer": analyzerFor(lang),
		"fields":   map[string]any{"enum": map[string]any{"type": "keyword", "ignore_above": 8191}},
	}
}

// IndexMapping returns the core mapping (the "mappings" body) of an engine.
func IndexMapping(s Schema, rev Revision, lang string) json.RawMessage {
	props := map[string]any{
		"id":      FieldMapping(Text, rev, lang),
		SourceKey: map[string]any{"type": "object", "enabled": false},
	}
	for f, t := range s {
		props[f] = FieldMapping(t, rev, lang)
	}
	b, _ := json.Marshal(map[string]any{"dynamic": false, "properties": props})
	return b
}
