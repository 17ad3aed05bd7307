package query

import (
	"math"
	"strings"
	"time"

	"github.com/blugelabs/bluge"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// RangeQuery is {"range": {"<field>": {"gte": a, "lt": b, ...}}} over
// numbers, dates (formats, time zones, date math) and terms.
type RangeQuery struct {
	base
	field              string
	from, to           *scalar
	incLower, incUpper bool
	timeZone           *time.Location
	format             string
	relation           string
}

func registerRange(p *Parser) {
	p.register("range", parseRange)
}

// parseRange follows RangeQueryBuilder.fromXContent.
func parseRange(_ *Parser, body *jval) (Node, error) {
	q := &RangeQuery{base: newBase(), incLower: true, incUpper: true}
	var (
		field    string
		hasField bool
		boost    float32 = 1
		tz       *string
		relation *string
		format   *string
	)
	bound := func(v *jval, key string) (*scalar, error) {
		if v.kind == kNull {
			return nil, nil
		}
		s, ok := scalarOf(v)
		if !ok {
			return nil, v.parsingErr("[range] query does not support [%s]", key)
		}
		return &s, nil
	}
	for _, m := range body.members {
		v := m.val
		if v.kind != kObject {
			return nil, v.parsingErr("[range] query does not support [%s]", m.key)
		}
		if err := throwOnMultipleFields("range", v, field, m.key, hasField); err != nil {
			return nil, err
		}
		field, hasField = m.key, true
		for _, im := range v.members {
			iv := im.val
			var err error
			switch im.key {
			case "from":
				q.from, err = bound(iv, im.key)
			case "to":
				q.to, err = bound(iv, im.key)
			case "include_lower":
				q.incLower, err = iv.booleanValue()
			case "include_upper":
				q.incUpper, err = iv.booleanValue()
			case "boost":
				boost, err = iv.floatValue()
			case "gt":
				q.from, err = bound(iv, im.key)
				q.incLower = false
			case "gte":
				q.from, err = bound(iv, im.key)
				q.incLower = true
			case "lt":
				q.to, err = bound(iv, im.key)
				q.incUpper = false
			case "lte":
				q.to, err = bound(iv, im.key)
				q.incUpper = true
			case "time_zone":
				var s string
				s, err = iv.text()
				tz = &s
			case "format":
				var s string
				s, err = iv.text()
				format = &s
			case "relation":
				var s string
				s, err = iv.text()
				relation = &s
			case "_name":
				q.name, err = iv.text()
			default:
				err = iv.parsingErr("[range] query does not support [%s]", im.key)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	if field == "" {
		return nil, searchcore.IllegalArgument("field name is null or empty")
	}
	q.field = field
	if tz != nil {
		loc, err := parseZone(*tz)
		if err != nil {
			return nil, err
		}
		q.timeZone = loc
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	if format != nil {
		q.format = *format
	}
	if relation != nil {
		switch r := strings.ToLower(*relation); r {
		case "intersects", "contains", "within":
			q.relation = r
		case "disjoint":
			return nil, searchcore.IllegalArgument("[range] query does not support relation [%s]", *relation)
		default:
			return nil, searchcore.IllegalArgument("%s is not a valid relation", *relation)
		}
	}
	return q, nil
}

// Compile implements Node.
func (q *RangeQuery) Compile(ctx *Context) (bluge.Query, error) {
	ft, _ := ctx.lookupField(q.field)
	if ft == nil {
		return matchNone(), nil
	}
	score := float64(q.boost)
	if q.from == nil && q.to == nil {
		return existsQuery(ctx, q.field, q.boost), nil
	}
	if !ft.isString() && !ft.isNumber() && !ft.isDate() && ft.typ != mapping.TypeBoolean {
		return nil, ctx.failedToCreate(searchcore.IllegalArgument("Field [%s] of type [%s] does not support range queries", ft.path, ft.typ))
	}
	if err := ctx.failIfNotIndexed(ft); err != nil {
		return nil, err
	}
	switch {
	case ft.isString():
		var lo, hi []byte
		if q.from != nil {
			s, err := ctx.normalize(ft, q.from.String())
			if err != nil {
				return nil, err
			}
			lo = []byte(s)
		}
		if q.to != nil {
			s, err := ctx.normalize(ft, q.to.String())
			if err != nil {
				return nil, err
			}
			hi = []byte(s)
		}
		return &termRangeQuery{field: ft.path, lo: lo, hi: hi, incLower: q.incLower, incUpper: q.incUpper, score: score}, nil
	case ft.isDate():
		dm := ctx.dateMathFor(ft, q.format, q.timeZone)
		lo, hi, err := ctx.dateRange(dm, q.from, q.to, q.incLower, q.incUpper)
		if err != nil {
			return nil, ctx.failedToCreate(err)
		}
		if lo > hi {
			return matchNone(), nil
		}
		return &numericRangeQuery{field: ft.path, lo: millisBound(lo), hi: millisBound(hi), score: score}, nil
	case ft.typ == mapping.TypeBoolean:
		lo, hi := 0.0, 1.0
		if q.from != nil {
			x, err := boolValue(*q.from)
			if err != nil {
				return nil, ctx.failedToCreate(err)
			}
			lo = x
			if !q.incLower {
				lo++
			}
		}
		if q.to != nil {
			x, err := boolValue(*q.to)
			if err != nil {
				return nil, ctx.failedToCreate(err)
			}
			hi = x
			if !q.incUpper {
				hi--
			}
		}
		return &numericRangeQuery{field: ft.path, lo: lo, hi: hi, score: score}, nil
	}
	lo, hi, none, err := numberRange(ft, q.from, q.to, q.incLower, q.incUpper)
	if err != nil {
		return nil, ctx.failedToCreate(err)
	}
	if none || lo > hi {
		return matchNone(), nil
	}
	return &numericRangeQuery{field: ft.path, lo: lo, hi: hi, score: score}, nil
}

// signum is NumberFieldMapper.signum.
func signum(v scalar) float64 {
	f, _ := v.float64Of()
	switch {
	case f > 0:
		return 1
	case f < 0:
		return -1
	}
	return 0
}

// numberRange computes the inclusive float64 bounds of NumberType.rangeQuery
// for the field's number type.
func numberRange(ft *fieldType, from, to *scalar, incLower, incUpper bool) (lo, hi float64, none bool, err error) {
	lo, hi = math.Inf(-1), math.Inf(1)
	switch {
	case ft.isIntegral():
		minV, maxV := float64(math.MinInt32), float64(math.MaxInt32)
		switch ft.typ {
		case mapping.TypeLong:
			minV, maxV = math.MinInt64, math.MaxInt64
		case mapping.TypeUnsignedLong:
			minV, maxV = 0, math.MaxUint64
		}
		if from != nil {
			l, err := parseIntegral(ft, *from)
			if err != nil {
				return 0, 0, false, err
			}
			dec, _ := hasDecimalPart(*from)
			if (!dec && !incLower) || (dec && signum(*from) > 0) {
				if l >= maxV {
					return 0, 0, true, nil
				}
				l++
			}
			lo = l
		}
		if to != nil {
			u, err := parseIntegral(ft, *to)
			if err != nil {
				return 0, 0, false, err
			}
			dec, _ := hasDecimalPart(*to)
			if (!dec && !incUpper) || (dec && signum(*to) < 0) {
				if u <= minV {
					return 0, 0, true, nil
				}
				u--
			}
			hi = u
		}
		return lo, hi, false, nil
	case ft.typ == mapping.TypeScaledFloat:
		sf := ft.scalingFactor()
		if from != nil {
			f, err := from.float64Of()
			if err != nil {
				return 0, 0, false, err
			}
			d := f * sf
			if !incLower {
				d = math.Nextafter(d, math.Inf(1))
			}
			lo = roundHalfUp(math.Ceil(d)) / sf
		}
		if to != nil {
			f, err := to.float64Of()
			if err != nil {
				return 0, 0, false, err
			}
			d := f * sf
			if !incUpper {
				d = math.Nextafter(d, math.Inf(-1))
			}
			hi = roundHalfUp(math.Floor(d)) / sf
		}
		return lo, hi, false, nil
	case ft.typ == mapping.TypeFloat:
		if from != nil {
			l, err := parseFloating(ft, *from)
			if err != nil {
				return 0, 0, false, err
			}
			l32 := float32(l)
			if !incLower {
				l32 = math.Nextafter32(l32, float32(math.Inf(1)))
			}
			lo = float64(l32)
		}
		if to != nil {
			u, err := parseFloating(ft, *to)
			if err != nil {
				return 0, 0, false, err
			}
			u32 := float32(u)
			if !incUpper {
				u32 = math.Nextafter32(u32, float32(math.Inf(-1)))
			}
			hi = float64(u32)
		}
		return lo, hi, false, nil
	case ft.typ == mapping.TypeHalfFloat:
		if from != nil {
			l, err := parseFloating(ft, *from)
			if err != nil {
				return 0, 0, false, err
			}
			lo = halfCeil(l, !incLower)
		}
		if to != nil {
			u, err := parseFloating(ft, *to)
			if err != nil {
				return 0, 0, false, err
			}
			hi = -halfCeil(-u, !incUpper)
		}
		return lo, hi, false, nil
	}
	// double
	if from != nil {
		l, err := from.float64Of()
		if err != nil {
			return 0, 0, false, err
		}
		if !incLower {
			l = math.Nextafter(l, math.Inf(1))
		}
		lo = l
	}
	if to != nil {
		u, err := to.float64Of()
		if err != nil {
			return 0, 0, false, err
		}
		if !incUpper {
			u = math.Nextafter(u, math.Inf(-1))
		}
		hi = u
	}
	return lo, hi, false, nil
}

// halfCeil returns the smallest half-float value >= x (> x when strict).
func halfCeil(x float64, strict bool) float64 {
	h := toHalfFloat(x)
	if h < x || (strict && h == x) {
		h = halfNextUp(h)
	}
	return h
}

// halfNextUp is the next representable half-float above h.
func halfNextUp(h float64) float64 {
	bits := floatToHalf(float32(h))
	switch {
	case bits == 0x7c00: // +inf
		return h
	case bits == 0x8000: // -0
		return halfToFloat(1)
	case bits&0x8000 != 0:
		return halfToFloat(bits - 1)
	}
	return halfToFloat(bits + 1)
}
