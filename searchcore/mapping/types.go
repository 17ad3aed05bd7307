// Package mapping holds Elasticsearch-style index mappings: parsing and
// rendering them, merging updates, dynamic mapping, and turning a JSON
// document into the bluge fields the search core indexes.
//
// Index-time encoding contract (the query package relies on it):
//   - every leaf is a bluge field named by its full dotted path ("user.name");
//     a multi-field is "<path>.<sub>" ("title.keyword");
//   - text: analyzed TextField with term positions (phrase queries);
//   - keyword: KeywordField (after ignore_above), Sortable+Aggregatable when doc_values;
//   - long/integer/short/byte/double/float/half_float/scaled_float/unsigned_long:
//     NumericField (float64) Sortable+Aggregatable when doc_values;
//   - boolean: NumericField 1 or 0, Sortable+Aggregatable;
//   - date: NumericField holding epoch milliseconds, Sortable+Aggregatable;
//   - geo_point: GeoPointField, Sortable+Aggregatable;
//   - "_field_names": KeywordField, one term per leaf path that has a value
//     and per object path above it (the exists query searches it);
//   - "_ignored": KeywordField, one term per path whose value was dropped by
//     ignore_above or ignore_malformed;
//   - the engine adds "_id", "_source" (stored only) and bookkeeping fields.
//
// Details: date_nanos is also epoch milliseconds (with a fractional part);
// the objects of nested fields are indexed as hidden nested documents
// (nested.go), and in the enclosing documents only with include_in_parent
// or include_in_root; a field with
// index:false but doc_values on is still indexed (bluge builds doc values
// from the terms), so the query side must refuse to search it; store:true
// adds the value as a stored field (text/keyword as given, numbers
// prefix-coded). Values of a text field share positions across array
// elements with a gap of 100, like ES's position_increment_gap.
package mapping

import (
	"encoding/json"
	"sync/atomic"
)

// Field types known to the mapper.
const (
	TypeText         = "text"
	TypeKeyword      = "keyword"
	TypeLong         = "long"
	TypeInteger      = "integer"
	TypeShort        = "short"
	TypeByte         = "byte"
	TypeDouble       = "double"
	TypeFloat        = "float"
	TypeHalfFloat    = "half_float"
	TypeScaledFloat  = "scaled_float"
	TypeUnsignedLong = "unsigned_long"
	TypeBoolean      = "boolean"
	TypeDate         = "date"
	TypeDateNanos    = "date_nanos"
	TypeGeoPoint     = "geo_point"
	TypeObject       = "object"
	TypeNested       = "nested"
)

// Field is one mapped field. Pointer members are nil when not given, so the
// rendered mapping shows exactly the parameters the user set (as ES does).
type Field struct {
	Type                string
	Index               *bool
	DocValues           *bool
	Store               *bool
	NullValue           json.RawMessage
	IgnoreAbove         *int
	CopyTo              []string
	Analyzer            string
	SearchAnalyzer      string
	SearchQuoteAnalyzer string
	Normalizer          string
	Format              string
	ScalingFactor       *float64
	Coerce              *bool
	IgnoreMalformed     *bool
	Enabled             *bool
	// Dynamic is "", "true", "false", "strict" or "runtime" (object fields).
	Dynamic string
	// Fields are the multi-fields of a leaf.
	Fields map[string]*Field
	// Properties are the sub-fields of an object or nested field.
	Properties map[string]*Field
	// Extra keeps other valid parameters verbatim (boost, norms, similarity,
	// index_options, eager_global_ordinals, fielddata, meta, ...), rendered back.
	Extra map[string]json.RawMessage
}

// SourceConfig is the _source meta-field configuration.
type SourceConfig struct {
	Enabled  *bool
	Includes []string
	Excludes []string
}

// Mapping is the mapping of one index. A *Mapping is immutable once
// published: Merge and ParseDocument return new values.
type Mapping struct {
	// Dynamic is "", "true", "false", "strict" or "runtime".
	Dynamic            string
	DateDetection      *bool
	NumericDetection   *bool
	DynamicDateFormats []string
	DynamicTemplates   json.RawMessage
	Source             *SourceConfig
	// RoutingRequired is _routing.required.
	RoutingRequired *bool
	Meta            json.RawMessage
	Properties      map[string]*Field
	// Enabled is the root "enabled" (false: documents are only stored).
	Enabled *bool
	// Extra keeps other accepted root entries verbatim (_field_names, runtime).
	Extra map[string]json.RawMessage

	// cache is the lazily built path lookup (see index()).
	cache atomic.Pointer[fieldIndex]
}
