package query

import (
	"math"
	"strings"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/numeric"
	"github.com/blugelabs/bluge/numeric/geo"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/searcher"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// Geo queries on geo_point fields: geo_distance, geo_bounding_box and
// geo_polygon. All are constant score (the query boost).

// GeoDistanceQuery is {"geo_distance": {"distance": "12km", "<field>": point}}.
type GeoDistanceQuery struct {
	base
	field          string
	lat, lon       float64
	meters         float64
	ignoreUnmapped bool
	coerce         bool
}

// GeoBoundingBoxQuery is {"geo_bounding_box": {"<field>": {corners}}}.
type GeoBoundingBoxQuery struct {
	base
	field                    string
	top, left, bottom, right float64
	ignoreUnmapped           bool
	coerce                   bool
}

// GeoPolygonQuery is {"geo_polygon": {"<field>": {"points": [...]}}}.
type GeoPolygonQuery struct {
	base
	field          string
	points         []geo.Point
	ignoreUnmapped bool
	coerce         bool
}

func registerGeo(p *Parser) {
	p.register("geo_distance", parseGeoDistance)
	p.register("geo_bounding_box", parseGeoBoundingBox)
	p.register("geo_polygon", parseGeoPolygon)
}

// geoParseErr is ElasticsearchParseException.
func geoParseErr(format string, args ...any) *searchcore.Error {
	return searchcore.Errorf(searchcore.Invalid, "parse_exception", format, args...)
}

// distanceUnits are ES's DistanceUnit values in enum order (suffix
// matching tries them in this order) with their size in meters.
var distanceUnits = []struct {
	names  []string
	meters float64
}{
	{[]string{"in", "inch"}, 0.0254},
	{[]string{"yd", "yards"}, 0.9144},
	{[]string{"ft", "feet"}, 0.3048},
	{[]string{"km", "kilometers"}, 1000},
	{[]string{"NM", "nmi", "nauticalmiles"}, 1852},
	{[]string{"mm", "millimeters"}, 0.001},
	{[]string{"cm", "centimeters"}, 0.01},
	{[]string{"mi", "miles"}, 1609.344},
	{[]string{"m", "meters"}, 1},
}

// distanceUnit is DistanceUnit.fromString.
func distanceUnit(s string) (float64, error) {
	for _, u := range distanceUnits {
		for _, n := range u.names {
			if n == s {
				return u.meters, nil
			}
		}
	}
	return 0, searchcore.IllegalArgument("No distance unit match [%s]", s)
}

// parseDistance is DistanceUnit.parse: a number with an optional unit
// suffix (defaultUnit meters per unit otherwise), in meters.
func parseDistance(s string, defaultUnit float64) (float64, error) {
	for _, u := range distanceUnits {
		for _, n := range u.names {
			if strings.HasSuffix(s, n) {
				f, err := javaParseDouble(s[:len(s)-len(n)])
				if err != nil {
					return 0, err
				}
				return f * u.meters, nil
			}
		}
	}
	f, err := javaParseDouble(s)
	if err != nil {
		return 0, err
	}
	return f * defaultUnit, nil
}

// parseGeoPoint is GeoUtils.parseGeoPoint: {"lat","lon"}, [lon, lat],
// "lat,lon", a geohash or "POINT (lon lat)".
func parseGeoPoint(v *jval) (lat, lon float64, err error) {
	switch v.kind {
	case kObject:
		var hasLat, hasLon bool
		var hash string
		for _, m := range v.members {
			switch m.key {
			case "lat", "lon":
				var f float64
				switch m.val.kind {
				case kNumber, kString:
					f, err = m.val.doubleValue()
					if err != nil {
						return 0, 0, err
					}
				default:
					if m.key == "lat" {
						return 0, 0, geoParseErr("latitude must be a number")
					}
					return 0, 0, geoParseErr("longitude must be a number")
				}
				if m.key == "lat" {
					lat, hasLat = f, true
				} else {
					lon, hasLon = f, true
				}
			case "geohash":
				if m.val.kind != kString {
					return 0, 0, geoParseErr("geohash must be a string")
				}
				hash = m.val.s
			case "z":
			default:
				return 0, 0, geoParseErr("field must be either [lon], [lat], [z] or [geohash]")
			}
		}
		if hash != "" {
			if hasLat || hasLon {
				return 0, 0, geoParseErr("field must be either lat/lon or geohash")
			}
			return decodeGeohash(hash)
		}
		if !hasLat {
			return 0, 0, geoParseErr("field [lat] missing")
		}
		if !hasLon {
			return 0, 0, geoParseErr("field [lon] missing")
		}
		return lat, lon, nil
	case kArray:
		if len(v.elems) < 2 {
			return 0, 0, geoParseErr("geo_point expected")
		}
		if len(v.elems) > 3 {
			return 0, 0, geoParseErr("[geo_point] field type does not accept > 3 dimensions")
		}
		var xs [2]float64
		for i := 0; i < 2; i++ {
			e := v.elems[i]
			if e.kind != kNumber {
				return 0, 0, geoParseErr("numeric value expected")
			}
			xs[i], err = e.doubleValue()
			if err != nil {
				return 0, 0, err
			}
		}
		return xs[1], xs[0], nil
	case kString:
		return parseGeoPointString(v.s)
	}
	return 0, 0, geoParseErr("geo_point expected")
}

func parseGeoPointString(s string) (lat, lon float64, err error) {
	t := strings.TrimSpace(s)
	if up := strings.ToUpper(t); strings.HasPrefix(up, "POINT") {
		inner := strings.TrimSpace(t[5:])
		if !strings.HasPrefix(inner, "(") || !strings.HasSuffix(inner, ")") {
			return 0, 0, geoParseErr("failed to parse WKT point [%s]", s)
		}
		parts := strings.Fields(inner[1 : len(inner)-1])
		if len(parts) < 2 || len(parts) > 3 {
			return 0, 0, geoParseErr("failed to parse WKT point [%s]", s)
		}
		if lon, err = javaParseDouble(parts[0]); err != nil {
			return 0, 0, err
		}
		if lat, err = javaParseDouble(parts[1]); err != nil {
			return 0, 0, err
		}
		return lat, lon, nil
	}
	parts := strings.Split(t, ",")
	switch len(parts) {
	case 1:
		return decodeGeohash(t)
	case 2, 3:
		if lat, err = javaParseDouble(strings.TrimSpace(parts[0])); err != nil {
			return 0, 0, geoParseErr("latitude must be a number")
		}
		if lon, err = javaParseDouble(strings.TrimSpace(parts[1])); err != nil {
			return 0, 0, geoParseErr("longitude must be a number")
		}
		return lat, lon, nil
	}
	return 0, 0, geoParseErr("failed to parse [%s], expected 2 or 3 coordinates but found: [%d]", s, len(parts))
}

// decodeGeohash returns the point a geohash stands for: the bottom-left
// corner of its cell, as Elasticsearch's GeoPoint.resetFromGeoHash.
func decodeGeohash(h string) (lat, lon float64, err error) {
	latLo, _, lonLo, _, err := geohashCell(h)
	if err != nil {
		return 0, 0, err
	}
	return latLo, lonLo, nil
}

// geohashCell returns the bounds of a geohash cell.
func geohashCell(h string) (latLo, latHi, lonLo, lonHi float64, err error) {
	if h == "" || len(h) > 12 {
		return 0, 0, 0, 0, geoParseErr("unsupported symbol [%s] in geohash [%s]", h, h)
	}
	latLo, latHi, lonLo, lonHi, bad, ok := mapping.GeohashCell(h)
	if !ok {
		return 0, 0, 0, 0, geoParseErr("unsupported symbol [%c] in geohash [%s]", bad, h)
	}
	return latLo, latHi, lonLo, lonHi, nil
}

// geohashOf returns the geohash a point value names ("" for the other
// forms): a string without comma or WKT point, or {"geohash": ...}.
func geohashOf(v *jval) string {
	switch v.kind {
	case kString:
		t := strings.TrimSpace(v.s)
		if !strings.Contains(t, ",") && !strings.HasPrefix(strings.ToUpper(t), "POINT") {
			return t
		}
	case kObject:
		if len(v.members) == 1 && v.members[0].key == "geohash" && v.members[0].val.kind == kString {
			return v.members[0].val.s
		}
	}
	return ""
}

// parseCorner parses a bounding box corner: a geohash stands for the same
// corner of its cell (GeoUtils.EffectivePoint), other forms for themselves.
func parseCorner(v *jval, top, left bool) (lat, lon float64, err error) {
	h := geohashOf(v)
	if h == "" {
		return parseGeoPoint(v)
	}
	latLo, latHi, lonLo, lonHi, err := geohashCell(h)
	if err != nil {
		return 0, 0, err
	}
	lat, lon = latLo, lonHi
	if top {
		lat = latHi
	}
	if left {
		lon = lonLo
	}
	return lat, lon, nil
}

// parseValidation is GeoValidationMethod.fromString; it reports whether
// coordinates are coerced/ignored instead of checked.
func parseValidation(s string) (bool, error) {
	switch strings.ToUpper(s) {
	case "STRICT":
		return false, nil
	case "COERCE", "IGNORE_MALFORMED":
		return true, nil
	}
	return false, searchcore.IllegalArgument("No enum constant org.elasticsearch.index.query.GeoValidationMethod.%s", strings.ToUpper(s))
}

// parseGeoDistance follows GeoDistanceQueryBuilder.fromXContent.
func parseGeoDistance(_ *Parser, body *jval) (Node, error) {
	q := &GeoDistanceQuery{base: newBase()}
	var (
		boost     float32 = 1
		distance  *jval
		unit      = 1.0
		hasField  bool
		pointSeen bool
	)
	for _, m := range body.members {
		v := m.val
		var err error
		switch {
		case v.kind == kArray || v.kind == kObject:
			if err := throwOnMultipleFields("geo_distance", v, q.field, m.key, hasField); err != nil {
				return nil, err
			}
			q.field, hasField = m.key, true
			q.lat, q.lon, err = parseGeoPoint(v)
			pointSeen = true
		case m.key == "distance":
			if !v.kind.isValue() {
				return nil, v.parsingErr("failed to parse [geo_distance] query. unexpected field [%s]", m.key)
			}
			distance = v
		case m.key == "unit":
			unit, err = distanceUnit(v.s)
		case m.key == "distance_type":
			switch strings.ToLower(v.s) {
			case "arc", "plane":
			default:
				err = searchcore.IllegalArgument("No geo distance for [%s]", v.s)
			}
		case m.key == "_name":
			q.name = v.s
		case m.key == "boost":
			boost, err = v.floatValue()
		case m.key == "ignore_unmapped":
			q.ignoreUnmapped, err = v.booleanValue()
		case m.key == "validation_method":
			q.coerce, err = parseValidation(v.s)
		case !hasField && v.kind == kString:
			q.field, hasField = m.key, true
			q.lat, q.lon, err = parseGeoPointString(v.s)
			pointSeen = true
		default:
			err = v.parsingErr("failed to parse [geo_distance] query. unexpected field [%s]", m.key)
		}
		if err != nil {
			return nil, err
		}
	}
	if distance == nil {
		return nil, body.parsingErr("geo_distance requires 'distance' to be specified")
	}
	if !pointSeen || q.field == "" {
		return nil, searchcore.IllegalArgument("fieldName must not be null or empty")
	}
	var err error
	if distance.kind == kNumber {
		var f float64
		f, err = distance.doubleValue()
		q.meters = f * unit
	} else {
		q.meters, err = parseDistance(distance.s, unit)
	}
	if err != nil {
		return nil, err
	}
	if q.meters <= 0 || math.IsNaN(q.meters) {
		return nil, searchcore.IllegalArgument("distance must be greater than zero")
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// geoField resolves a geo_point field as the geo query builders do.
func (c *Context) geoField(name, field string, ignoreUnmapped bool) (*fieldType, bool, error) {
	ft, _ := c.lookupField(field)
	if ft == nil {
		if ignoreUnmapped {
			return nil, false, nil
		}
		return nil, false, c.shardErr("failed to find geo_point field [%s]", field)
	}
	if ft.typ != mapping.TypeGeoPoint {
		return nil, false, c.shardErr("field [%s] is not a geo_point field", field)
	}
	return ft, true, nil
}

// checkLatLon is the STRICT validation of one point.
func (c *Context) checkLatLon(name string, lat, lon float64) error {
	if math.IsNaN(lat) || lat < -90 || lat > 90 {
		return c.shardErr("illegal latitude value [%s] for [%s]", javaDoubleString(lat), name)
	}
	if math.IsNaN(lon) || lon < -180 || lon > 180 {
		return c.shardErr("illegal longitude value [%s] for [%s]", javaDoubleString(lon), name)
	}
	return nil
}

// normalizeLatLon is GeoUtils.normalizePoint (coerce).
func normalizeLatLon(lat, lon float64) (float64, float64) {
	if lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180 {
		return lat, lon
	}
	lat = math.Mod(lat+180, 360)
	if lat < 0 {
		lat += 360
	}
	lat -= 180
	flip := false
	if lat > 90 {
		lat, flip = 180-lat, true
	} else if lat < -90 {
		lat, flip = -180-lat, true
	}
	if flip {
		lon += 180
	}
	lon = math.Mod(lon+180, 360)
	if lon < 0 {
		lon += 360
	}
	return lat, lon - 180
}

// Compile implements Node.
func (q *GeoDistanceQuery) Compile(ctx *Context) (bluge.Query, error) {
	ft, ok, err := ctx.geoField("geo_distance", q.field, q.ignoreUnmapped)
	if !ok {
		return matchNone(), err
	}
	lat, lon := q.lat, q.lon
	if q.coerce {
		lat, lon = normalizeLatLon(lat, lon)
	} else if err := ctx.checkLatLon("geo_distance", lat, lon); err != nil {
		return nil, err
	}
	return &geoDistanceQuery{field: ft.path, lat: lat, lon: lon, meters: q.meters, score: float64(q.boost)}, nil
}

// earthMeanRadius is ES's GeoUtils.EARTH_MEAN_RADIUS in meters.
const earthMeanRadius = 6371008.7714

// arcDistance is GeoUtils.arcDistance (haversine) in meters.
func arcDistance(lat1, lon1, lat2, lon2 float64) float64 {
	const toRad = math.Pi / 180
	x1, x2 := lat1*toRad, lat2*toRad
	h1 := 1 - math.Cos(x1-x2)
	h2 := 1 - math.Cos((lon1-lon2)*toRad)
	h := h1 + math.Cos(x1)*math.Cos(x2)*h2
	return earthMeanRadius * 2 * math.Asin(math.Min(1, math.Sqrt(h*0.5)))
}

// geoDistanceQuery matches the points within meters of (lat, lon) by arc
// distance: a bounding-box search filtered on the doc values.
type geoDistanceQuery struct {
	field            string
	lat, lon, meters float64
	score            float64
}

func (g *geoDistanceQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	var box bluge.Query
	if g.meters >= math.Pi*earthMeanRadius {
		box = bluge.NewGeoBoundingBoxQuery(-180, 90, 180, -90).SetField(g.field)
	} else {
		tlLon, tlLat, brLon, brLat, err := geo.RectFromPointDistance(g.lon, g.lat, g.meters)
		if err != nil {
			return nil, err
		}
		box = bluge.NewGeoBoundingBoxQuery(tlLon, tlLat, brLon, brLat).SetField(g.field)
	}
	s, err := constScore(box, g.score).Searcher(i, o)
	if err != nil {
		return nil, err
	}
	dv, err := i.DocumentValueReader([]string{g.field})
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	return searcher.NewFilteringSearcher(s, func(d *search.DocumentMatch) bool {
		found := false
		_ = dv.VisitDocumentValues(d.Number, func(field string, term []byte) {
			if found || field != g.field {
				return
			}
			lon, lat, ok := decodeGeoPoint(term)
			if ok && arcDistance(g.lat, g.lon, lat, lon) <= g.meters {
				found = true
			}
		})
		return found
	}), nil
}

// parseGeoBoundingBox follows GeoBoundingBoxQueryBuilder.fromXContent.
func parseGeoBoundingBox(_ *Parser, body *jval) (Node, error) {
	q := &GeoBoundingBoxQuery{base: newBase()}
	var boost float32 = 1
	found := false
	for _, m := range body.members {
		v := m.val
		var err error
		switch {
		case v.kind == kObject:
			q.field = m.key
			q.top, q.left, q.bottom, q.right, err = parseBoundingBox(v)
			found = true
		case m.key == "_name":
			q.name = v.s
		case m.key == "boost":
			boost, err = v.floatValue()
		case m.key == "ignore_unmapped":
			q.ignoreUnmapped, err = v.booleanValue()
		case m.key == "validation_method":
			q.coerce, err = parseValidation(v.s)
		case m.key == "type":
			switch strings.ToLower(v.s) {
			case "memory", "indexed":
			default:
				err = searchcore.IllegalArgument("failed to parse [geo_bounding_box] query. unknown type [%s]", v.s)
			}
		default:
			err = v.parsingErr("failed to parse [geo_bbox] query. unexpected field [%s]", m.key)
		}
		if err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, geoParseErr("failed to parse [geo_bbox] query. bounding box not provided")
	}
	if !q.coerce && q.top < q.bottom {
		return nil, searchcore.IllegalArgument("top is below bottom corner: %s vs. %s",
			javaDoubleString(q.top), javaDoubleString(q.bottom))
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// parseBoundingBox is GeoBoundingBox.parseBoundingBox.
func parseBoundingBox(v *jval) (top, left, bottom, right float64, err error) {
	top, left, bottom, right = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	wkt := false
	var wTop, wLeft, wBottom, wRight float64
	for _, m := range v.members {
		var lat, lon float64
		switch m.key {
		case "wkt":
			if m.val.kind != kString {
				return 0, 0, 0, 0, geoParseErr("failed to parse bounding box. unexpected field [%s]", m.key)
			}
			wLeft, wRight, wTop, wBottom, err = parseWKTEnvelope(m.val.s)
			wkt = true
		case "top", "bottom", "left", "right":
			var f float64
			if !m.val.kind.isValue() {
				return 0, 0, 0, 0, geoParseErr("failed to parse bounding box. unexpected field [%s]", m.key)
			}
			f, err = m.val.doubleValue()
			switch m.key {
			case "top":
				top = f
			case "bottom":
				bottom = f
			case "left":
				left = f
			default:
				right = f
			}
		case "top_left", "topLeft":
			lat, lon, err = parseCorner(m.val, true, true)
			top, left = lat, lon
		case "bottom_right", "bottomRight":
			lat, lon, err = parseCorner(m.val, false, false)
			bottom, right = lat, lon
		case "top_right", "topRight":
			lat, lon, err = parseCorner(m.val, true, false)
			top, right = lat, lon
		case "bottom_left", "bottomLeft":
			lat, lon, err = parseCorner(m.val, false, true)
			bottom, left = lat, lon
		default:
			return 0, 0, 0, 0, geoParseErr("failed to parse bounding box. unexpected field [%s]", m.key)
		}
		if err != nil {
			return 0, 0, 0, 0, err
		}
	}
	nan := math.IsNaN(top) || math.IsNaN(bottom) || math.IsNaN(left) || math.IsNaN(right)
	allNaN := math.IsNaN(top) && math.IsNaN(bottom) && math.IsNaN(left) && math.IsNaN(right)
	if wkt {
		if !allNaN {
			return 0, 0, 0, 0, geoParseErr("failed to parse bounding box. Conflicting definition found using well-known text and explicit corners.")
		}
		return wTop, wLeft, wBottom, wRight, nil
	}
	if nan {
		return 0, 0, 0, 0, geoParseErr("failed to parse bounding box. Conflicting definition found using well-known text and explicit corners.")
	}
	return top, left, bottom, right, nil
}

// parseWKTEnvelope parses "BBOX (minLon, maxLon, maxLat, minLat)".
func parseWKTEnvelope(s string) (minLon, maxLon, maxLat, minLat float64, err error) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(strings.ToUpper(t), "BBOX") {
		return 0, 0, 0, 0, geoParseErr("failed to parse WKT bounding box. [%s] geometries are not supported", strings.Fields(t + " x")[0])
	}
	inner := strings.TrimSpace(t[4:])
	if !strings.HasPrefix(inner, "(") || !strings.HasSuffix(inner, ")") {
		return 0, 0, 0, 0, geoParseErr("expected '(' but found: %s", inner)
	}
	parts := strings.Split(inner[1:len(inner)-1], ",")
	if len(parts) != 4 {
		return 0, 0, 0, 0, geoParseErr("failed to parse WKT bounding box [%s]", s)
	}
	var xs [4]float64
	for i, p := range parts {
		if xs[i], err = javaParseDouble(strings.TrimSpace(p)); err != nil {
			return 0, 0, 0, 0, err
		}
	}
	return xs[0], xs[1], xs[2], xs[3], nil
}

// Compile implements Node.
func (q *GeoBoundingBoxQuery) Compile(ctx *Context) (bluge.Query, error) {
	ft, ok, err := ctx.geoField("geo_bounding_box", q.field, q.ignoreUnmapped)
	if !ok {
		return matchNone(), err
	}
	top, left, bottom, right := q.top, q.left, q.bottom, q.right
	if q.coerce {
		top, left = normalizeLatLon(top, left)
		bottom, right = normalizeLatLon(bottom, right)
	} else {
		if err := ctx.checkLatLon("geo_bounding_box", top, left); err != nil {
			return nil, err
		}
		if err := ctx.checkLatLon("geo_bounding_box", bottom, right); err != nil {
			return nil, err
		}
	}
	box := bluge.NewGeoBoundingBoxQuery(left, top, right, bottom).SetField(ft.path).SetBoost(1)
	return constScore(box, float64(q.boost)), nil
}

// parseGeoPolygon follows GeoPolygonQueryBuilder.fromXContent.
func parseGeoPolygon(_ *Parser, body *jval) (Node, error) {
	q := &GeoPolygonQuery{base: newBase()}
	var boost float32 = 1
	var pts *jval
	for _, m := range body.members {
		v := m.val
		var err error
		switch {
		case v.kind == kObject:
			q.field = m.key
			for _, im := range v.members {
				if im.key != "points" || im.val.kind != kArray {
					if im.val.kind == kArray {
						return nil, im.val.parsingErr("[geo_polygon] query does not support [%s]", im.key)
					}
					return nil, im.val.parsingErr("[geo_polygon] query does not support token type [%s] under [%s]", im.val.kind.token(), im.key)
				}
				pts = im.val
			}
		case !v.kind.isValue():
			err = v.parsingErr("[geo_polygon] query does not support token type [%s] under [%s]", v.kind.token(), m.key)
		case m.key == "_name":
			q.name = v.s
		case m.key == "boost":
			boost, err = v.floatValue()
		case m.key == "ignore_unmapped":
			q.ignoreUnmapped, err = v.booleanValue()
		case m.key == "validation_method":
			q.coerce, err = parseValidation(v.s)
		default:
			err = v.parsingErr("[geo_polygon] query does not support [%s]", m.key)
		}
		if err != nil {
			return nil, err
		}
	}
	if q.field == "" {
		return nil, searchcore.IllegalArgument("fieldName must not be null")
	}
	if pts == nil || len(pts.elems) == 0 {
		return nil, searchcore.IllegalArgument("polygon must not be null or empty")
	}
	for _, e := range pts.elems {
		lat, lon, err := parseGeoPoint(e)
		if err != nil {
			return nil, err
		}
		q.points = append(q.points, geo.Point{Lon: lon, Lat: lat})
	}
	first, last := q.points[0], q.points[len(q.points)-1]
	if first != last {
		q.points = append(q.points, first)
	}
	if len(q.points) < 4 {
		return nil, searchcore.IllegalArgument("too few points defined for geo_polygon query")
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// Compile implements Node.
func (q *GeoPolygonQuery) Compile(ctx *Context) (bluge.Query, error) {
	ft, ok, err := ctx.geoField("geo_polygon", q.field, q.ignoreUnmapped)
	if !ok {
		return matchNone(), err
	}
	pts := make([]geo.Point, len(q.points))
	for i, p := range q.points {
		if q.coerce {
			p.Lat, p.Lon = normalizeLatLon(p.Lat, p.Lon)
		} else if err := ctx.checkLatLon("geo_polygon", p.Lat, p.Lon); err != nil {
			return nil, err
		}
		pts[i] = p
	}
	return constScore(&geoPolygonQuery{field: ft.path, points: pts}, float64(q.boost)), nil
}

// geoPolygonQuery matches the points inside a polygon (closed ring, not
// crossing the dateline, as Lucene's polygon query): a bounding-box
// search filtered by a point-in-polygon test on the doc values. (bluge's
// own polygon searcher takes seconds on large polygons.)
type geoPolygonQuery struct {
	field  string
	points []geo.Point
}

func (g *geoPolygonQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	minLat, maxLat, minLon, maxLon := 90.0, -90.0, 180.0, -180.0
	for _, p := range g.points {
		minLat, maxLat = math.Min(minLat, p.Lat), math.Max(maxLat, p.Lat)
		minLon, maxLon = math.Min(minLon, p.Lon), math.Max(maxLon, p.Lon)
	}
	s, err := bluge.NewGeoBoundingBoxQuery(minLon, maxLat, maxLon, minLat).SetField(g.field).Searcher(i, o)
	if err != nil {
		return nil, err
	}
	dv, err := i.DocumentValueReader([]string{g.field})
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	return searcher.NewFilteringSearcher(s, func(d *search.DocumentMatch) bool {
		found := false
		_ = dv.VisitDocumentValues(d.Number, func(field string, term []byte) {
			if found || field != g.field {
				return
			}
			lon, lat, ok := decodeGeoPoint(term)
			if ok && pointInPolygon(g.points, lat, lon) {
				found = true
			}
		})
		return found
	}), nil
}

// pointInPolygon is the even-odd ray casting test (points on an edge
// count as inside).
func pointInPolygon(ring []geo.Point, lat, lon float64) bool {
	in := false
	for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
		a, b := ring[i], ring[j]
		// on the edge a-b?
		cross := (b.Lon-a.Lon)*(lat-a.Lat) - (b.Lat-a.Lat)*(lon-a.Lon)
		if math.Abs(cross) < 1e-12 && lon >= math.Min(a.Lon, b.Lon) && lon <= math.Max(a.Lon, b.Lon) &&
			lat >= math.Min(a.Lat, b.Lat) && lat <= math.Max(a.Lat, b.Lat) {
			return true
		}
		if (a.Lat > lat) != (b.Lat > lat) && lon < (b.Lon-a.Lon)*(lat-a.Lat)/(b.Lat-a.Lat)+a.Lon {
			in = !in
		}
	}
	return in
}

// decodeGeoPoint decodes a full-precision geo_point doc value (bluge also
// stores the shifted prefix terms of the point, which are skipped).
func decodeGeoPoint(term []byte) (lon, lat float64, ok bool) {
	if shift, err := numeric.PrefixCoded(term).Shift(); err != nil || shift != 0 {
		return 0, 0, false
	}
	lon, lat, err := bluge.DecodeGeoLonLat(term)
	return lon, lat, err == nil
}
