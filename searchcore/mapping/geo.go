package mapping

import (
	"math"
	"strconv"
	"strings"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

func geoParseErr(format string, args ...any) *eserr.Error {
	return eserr.Errorf(eserr.Invalid, "parse_exception", format, args...)
}

// geoNumber reads a latitude/longitude member (number or numeric string).
func geoNumber(n *jnode, what string) (float64, *eserr.Error) {
	switch n.kind {
	case jNumber:
		v, _ := strconv.ParseFloat(n.str, 64)
		return v, nil
	case jString:
		v, err := strconv.ParseFloat(strings.TrimSpace(n.str), 64)
		if err != nil {
			return 0, eserr.New("number_format_exception", "For input string: \""+n.str+"\"")
		}
		return v, nil
	}
	return 0, geoParseErr("%s must be a number", what)
}

// parseGeoPoint parses a geo_point in any of Elasticsearch's forms: object
// {lat, lon} (or {geohash} / GeoJSON), "lat,lon", geohash, [lon, lat] and
// WKT "POINT (lon lat)". Out-of-range coordinates are an error unless
// ignore_malformed is set, in which case they are normalized.
func parseGeoPoint(f *Field, path string, n *jnode) (lat, lon float64, cause *eserr.Error) {
	ignoreZ := true
	if raw, ok := f.Extra["ignore_z_value"]; ok && string(raw) == "false" {
		ignoreZ = false
	}
	checkZ := func(z float64) *eserr.Error {
		if !ignoreZ {
			return eserr.IllegalArgument("Exception parsing coordinates: found Z value [%s] but [ignore_z_value] parameter is [false]", javaDouble(z))
		}
		return nil
	}
	switch n.kind {
	case jObject:
		var hasLat, hasLon bool
		var geohash string
		var hasHash bool
		var typ string
		var coords *jnode
		for i, k := range n.keys {
			v := n.vals[i]
			switch k {
			case "lat":
				if lat, cause = geoNumber(v, "latitude"); cause != nil {
					return
				}
				hasLat = true
			case "lon":
				if lon, cause = geoNumber(v, "longitude"); cause != nil {
					return
				}
				hasLon = true
			case "geohash":
				if v.kind != jString {
					return 0, 0, geoParseErr("geohash must be a string")
				}
				geohash, hasHash = v.str, true
			case "type":
				typ = nodeText(v)
			case "coordinates":
				coords = v
			case "z":
				z, c := geoNumber(v, "z")
				if c != nil {
					return 0, 0, c
				}
				if c := checkZ(z); c != nil {
					return 0, 0, c
				}
			default:
				return 0, 0, geoParseErr("field must be either [lat], [lon] or [geohash]")
			}
		}
		switch {
		case hasHash:
			if hasLat || hasLon {
				return 0, 0, geoParseErr("field must be either lat/lon or geohash")
			}
			lat, lon, cause = decodeGeohash(geohash)
		case typ != "" || coords != nil:
			if !strings.EqualFold(typ, "point") {
				return 0, 0, geoParseErr("[type] for geo_point can only be 'Point'")
			}
			if coords == nil || coords.kind != jArray {
				return 0, 0, geoParseErr("[coordinates] must be an array")
			}
			lat, lon, cause = geoFromArray(coords, checkZ)
		case !hasLat:
			return 0, 0, geoParseErr("field [lat] missing")
		case !hasLon:
			return 0, 0, geoParseErr("field [lon] missing")
		}
	case jArray:
		lat, lon, cause = geoFromArray(n, checkZ)
	case jString:
		s := strings.TrimSpace(n.str)
		switch {
		case len(s) >= 5 && strings.EqualFold(s[:5], "POINT"):
			lat, lon, cause = parseWKTPoint(s, checkZ)
		case strings.Contains(s, ","):
			parts := strings.Split(s, ",")
			if len(parts) > 3 {
				return 0, 0, geoParseErr("failed to parse [%s], expected 2 or 3 coordinates but found: [%d]", s, len(parts))
			}
			if len(parts) < 2 {
				return 0, 0, geoParseErr("failed to parse [%s], expected 2 or 3 coordinates but found: [%d]", s, len(parts))
			}
			var err error
			if lat, err = strconv.ParseFloat(strings.TrimSpace(parts[0]), 64); err != nil {
				return 0, 0, eserr.New("number_format_exception", "For input string: \""+strings.TrimSpace(parts[0])+"\"")
			}
			if lon, err = strconv.ParseFloat(strings.TrimSpace(parts[1]), 64); err != nil {
				return 0, 0, eserr.New("number_format_exception", "For input string: \""+strings.TrimSpace(parts[1])+"\"")
			}
			if len(parts) == 3 {
				z, err := strconv.ParseFloat(strings.TrimSpace(parts[2]), 64)
				if err != nil {
					return 0, 0, eserr.New("number_format_exception", "For input string: \""+strings.TrimSpace(parts[2])+"\"")
				}
				if c := checkZ(z); c != nil {
					return 0, 0, c
				}
			}
		default:
			lat, lon, cause = decodeGeohash(s)
		}
	default:
		return 0, 0, geoParseErr("geo_point expected")
	}
	if cause != nil {
		return 0, 0, cause
	}
	if math.IsNaN(lat) || math.IsNaN(lon) || lat > 90 || lat < -90 || lon > 180 || lon < -180 {
		if f.IgnoreMalformed != nil && *f.IgnoreMalformed {
			lat, lon = normalizePoint(lat, lon)
			return lat, lon, nil
		}
		if lat > 90 || lat < -90 || math.IsNaN(lat) {
			return 0, 0, eserr.IllegalArgument("illegal latitude value [%s] for %s", javaDouble(lat), path)
		}
		return 0, 0, eserr.IllegalArgument("illegal longitude value [%s] for %s", javaDouble(lon), path)
	}
	return lat, lon, nil
}

// isGeoArrayPoint reports whether an array is a single [lon, lat(, z)] point.
func isGeoArrayPoint(n *jnode) bool {
	if n.kind != jArray || len(n.vals) < 2 || len(n.vals) > 3 {
		return false
	}
	for _, v := range n.vals {
		if v.kind != jNumber {
			return false
		}
	}
	return true
}

func geoFromArray(n *jnode, checkZ func(float64) *eserr.Error) (lat, lon float64, cause *eserr.Error) {
	if len(n.vals) > 3 {
		return 0, 0, geoParseErr("[geo_point] field type does not accept > 3 dimensions")
	}
	if len(n.vals) < 2 {
		return 0, 0, geoParseErr("[geo_point] field type should have at least two dimensions")
	}
	for _, v := range n.vals {
		if v.kind != jNumber {
			return 0, 0, geoParseErr("numeric value expected")
		}
	}
	lon, _ = strconv.ParseFloat(n.vals[0].str, 64)
	lat, _ = strconv.ParseFloat(n.vals[1].str, 64)
	if len(n.vals) == 3 {
		z, _ := strconv.ParseFloat(n.vals[2].str, 64)
		if c := checkZ(z); c != nil {
			return 0, 0, c
		}
	}
	return lat, lon, nil
}

func parseWKTPoint(s string, checkZ func(float64) *eserr.Error) (lat, lon float64, cause *eserr.Error) {
	body := strings.TrimSpace(s[5:])
	if !strings.HasPrefix(body, "(") || !strings.HasSuffix(body, ")") {
		return 0, 0, geoParseErr("failed to parse WKT [%s]: expected '('", s)
	}
	fields := strings.Fields(body[1 : len(body)-1])
	if len(fields) < 2 || len(fields) > 3 {
		return 0, 0, geoParseErr("failed to parse WKT [%s]: expected number but found: '%s'", s, body)
	}
	var err error
	if lon, err = strconv.ParseFloat(fields[0], 64); err != nil {
		return 0, 0, geoParseErr("failed to parse WKT [%s]: expected number but found: '%s'", s, fields[0])
	}
	if lat, err = strconv.ParseFloat(fields[1], 64); err != nil {
		return 0, 0, geoParseErr("failed to parse WKT [%s]: expected number but found: '%s'", s, fields[1])
	}
	if len(fields) == 3 {
		z, err := strconv.ParseFloat(fields[2], 64)
		if err != nil {
			return 0, 0, geoParseErr("failed to parse WKT [%s]: expected number but found: '%s'", s, fields[2])
		}
		if c := checkZ(z); c != nil {
			return 0, 0, c
		}
	}
	return lat, lon, nil
}

const geohashAlphabet = "0123456789bcdefghjkmnpqrstuvwxyz"

// DecodeGeohash returns the point a geohash (1 to 12 characters) stands
// for: the bottom-left corner of its cell, as Elasticsearch's
// GeoPoint.resetFromGeoHash (morton-encoded, then decoded).
func DecodeGeohash(h string) (lat, lon float64, err error) {
	lat, lon, cause := decodeGeohash(h)
	if cause != nil {
		return 0, 0, cause
	}
	return lat, lon, nil
}

// decodeGeohash returns the bottom-left corner of a geohash cell.
func decodeGeohash(h string) (lat, lon float64, cause *eserr.Error) {
	if h == "" || len(h) > 12 {
		return 0, 0, eserr.IllegalArgument("unsupported geohash [%s]", h)
	}
	latLo, _, lonLo, _, bad, ok := GeohashCell(strings.ToLower(h))
	if !ok {
		return 0, 0, eserr.IllegalArgument("unsupported symbol [%c] in geohash [%s]", bad, h)
	}
	return latLo, lonLo, nil
}

// GeohashCell returns the bounds of the cell a lower-case geohash names, or
// the first character outside the geohash alphabet (ok false).
func GeohashCell(h string) (latLo, latHi, lonLo, lonHi float64, bad rune, ok bool) {
	latLo, latHi, lonLo, lonHi = -90.0, 90.0, -180.0, 180.0
	even := true
	for _, c := range h {
		idx := strings.IndexRune(geohashAlphabet, c)
		if idx < 0 {
			return 0, 0, 0, 0, c, false
		}
		for bit := 4; bit >= 0; bit-- {
			on := idx&(1<<bit) != 0
			if even {
				mid := (lonLo + lonHi) / 2
				if on {
					lonLo = mid
				} else {
					lonHi = mid
				}
			} else {
				mid := (latLo + latHi) / 2
				if on {
					latLo = mid
				} else {
					latHi = mid
				}
			}
			even = !even
		}
	}
	return latLo, latHi, lonLo, lonHi, 0, true
}

// normalizePoint wraps out-of-range coordinates like GeoUtils.normalizePoint.
func normalizePoint(lat, lon float64) (float64, float64) {
	if math.IsNaN(lat) || math.IsNaN(lon) {
		return 0, 0
	}
	flip := false
	if lat > 90 || lat < -90 {
		off := math.Mod(lat+90, 360)
		if off < 0 {
			off += 360
		}
		if off <= 180 {
			lat = off - 90
		} else {
			lat = 270 - off
			flip = true
		}
	}
	if flip {
		lon += 180
	}
	if lon > 180 || lon < -180 {
		lon = math.Mod(lon+180, 360)
		if lon < 0 {
			lon += 360
		}
		lon -= 180
	}
	return lat, lon
}
