package query

import (
	"math"
	"strings"

	"github.com/blugelabs/bluge"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// FunctionScoreQuery is {"function_score": {"query": q, "functions": [...],
// "score_mode", "boost_mode", "max_boost", "min_score"}}: the matches of q
// rescored by functions of their field values.
type FunctionScoreQuery struct {
	base
	query     Node
	functions []scoreFunction
	scoreMode string // multiply, sum, avg, first, max, min
	boostMode string // multiply, replace, sum, avg, max, min
	maxBoost  float32
	minScore  *float32
}

// scoreFunction is one entry of "functions" (or the single function).
type scoreFunction struct {
	filter Node // nil = all documents
	weight *float32
	kind   string // weight, field_value_factor, random_score, gauss, exp, linear
	fvf    *fieldValueFactor
	random *randomScore
	decay  *decayFunction
}

type fieldValueFactor struct {
	field    string
	factor   float32
	modifier string
	missing  *float64
}

type randomScore struct {
	seed    *int64
	field   string
	seedStr string
}

type decayFunction struct {
	field      string
	params     *jval
	multiValue string // min, max, avg, sum
}

func registerFunctionScore(p *Parser) {
	p.register("function_score", parseFunctionScore)
}

const misplacedFunctions = "you can either define [functions] array or a single function, not both. "

var (
	scoreModes = map[string]bool{"first": true, "avg": true, "max": true, "sum": true, "min": true, "multiply": true}
	boostModes = map[string]bool{"multiply": true, "replace": true, "sum": true, "avg": true, "min": true, "max": true}
	modifiers  = map[string]bool{"none": true, "log": true, "log1p": true, "log2p": true, "ln": true, "ln1p": true,
		"ln2p": true, "square": true, "sqrt": true, "reciprocal": true}
)

// parseFunctionScore follows FunctionScoreQueryBuilder.fromXContent.
func parseFunctionScore(p *Parser, body *jval) (Node, error) {
	q := &FunctionScoreQuery{base: newBase(), scoreMode: "multiply", boostMode: "multiply", maxBoost: math.MaxFloat32}
	var (
		boost        float32 = 1
		singleFound  bool
		singleName   string
		arrayFound   bool
		queryDefined bool
	)
	for _, m := range body.members {
		v := m.val
		var err error
		switch {
		case v.kind == kObject && m.key == "query":
			if queryDefined {
				return nil, v.parsingErr("failed to parse [function_score] query. [query] is already defined.")
			}
			queryDefined = true
			q.query, err = p.parseInner(v)
		case v.kind == kObject:
			if singleFound {
				return nil, v.parsingErr("failed to parse [function_score] query. already found function [%s], now encountering [%s]. use [functions] array if you want to define several functions.", singleName, m.key)
			}
			if arrayFound {
				return nil, v.parsingErr("failed to parse [function_score] query. [%salready found [functions] array, now encountering [%s].]", misplacedFunctions, m.key)
			}
			singleFound, singleName = true, m.key
			var f scoreFunction
			f, err = parseScoreFunction(m.key, v)
			q.functions = append(q.functions, f)
		case v.kind == kArray:
			if m.key != "functions" {
				return nil, v.parsingErr("failed to parse [function_score] query. array [%s] is not supported", m.key)
			}
			if singleFound {
				return nil, v.parsingErr("failed to parse [function_score] query. [%salready found [%s], now encountering [functions].]", misplacedFunctions, singleName)
			}
			arrayFound = true
			err = parseFunctionsArray(p, v, &q.functions)
		case v.kind.isValue():
			switch m.key {
			case "score_mode":
				if !scoreModes[strings.ToLower(v.s)] {
					return nil, searchcore.IllegalArgument("No enum constant org.elasticsearch.common.lucene.search.function.FunctionScoreQuery.ScoreMode.%s", strings.ToUpper(v.s))
				}
				q.scoreMode = strings.ToLower(v.s)
			case "boost_mode":
				if !boostModes[strings.ToLower(v.s)] {
					return nil, searchcore.IllegalArgument("No enum constant org.elasticsearch.common.lucene.search.function.CombineFunction.%s", strings.ToUpper(v.s))
				}
				q.boostMode = strings.ToLower(v.s)
			case "max_boost":
				q.maxBoost, err = v.floatValue()
			case "boost":
				boost, err = v.floatValue()
			case "_name":
				q.name = v.s
			case "min_score":
				var f float32
				f, err = v.floatValue()
				q.minScore = &f
			default:
				if singleFound {
					return nil, v.parsingErr("failed to parse [function_score] query. already found function [%s], now encountering [%s]. use [functions] array if you want to define several functions.", singleName, m.key)
				}
				if arrayFound {
					return nil, v.parsingErr("failed to parse [function_score] query. [%salready found [functions] array, now encountering [%s].]", misplacedFunctions, m.key)
				}
				if m.key != "weight" {
					return nil, v.parsingErr("failed to parse [function_score] query. field [%s] is not supported", m.key)
				}
				var w float32
				w, err = v.floatValue()
				singleFound, singleName = true, m.key
				q.functions = append(q.functions, scoreFunction{kind: "weight", weight: &w})
			}
		default:
			return nil, v.parsingErr("failed to parse [function_score] query. field [%s] is not supported", m.key)
		}
		if err != nil {
			return nil, err
		}
	}
	if q.maxBoost <= 0 || math.IsNaN(float64(q.maxBoost)) {
		return nil, searchcore.IllegalArgument("[max_boost] must be positive")
	}
	if err := q.setBoost(boost, body); err != nil {
		return nil, err
	}
	return q, nil
}

// parseFunctionsArray is FunctionScoreQueryBuilder.parseFiltersAndFunctions.
func parseFunctionsArray(p *Parser, arr *jval, out *[]scoreFunction) error {
	for _, e := range arr.elems {
		if e.kind != kObject {
			return e.parsingErr("failed to parse [function_score] query. malformed query, expected a [START_OBJECT] while parsing functions but got a [%s] instead", e.kind.token())
		}
		var (
			f      *scoreFunction
			filter Node
			weight *float32
		)
		for _, m := range e.members {
			v := m.val
			switch {
			case v.kind == kObject && m.key == "filter":
				n, err := p.parseInner(v)
				if err != nil {
					return err
				}
				filter = n
			case v.kind == kObject:
				if f != nil {
					return v.parsingErr("failed to parse function_score functions. already found [%s], now encountering [%s].", f.kind, m.key)
				}
				sf, err := parseScoreFunction(m.key, v)
				if err != nil {
					return err
				}
				f = &sf
			case v.kind.isValue() && m.key == "weight":
				w, err := v.floatValue()
				if err != nil {
					return err
				}
				weight = &w
			default:
				return v.parsingErr("failed to parse [function_score] query. field [%s] is not supported", m.key)
			}
		}
		if weight != nil {
			if f == nil {
				f = &scoreFunction{kind: "weight"}
			}
			f.weight = weight
		}
		if f == nil {
			return searchcore.Errorf(searchcore.Invalid, "parse_exception",
				"failed to parse [function_score] query. an entry in functions list is missing a function.")
		}
		f.filter = filter
		*out = append(*out, *f)
	}
	return nil
}

// parseScoreFunction parses the body of a named score function.
func parseScoreFunction(name string, v *jval) (scoreFunction, error) {
	f := scoreFunction{kind: name}
	switch name {
	case "field_value_factor":
		fv := &fieldValueFactor{factor: 1, modifier: "none"}
		for _, m := range v.members {
			iv := m.val
			if !iv.kind.isValue() {
				if iv.kind == kNull && m.key == "missing" {
					continue
				}
				return f, iv.parsingErr("[field_value_factor] field_value_factor does not support [%s]", m.key)
			}
			var err error
			switch m.key {
			case "field":
				fv.field = iv.s
			case "factor":
				fv.factor, err = iv.floatValue()
			case "modifier":
				mod := strings.ToLower(iv.s)
				if !modifiers[mod] {
					return f, searchcore.IllegalArgument("No enum constant org.elasticsearch.common.lucene.search.function.FieldValueFactorFunction.Modifier.%s", strings.ToUpper(iv.s))
				}
				fv.modifier = mod
			case "missing":
				var d float64
				d, err = iv.doubleValue()
				fv.missing = &d
			default:
				err = iv.parsingErr("field_value_factor query does not support [%s]", m.key)
			}
			if err != nil {
				return f, err
			}
		}
		if fv.field == "" {
			return f, v.parsingErr("[field_value_factor] required field 'field' missing")
		}
		f.fvf = fv
	case "random_score":
		rs := &randomScore{}
		for _, m := range v.members {
			iv := m.val
			switch {
			case m.key == "seed" && iv.kind == kNumber:
				n, err := javaParseLong(iv.s)
				if err != nil {
					x, ferr := iv.doubleValue()
					if ferr != nil {
						return f, ferr
					}
					n = int64(x)
				}
				rs.seed = &n
			case m.key == "seed" && iv.kind == kString:
				h := int64(javaStringHash(iv.s))
				rs.seed, rs.seedStr = &h, iv.s
			case m.key == "seed":
				return f, iv.parsingErr("random_score seed must be an int, long or string, not '%s'", iv.kind.token())
			case m.key == "field" && iv.kind.isValue():
				rs.field = iv.s
			default:
				return f, iv.parsingErr("random_score query does not support [%s]", m.key)
			}
		}
		f.random = rs
	case "gauss", "exp", "linear":
		d := &decayFunction{multiValue: "min"}
		for _, m := range v.members {
			iv := m.val
			switch {
			case iv.kind == kObject:
				d.field, d.params = m.key, iv
			case m.key == "multi_value_mode" && iv.kind.isValue():
				mode := strings.ToLower(iv.s)
				switch mode {
				case "min", "max", "avg", "sum":
				default:
					return f, searchcore.IllegalArgument("Illegal MultiValueMode [%s]", iv.s)
				}
				d.multiValue = mode
			default:
				return f, iv.parsingErr("malformed score function score parameters.")
			}
		}
		if d.params == nil {
			return f, v.parsingErr("malformed score function score parameters.")
		}
		f.decay = d
	case "script_score":
		return f, v.parsingErr("[script_score] scripts are not supported")
	default:
		return f, v.doc.errAt(v.off, "named_object_not_found_exception", true,
			"unable to parse ScoreFunctionBuilder with name [%s]: parser not found", name)
	}
	return f, nil
}

// javaStringHash is String.hashCode.
func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// Compile implements Node.
func (q *FunctionScoreQuery) Compile(ctx *Context) (bluge.Query, error) {
	var inner bluge.Query = &matchAllQuery{score: 1}
	if q.query != nil {
		c, err := ctx.CompileNode(q.query)
		if err != nil {
			return nil, err
		}
		inner = c
	}
	fs := &functionScoreQuery{inner: inner, scoreMode: q.scoreMode, boostMode: q.boostMode,
		maxBoost: float64(q.maxBoost), boost: float64(q.boost)}
	if q.minScore != nil {
		m := float64(*q.minScore)
		fs.minScore = &m
	}
	if len(q.functions) == 0 {
		fs.scoreMode, fs.boostMode = "first", "multiply"
	}
	for _, f := range q.functions {
		cf, err := compileFunction(ctx, f)
		if err != nil {
			return nil, err
		}
		fs.functions = append(fs.functions, cf)
	}
	return fs, nil
}

func compileFunction(ctx *Context, f scoreFunction) (compiledFunction, error) {
	cf := compiledFunction{weight: 1}
	if f.weight != nil {
		cf.weight, cf.hasWeight = float64(*f.weight), true
	}
	if f.filter != nil {
		q, err := ctx.CompileNode(f.filter)
		if err != nil {
			return cf, err
		}
		cf.filter = q
	}
	switch f.kind {
	case "weight":
		cf.kind = fnWeight
	case "field_value_factor":
		cf.kind = fnFieldValue
		cf.factor, cf.modifier, cf.missing = float64(f.fvf.factor), f.fvf.modifier, f.fvf.missing
		ft, _ := ctx.lookupField(f.fvf.field)
		switch {
		case ft == nil:
			if f.fvf.missing == nil {
				return cf, ctx.failedToCreate(searchcore.Errorf(searchcore.Invalid, "exception",
					"Unable to find a field mapper for field [%s]. No 'missing' value defined.", f.fvf.field))
			}
		case !ft.isNumber() && !ft.isDate() && ft.typ != mapping.TypeBoolean:
			return cf, ctx.failedToCreate(searchcore.IllegalArgument(
				"Field [%s] of type [%s] is not supported for aggregation [field_value_factor]", ft.path, ft.typ))
		default:
			cf.field = ft.path
		}
		cf.fieldName = f.fvf.field
	case "random_score":
		cf.kind = fnRandom
		if f.random.seed != nil {
			cf.seed = *f.random.seed
		} else {
			cf.seed = ctx.now().UnixNano()
		}
		cf.field = idField
		cf.fieldName = f.random.field
		if cf.fieldName == "" {
			cf.fieldName = "null" // as ES explains a random_score without field
		}
		switch f.random.field {
		case "", seqNoField:
			// _seq_no (the field ES documents for random_score) is not a
			// doc values field here; _id is as distinct per document and
			// as stable, so the same seed gives the same scores.
		default:
			ft, _ := ctx.lookupField(f.random.field)
			if ft == nil {
				return cf, ctx.failedToCreate(searchcore.IllegalArgument("field [%s] does not exist", f.random.field))
			}
			cf.field = ft.path
		}
	default:
		if err := compileDecay(ctx, f, &cf); err != nil {
			return cf, err
		}
	}
	return cf, nil
}

// compileDecay is DecayFunctionBuilder.parseVariable for numbers, dates
// and geo points.
func compileDecay(ctx *Context, f scoreFunction, cf *compiledFunction) error {
	d := f.decay
	cf.kind, cf.decayType, cf.multiValue = fnDecay, f.kind, d.multiValue
	ft, _ := ctx.lookupField(d.field)
	if ft == nil {
		return ctx.failedToCreate(d.params.parsingErr("unknown field [%s]", d.field))
	}
	cf.field = ft.path
	var origin, scale, offset *jval
	decay := 0.5
	for _, m := range d.params.members {
		var err error
		switch m.key {
		case "origin":
			origin = m.val
		case "scale":
			scale = m.val
		case "offset":
			offset = m.val
		case "decay":
			decay, err = m.val.doubleValue()
		default:
			err = geoParseErr("parameter [%s] not supported!", m.key)
		}
		if err != nil {
			return ctx.failedToCreate(err)
		}
	}
	var err error
	switch {
	case ft.typ == mapping.TypeGeoPoint:
		cf.geo = true
		if origin == nil || scale == nil {
			return ctx.failedToCreate(geoParseErr("[origin] and [scale] must be set for geo fields."))
		}
		if cf.originLat, cf.originLon, err = parseGeoPoint(origin); err != nil {
			return ctx.failedToCreate(err)
		}
		if cf.scale, err = parseDistance(scale.s, 1); err != nil {
			return ctx.failedToCreate(err)
		}
		if offset != nil {
			if cf.offset, err = parseDistance(offset.s, 1); err != nil {
				return ctx.failedToCreate(err)
			}
		}
	case ft.isDate():
		if scale == nil {
			return ctx.failedToCreate(geoParseErr("[scale] must be set for date fields."))
		}
		if origin == nil || origin.kind == kNull {
			cf.origin = float64(ctx.now().UnixMilli())
		} else {
			s, _ := scalarOf(origin)
			lo, _, err := ctx.dateRange(ctx.dateMathFor(ft, "", nil), &s, &s, true, true)
			if err != nil {
				return ctx.failedToCreate(err)
			}
			cf.origin = float64(lo)
		}
		if cf.scale, err = parseTimeMillis(scale.s, "scale"); err != nil {
			return ctx.failedToCreate(err)
		}
		if offset != nil {
			if cf.offset, err = parseTimeMillis(offset.s, "offset"); err != nil {
				return ctx.failedToCreate(err)
			}
		}
	case ft.isNumber():
		if origin == nil || scale == nil {
			return ctx.failedToCreate(geoParseErr("both [scale] and [origin] must be set for numeric fields."))
		}
		if cf.origin, err = origin.doubleValue(); err != nil {
			return ctx.failedToCreate(err)
		}
		if cf.scale, err = scale.doubleValue(); err != nil {
			return ctx.failedToCreate(err)
		}
		if offset != nil {
			if cf.offset, err = offset.doubleValue(); err != nil {
				return ctx.failedToCreate(err)
			}
		}
	default:
		return ctx.failedToCreate(d.params.parsingErr("field [%s] is of type [%s], but only numeric types are supported.", d.field, ft.typ))
	}
	if cf.scale <= 0 {
		return ctx.failedToCreate(searchcore.IllegalArgument("[%s] : scale must be > 0.0.", f.kind))
	}
	if decay <= 0 || decay >= 1 {
		return ctx.failedToCreate(searchcore.IllegalArgument("[%s] : decay must be in the range [0..1].", f.kind))
	}
	if cf.offset < 0 {
		return ctx.failedToCreate(searchcore.IllegalArgument("[%s] : offset must be > 0.0", f.kind))
	}
	switch f.kind {
	case "gauss":
		cf.procScale = 0.5 * cf.scale * cf.scale / math.Log(decay)
	case "exp":
		cf.procScale = math.Log(decay) / cf.scale
	default:
		cf.procScale = cf.scale / (1 - decay)
	}
	return nil
}

// parseTimeMillis is TimeValue.parseTimeValue, in milliseconds.
func parseTimeMillis(s, setting string) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	units := []struct {
		suffix string
		ms     float64
	}{
		{"nanos", 1e-6}, {"micros", 1e-3}, {"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000},
		{"d", 86400000},
	}
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			f, err := javaParseDouble(strings.TrimSpace(t[:len(t)-len(u.suffix)]))
			if err != nil {
				return 0, err
			}
			return f * u.ms, nil
		}
	}
	if t == "-1" || t == "0" {
		f, _ := javaParseDouble(t)
		return f, nil
	}
	return 0, geoParseErr("failed to parse setting [%s] with value [%s] as a time value: unit is missing or unrecognized", setting, s)
}
