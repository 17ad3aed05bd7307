package appsearch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

// field is one member of a document in input order.
type field struct {
	name  string
	value json.RawMessage
}

// appDoc is a document in its App Search form: the id and every field's
// value stringified (strings, arrays of strings, null).
type appDoc struct {
	id     string
	fields []field // without id
}

// marshal renders the App Search view, fields in order and id last (as the
// real product lists it).
func (d *appDoc) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for _, f := range d.fields {
		writeMember(&b, f.name, f.value)
		b.WriteByte(',')
	}
	writeMember(&b, "id", jsonString(d.id))
	b.WriteByte('}')
	return b.Bytes()
}

func writeMember(b *bytes.Buffer, name string, v json.RawMessage) {
	b.Write(jsonString(name))
	b.WriteByte(':')
	b.Write(v)
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// get returns the value of a field (nil when absent).
func (d *appDoc) get(name string) (json.RawMessage, bool) {
	for _, f := range d.fields {
		if f.name == name {
			return f.value, true
		}
	}
	return nil, false
}

// set replaces or appends a field.
func (d *appDoc) set(name string, v json.RawMessage) {
	for i, f := range d.fields {
		if f.name == name {
			d.fields[i].value = v
			return
		}
	}
	d.fields = append(d.fields, field{name, v})
}

// maxIDLength is the longest document id (APPSEARCH.md §9).
const maxIDLength = 800

// decodeObject reads a JSON object keeping member order; ok is false when
// raw is not an object.
func decodeObject(raw json.RawMessage) ([]field, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []field
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, false
		}
		k, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		out = append(out, field{k, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false
	}
	return out, true
}

// stringifyScalar renders a JSON scalar the way App Search stores it.
func stringifyScalar(v json.RawMessage) (json.RawMessage, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return nil, false
	}
	switch v[0] {
	case '"':
		return v, true
	case 'n':
		return json.RawMessage("null"), true
	case 't', 'f':
		return jsonString(string(v)), true
	case '{', '[':
		return nil, false
	}
	return jsonString(string(v)), true // a number: keep its literal
}

// stringifyValue converts a field value to its stored form; msg is the
// per-document error for nested objects and nested arrays.
func stringifyValue(name string, v json.RawMessage) (json.RawMessage, string) {
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '{' {
		return nil, fmt.Sprintf("Nested objects are not supported (flatten them into top-level fields): %s.", name)
	}
	if len(v) > 0 && v[0] == '[' {
		var elems []json.RawMessage
		if err := json.Unmarshal(v, &elems); err != nil {
			return nil, fmt.Sprintf("Invalid field value: %s.", name)
		}
		var b bytes.Buffer
		b.WriteByte('[')
		for i, e := range elems {
			s, ok := stringifyScalar(e)
			if !ok {
				return nil, fmt.Sprintf("Nested objects and arrays are not supported (flatten them into top-level fields): %s.", name)
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(s)
		}
		b.WriteByte(']')
		return b.Bytes(), ""
	}
	s, ok := stringifyScalar(v)
	if !ok {
		return nil, fmt.Sprintf("Invalid field value: %s.", name)
	}
	return s, ""
}

// idFromValue returns the document id of an "id" member (strings as they
// are, numbers stringified).
func idFromValue(v json.RawMessage) (string, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "", false
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return s, true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return string(v), true
	}
	return "", false
}

// TypedValue converts a stored App Search value (a string, an array of
// strings or null) to the value the core indexes for a field of type t.
// Values that cannot be coerced are left out (ok false, or dropped from
// arrays): the typed core field must not interpret them itself (the core
// would read a WKT point the earlier revision refuses); such values stay in
// the stored document only.
func TypedValue(t FieldType, rev Revision, stored json.RawMessage) (json.RawMessage, bool) {
	stored = bytes.TrimSpace(stored)
	if len(stored) == 0 {
		return nil, false
	}
	if stored[0] == 'n' || t == Text {
		return stored, true
	}
	if stored[0] == '[' {
		var elems []string
		if json.Unmarshal(stored, &elems) != nil {
			return nil, false
		}
		if t == Geolocation && rev == RevisionLater && len(elems) == 2 {
			if p, ok := parseLonLatPair(elems[0], elems[1]); ok {
				return jsonString(p), true
			}
		}
		out := make([]json.RawMessage, 0, len(elems))
		for _, e := range elems {
			if v, ok := coerceString(t, rev, e); ok {
				out = append(out, v)
			}
		}
		if len(out) == 0 {
			return nil, false
		}
		b, _ := json.Marshal(out)
		return b, true
	}
	var s string
	if json.Unmarshal(stored, &s) != nil {
		return nil, false
	}
	return coerceString(t, rev, s)
}

