package query

import (
	"math"
	"strings"

	"github.com/blugelabs/bluge/search"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// GeoDistanceSort is a _geo_distance sort clause: documents sort by the
// distance of their geo_point values to Points, in Unit (meters per unit),
// picked by Mode, computed as DistanceType (arc or plane).
type GeoDistanceSort struct {
	Field          string
	Points         [][2]float64 // lat, lon
	Unit           float64
	DistanceType   string
	Mode           string
	IgnoreUnmapped bool
}

// parseGeoDistanceSort is GeoDistanceSortBuilder.fromXContent; it returns
// the clause and its order ("" when not given).
func parseGeoDistanceSort(v *jval) (*GeoDistanceSort, string, error) {
	if v.kind != kObject {
		return nil, "", v.parsingErr("[_geo_distance] Expected START_OBJECT")
	}
	g := &GeoDistanceSort{Unit: 1, DistanceType: "arc"}
	order := ""
	for _, m := range v.members {
		val := m.val
		switch m.key {
		case "order":
			if val.kind != kString {
				return nil, "", val.parsingErr("[_geo_distance] order doesn't support values of type: %s", val.kind.token())
			}
			o, err := sortOrderFromString(val.s)
			if err != nil {
				return nil, "", err
			}
			order = o
		case "unit":
			if val.kind != kString {
				return nil, "", val.parsingErr("[_geo_distance] unit doesn't support values of type: %s", val.kind.token())
			}
			u, err := distanceUnit(val.s)
			if err != nil {
				return nil, "", err
			}
			g.Unit = u
		case "distance_type", "distanceType":
			if val.kind != kString {
				return nil, "", val.parsingErr("[_geo_distance] distance_type doesn't support values of type: %s", val.kind.token())
			}
			switch strings.ToLower(val.s) {
			case "arc":
				g.DistanceType = "arc"
			case "plane":
				g.DistanceType = "plane"
			default:
				return nil, "", searchcore.IllegalArgument("No geo distance for [%s]", val.s)
			}
		case "mode":
			if val.kind != kString {
				return nil, "", val.parsingErr("[_geo_distance] mode doesn't support values of type: %s", val.kind.token())
			}
			switch l := strings.ToLower(val.s); l {
			case "min", "max", "avg", "median":
				g.Mode = l
			case "sum":
				return nil, "", searchcore.IllegalArgument("sort_mode [sum] isn't supported for sorting by geo distance")
			default:
				return nil, "", searchcore.IllegalArgument("Unknown MultiValueMode [%s]", val.s)
			}
		case "ignore_unmapped":
			b, err := val.booleanValue()
			if err != nil {
				return nil, "", err
			}
			g.IgnoreUnmapped = b
		case "validation_method", "nested", "nested_path", "nested_filter":
			// accepted: points are validated strictly, nested is not modelled
		default:
			if g.Field != "" {
				return nil, "", val.parsingErr("[_geo_distance] does not support multiple fields: [%s] and [%s]", g.Field, m.key)
			}
			g.Field = m.key
			pts, err := parseSortPoints(val)
			if err != nil {
				return nil, "", err
			}
			g.Points = pts
		}
	}
	if g.Field == "" || len(g.Points) == 0 {
		return nil, "", searchcore.IllegalArgument("No points provided for _geo_distance sort.")
	}
	return g, order, nil
}

// parseSortPoints reads one point or an array of points; an array of two
// numbers is one [lon, lat] point.
func parseSortPoints(v *jval) ([][2]float64, error) {
	if v.kind == kArray && len(v.elems) > 0 && v.elems[0].kind != kNumber {
		out := make([][2]float64, 0, len(v.elems))
		for _, e := range v.elems {
			lat, lon, err := parseGeoPoint(e)
			if err != nil {
				return nil, err
			}
			out = append(out, [2]float64{lat, lon})
		}
		return out, nil
	}
	lat, lon, err := parseGeoPoint(v)
	if err != nil {
		return nil, err
	}
	return [][2]float64{{lat, lon}}, nil
}

// planeDistance is GeoUtils.planeDistance in meters.
func planeDistance(lat1, lon1, lat2, lon2 float64) float64 {
	const toRad = math.Pi / 180
	x := (lon2 - lon1) * toRad * math.Cos((lat2+lat1)/2*toRad)
	y := (lat2 - lat1) * toRad
	return math.Sqrt(x*x+y*y) * earthMeanRadius
}

// compileGeoDistanceSort builds the value source of a _geo_distance clause.
func compileGeoDistanceSort(sf SortField, ctx *Context) (search.TextValueSource, SortDecoder, error) {
	g := sf.Geo
	dec := SortDecoder{field: "_geo_distance", kind: sortDouble}
	ft, _ := ctx.lookupField(g.Field)
	if ft == nil {
		if g.IgnoreUnmapped {
			return constSource([]byte{tagHigh}), dec, nil
		}
		return nil, dec, ctx.shardErr("failed to find mapper for [%s] for geo distance based sort", g.Field)
	}
	if ft.typ != mapping.TypeGeoPoint {
		return nil, dec, ctx.shardErr("field [%s] is of type [%s], but only geo_point fields are supported for geo distance sort", g.Field, ft.typ)
	}
	mode := g.Mode
	if mode == "" {
		mode = "min"
		if sf.Desc() {
			mode = "max"
		}
	}
	return &geoDistanceSortSource{g: g, field: ft.path, mode: mode}, dec, nil
}

type geoDistanceSortSource struct {
	g     *GeoDistanceSort
	field string
	mode  string
}

func (s *geoDistanceSortSource) Fields() []string { return []string{s.field} }

func (s *geoDistanceSortSource) Value(m *search.DocumentMatch) []byte {
	var vals []float64
	for _, t := range m.DocValues(s.field) {
		lon, lat, ok := decodeGeoPoint(t)
		if !ok {
			continue
		}
		for _, p := range s.g.Points {
			var d float64
			if s.g.DistanceType == "plane" {
				d = planeDistance(p[0], p[1], lat, lon)
			} else {
				d = arcDistance(p[0], p[1], lat, lon)
			}
			vals = append(vals, d/s.g.Unit)
		}
	}
	if len(vals) == 0 {
		// ES sorts documents without a point at +Infinity (last ascending,
		// first descending).
		return []byte{tagHigh}
	}
	return encodeOrderedFloat(pickMode(vals, s.mode, false))
}
