package appsearch

import (
	"errors"
	"strconv"
)

// GeoPoint is a geolocation as the core reads it: "lat,lon".
type GeoPoint string

// String returns the "lat,lon" form.
func (p GeoPoint) String() string { return string(p) }

// geoUnits are the distance units App Search accepts (the core knows them
// under the same names).
var geoUnits = map[string]bool{"mm": true, "cm": true, "m": true, "km": true, "in": true, "ft": true, "yd": true, "mi": true}

// errGeoFormat is the reason for an unparseable geolocation.
var errGeoFormat = errors.New("invalid geolocation")

// ParseGeoPointString parses a geolocation given in a request (a filter,
// facet, boost or sort center) in the formats of revision rev. The later
// revision also reads "lat, lon": Search UI sends centers that way, and the
// space carries no ambiguity.
func ParseGeoPointString(s string, rev Revision) (GeoPoint, error) {
	if p, ok := ParseGeolocation(s, rev); ok {
		return GeoPoint(p), nil
	}
	if rev != RevisionEarlier {
		if p, ok := ParseGeolocation(s, RevisionEarlier); ok {
			return GeoPoint(p), nil
		}
	}
	return "", errGeoFormat
}

// ParseGeoPoint reads a request geolocation given as a JSON value: a string
// or, in the later revision, [lon, lat].
func ParseGeoPoint(v *jvalue, rev Revision) (GeoPoint, error) {
	switch v.kind {
	case jString:
		return ParseGeoPointString(v.str, rev)
	case jArray:
		if rev == RevisionEarlier || len(v.arr) != 2 || v.arr[0].kind != jNumber || v.arr[1].kind != jNumber {
			return "", errGeoFormat
		}
		if p, ok := parseLonLatPair(v.arr[0].num.String(), v.arr[1].num.String()); ok {
			return GeoPoint(p), nil
		}
	}
	return "", errGeoFormat
}

// formatFloat renders f in the shortest form.
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