// coerceString coerces one stored string.
func coerceString(t FieldType, rev Revision, s string) (json.RawMessage, bool) {
	switch t {
	case Number:
		if n, ok := ParseNumber(s, rev); ok {
			return json.RawMessage(n), true
		}
	case Date:
		if d, ok := ParseDate(s); ok {
			return jsonString(d.Format(DateLayout)), true
		}
	case Geolocation:
		if p, ok := ParseGeolocation(s, rev); ok {
			return jsonString(p), true
		}
	case Text:
		return jsonString(s), true
	}
	return nil, false
}

// ParseNumber parses a number value: a finite double in the earlier
// revision; a 32-bit float in the later one (values beyond its range are not
// numbers: they stay text). It returns the JSON literal of the value.
func ParseNumber(s string, rev Revision) (string, bool) {
	s = strings.TrimSpace(s)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", false
	}
	if rev == RevisionEarlier {
		return formatNumber(f, 64), true
	}
	f32 := float32(f)
	if math.IsInf(float64(f32), 0) {
		return "", false
	}
	return formatNumber(float64(f32), 32), true
}

// formatNumber renders the shortest literal of f at the given precision,
// without an exponent for ordinary magnitudes.
func formatNumber(f float64, bits int) string {
	if a := math.Abs(f); a == 0 || a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, bits)
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

// DateLayout is how dates are normalised (UTC, "+00:00" offset).
const DateLayout = "2006-01-02T15:04:05.999-07:00"

// dateLayouts are the ISO 8601 shapes accepted.
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02",
}

// ParseDate parses an ISO 8601 date (a time without offset is UTC).
func ParseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

var (
	num         = `[-+]?(?:\d+\.?\d*|\.\d+)`
	latLonLater = regexp.MustCompile(`^(` + num + `),(` + num + `)$`)
	latLonEarly = regexp.MustCompile(`^\s*(` + num + `)\s*, ?(` + num + `)\s*$`)
	wktPoint    = regexp.MustCompile(`^(?i:point)\s*\(\s*(` + num + `)\s+(` + num + `)\s*\)$`)
)

// ParseGeolocation parses a geolocation and returns it as "lat,lon".
// Earlier revision: "lat, lon" (the space is optional). Later revision:
// exactly "lat,lon", a geohash, or WKT "POINT (lon lat)" ([lon, lat] arrays
// are handled by TypedValue).
func ParseGeolocation(s string, rev Revision) (string, bool) {
	if rev == RevisionEarlier {
		if m := latLonEarly.FindStringSubmatch(s); m != nil {
			return latLon(m[1], m[2])
		}
		return "", false
	}
	if m := latLonLater.FindStringSubmatch(s); m != nil {
		return latLon(m[1], m[2])
	}
	if m := wktPoint.FindStringSubmatch(strings.TrimSpace(s)); m != nil {
		return latLon(m[2], m[1])
	}
	if lat, lon, err := mapping.DecodeGeohash(s); err == nil {
		return formatLatLon(lat, lon), true
	}
	return "", false
}

// parseLonLatPair reads a later-revision [lon, lat] array.
func parseLonLatPair(lonS, latS string) (string, bool) {
	if _, err := strconv.ParseFloat(lonS, 64); err != nil {
		return "", false
	}
	return latLon(latS, lonS)
}

func latLon(latS, lonS string) (string, bool) {
	lat, err1 := strconv.ParseFloat(latS, 64)
	lon, err2 := strconv.ParseFloat(lonS, 64)
	if err1 != nil || err2 != nil || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
		return "", false
	}
	return formatLatLon(lat, lon), true
}

func formatLatLon(lat, lon float64) string {
	return strconv.FormatFloat(lat, 'f', -1, 64) + "," + strconv.FormatFloat(lon, 'f', -1, 64)
}
