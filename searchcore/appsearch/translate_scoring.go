package appsearch

import (
	"errors"
	"strconv"
	"time"
)

// Scales of the proximity and recency decay functions (App Search exposes
// no scale): the boost halves at this distance from the center.
const (
	numberProximityScale = 10.0
	geoProximityScale    = "10km"
	recencyScale         = "365d"
	// expOrigin is the origin of the exp decay that computes e^value for
	// exponential functional boosts: exact for values up to expOrigin,
	// whose e^value (5.5e34) already dwarfs every text score.
	expOrigin = 80.0
)

// decayNames maps App Search function names onto the core's decay
// functions.
var decayNames = map[string]string{"gaussian": "gauss", "exponential": "exp", "linear": "linear"}

// boostQuery wraps q in function_score queries applying the boosts:
// score = (text score + additive boosts) * multiplicative boosts.
func boostQuery(q any, boosts []FieldBoosts, c *Context) any {
	var add, mul []any
	for _, fb := range boosts {
		t, _ := fieldType(c.Schema, fb.Field)
		for _, b := range fb.Boosts {
			fn, multiply := boostFunction(fb.Field, t, b, c)
			if fn == nil {
				continue
			}
			if multiply {
				mul = append(mul, fn)
			} else {
				add = append(add, fn)
			}
		}
	}
	if len(add) > 0 {
		// A weight-0 function that always matches makes the sum of a
		// document no boost applies to 0 (instead of function_score's 1).
		fns := append([]any{obj{{"weight", 0}}}, add...)
		q = obj{{"function_score", obj{{"query", q}, {"functions", fns}, {"score_mode", "sum"}, {"boost_mode", "sum"}}}}
	}
	if len(mul) > 0 {
		q = obj{{"function_score", obj{{"query", q}, {"functions", mul}, {"score_mode", "multiply"}, {"boost_mode", "multiply"}}}}
	}
	return q
}

// boostFunction is the score function of one boost and whether it
// multiplies (otherwise it adds).
func boostFunction(field string, t FieldType, b Boost, c *Context) (any, bool) {
	exists := obj{{"exists", obj{{"field", field}}}}
	factor := b.Factor
	switch b.Type {
	case "value":
		var filter any
		if t == Geolocation {
			var alts []any
			for _, v := range b.Values {
				p, err := ParseGeoPointString(v.str, c.Revision)
				if err == nil {
					alts = append(alts, geoDistance(field, p, 1, "m"))
				}
			}
			if len(alts) == 0 {
				return nil, false
			}
			filter = obj{{"bool", obj{{"should", alts}, {"minimum_should_match", 1}}}}
		} else {
			vals := make([]any, 0, len(b.Values))
			for _, v := range b.Values {
				vals = append(vals, coreValue(v, t))
			}
			filter = obj{{"terms", obj{{exactField(c.Schema, field), vals}}}}
		}
		return obj{{"filter", filter}, {"weight", factor}}, b.Operation == "multiply"
	case "functional":
		switch b.Function {
		case "exponential":
			// e^value = e^expOrigin * exp decay(value) with decay e^-1,
			// scale 1 and origin expOrigin.
			d := obj{{field, obj{{"origin", expOrigin}, {"scale", 1}, {"decay", 0.36787944117144233}}}}
			return obj{{"filter", exists}, {"exp", d}, {"weight", factor * 5.54062238439351e34}}, b.Operation == "multiply"
		case "logarithmic":
			fvf := obj{{"field", field}, {"factor", 1}, {"modifier", "ln1p"}, {"missing", 0}}
			return obj{{"filter", exists}, {"field_value_factor", fvf}, {"weight", factor}}, b.Operation == "multiply"
		}
		fvf := obj{{"field", field}, {"factor", 1}, {"modifier", "none"}, {"missing", 0}}
		return obj{{"filter", exists}, {"field_value_factor", fvf}, {"weight", factor}}, b.Operation == "multiply"
	case "proximity", "recency":
		params := obj{}
		switch t {
		case Geolocation:
			p, err := ParseGeoPoint(b.Center, c.Revision)
			if err != nil {
				return nil, false
			}
			params = obj{{"origin", p.String()}, {"scale", geoProximityScale}}
		case Number:
			f, _ := b.Center.asFloat()
			params = obj{{"origin", f}, {"scale", numberProximityScale}}
		case Date:
			origin := c.now().UTC().Format(time.RFC3339Nano)
			if !b.UseCurrentTime && b.Center != nil {
				if ms, err := dateValue(b.Center); err == nil {
					origin = strconv.FormatInt(ms, 10)
				}
			}
			params = obj{{"origin", origin}, {"scale", recencyScale}}
		default:
			return nil, false
		}
		return obj{{"filter", exists}, {decayNames[b.Function], obj{{field, params}}}, {"weight", factor}}, false
	}
	return nil, false
}

