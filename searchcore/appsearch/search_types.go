package appsearch

import (
	"strings"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Query-level limits (APPSEARCH.md section 9).
const (
	MaxQueryLength     = 128
	MaxPageSize        = 1000
	MaxPageCurrent     = 100
	MaxResultWindow    = 10000
	MaxFilters         = 32
	MaxFilterArray     = 1024
	MaxFilterDepth     = 5
	MaxBoosts          = 32
	MaxSortFields      = 10
	MaxGroupFields     = 10
	MaxGroupSize       = 10
	MaxFacetValues     = 250
	MaxTags            = 16
	MaxTagLength       = 64
	MaxSnippetSize     = 1000
	MinSnippetSize     = 20
	MaxRawSize         = 1000
	MinRawSize         = 20
	MaxMultiSearch     = 10
	DefaultPageSize    = 10
	DefaultSnippetSize = 100
	DefaultFacetSize   = 10
	DefaultPrecision   = 2
)

// RequestErrors builds an endpoint-specific App Search request error
// carrying msgs (answered 200 {"errors": [...]}, SPEC.md).
func RequestErrors(msgs ...string) *eserr.Error {
	return Errors(eserr.Invalid, msgs...)
}

// errList accumulates request errors in order.
type errList []string

func (l *errList) add(format string, args ...any) {
	*l = append(*l, sprintf(format, args...))
}

func (l errList) err() error {
	if len(l) == 0 {
		return nil
	}
	return RequestErrors(l...)
}

// capability is one column of SPEC.md's feature-support tables.
type capability int

// The support-table columns.
const (
	capSearchQuery capability = iota
	capSuggestion
	capResultOptions
	capSearchField
	capValueBoost
	capFunctionalBoost
	capProximityBoost
	capRecencyBoost
	capValueFacet
	capRangeFacet
	capValueFilter
	capRangeFilter
	capGeoFilter
	capGrouping
	capSorting
)

// capabilityNames name the columns in error messages.
var capabilityNames = map[capability]string{
	capSearchQuery:     "Search queries",
	capSuggestion:      "Query suggestions",
	capResultOptions:   "Result field options (raw size, snippet)",
	capSearchField:     "Search fields",
	capValueBoost:      "Value boosts",
	capFunctionalBoost: "Functional boosts",
	capProximityBoost:  "Proximity boosts",
	capRecencyBoost:    "Recency boosts",
	capValueFacet:      "Value facets",
	capRangeFacet:      "Range facets",
	capValueFilter:     "Value filters",
	capRangeFilter:     "Range filters",
	capGeoFilter:       "Geo filters",
	capGrouping:        "Grouping",
	capSorting:         "Sorting",
}

// Supports reports whether a field of type t allows capability c in
// revision rev, exactly as SPEC.md's feature-support tables say.
func supports(t FieldType, c capability, rev Revision) bool {
	switch c {
	case capSearchQuery, capSuggestion, capResultOptions, capSearchField:
		return t == Text
	case capValueBoost:
		return true
	case capFunctionalBoost:
		return t == Number
	case capProximityBoost:
		return t == Number || t == Geolocation
	case capRecencyBoost:
		return t == Date
	case capValueFacet, capValueFilter, capGrouping:
		return t != Geolocation
	case capRangeFacet, capRangeFilter:
		if c == capRangeFacet && t == Geolocation {
			return true
		}
		return t == Number || t == Date
	case capGeoFilter:
		return t == Geolocation
	case capSorting:
		return t != Geolocation || rev != RevisionEarlier
	}
	return false
}

// unsupported is the message for a disallowed type/feature combination.
func unsupported(c capability, t FieldType, field string) string {
	return sprintf("%s field %s does not support %s", t, field, strings.ToLower(capabilityNames[c]))
}