// dateValue reads a date given as a string or epoch milliseconds.
func dateValue(v *jvalue) (int64, error) {
	if v.kind == jNumber {
		f, _ := v.asFloat()
		return int64(f), nil
	}
	t, ok := ParseDate(v.str)
	if !ok {
		return 0, errDateFormat
	}
	return t.UnixMilli(), nil
}

// errDateFormat is the reason for an unparseable date.
var errDateFormat = errors.New("invalid date")

// millisToDate renders epoch milliseconds as an App Search date.
func millisToDate(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(DateLayout)
}

func (c *Context) now() time.Time {
	if c.Now.IsZero() {
		c.Now = time.Now()
	}
	return c.Now
}

// coreSort translates the sort clauses; a geolocation clause is a core
// _geo_distance sort (documents without a location sort as infinitely far).
func coreSort(list []SortClause, s Schema) []any {
	out := make([]any, 0, len(list))
	for _, c := range list {
		dir := "asc"
		if c.Desc {
			dir = "desc"
		}
		switch {
		case c.Field == "_score":
			out = append(out, obj{{"_score", obj{{"order", dir}}}})
		case c.Geo != nil:
			out = append(out, obj{{"_geo_distance", obj{
				{c.Field, c.Geo.Center.String()}, {"order", dir}, {"mode", c.Geo.Mode}, {"ignore_unmapped", true},
			}}})
		default:
			unmapped := "keyword"
			t, _ := fieldType(s, c.Field)
			switch t {
			case Number:
				unmapped = "double"
			case Date:
				unmapped = "date"
			}
			out = append(out, obj{{exactField(s, c.Field), obj{{"order", dir}, {"unmapped_type", unmapped}}}})
		}
	}
	return out
}

// facetAggs translates the facets into aggregations named f<i>_<j>.
func facetAggs(list []Facet, c *Context) obj {
	out := obj{}
	for i, f := range list {
		t, _ := fieldType(c.Schema, f.Field)
		for j, spec := range f.Specs {
			name := "f" + strconv.Itoa(i) + "_" + strconv.Itoa(j)
			if spec.Type == "value" {
				order := obj{{"_count", "desc"}}
				switch {
				case spec.SortBy == "value" && spec.SortDesc:
					order = obj{{"_key", "desc"}}
				case spec.SortBy == "value":
					order = obj{{"_key", "asc"}}
				case !spec.SortDesc:
					order = obj{{"_count", "asc"}}
				}
				terms := obj{{"field", exactField(c.Schema, f.Field)}, {"size", spec.Size}, {"order", order}}
				out = append(out, kv{name, obj{{"terms", terms}}})
				continue
			}
			filters := obj{}
			for k, r := range spec.Ranges {
				var q any
				if t == Geolocation {
					g := &GeoFilter{Center: spec.Center, Unit: spec.Unit}
					if r.From != nil {
						f, _ := r.From.asFloat()
						g.From = &f
					}
					if r.To != nil {
						f, _ := r.To.asFloat()
						g.To = &f
					}
					q = geoFilterQuery(f.Field, g)
				} else {
					q = rangeQuery(f.Field, t, r)
				}
				filters = append(filters, kv{"r" + strconv.Itoa(k), q})
			}
			out = append(out, kv{name, obj{{"filters", obj{{"filters", filters}}}}})
		}
	}
	return out
}
