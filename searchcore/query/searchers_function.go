package query

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"strconv"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/numeric"
	"github.com/blugelabs/bluge/search"
	segment "github.com/blugelabs/bluge_segment_api"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// The function_score scorer: it wraps the inner query's searcher, reads
// the documents' values for the functions and rewrites each score as ES's
// FunctionScoreQuery does.

type fnKind int

const (
	fnWeight fnKind = iota
	fnFieldValue
	fnRandom
	fnDecay
)

// compiledFunction is a score function ready to evaluate.
type compiledFunction struct {
	kind      fnKind
	filter    bluge.Query // nil = every document
	weight    float64
	hasWeight bool
	field     string // doc values field ("" = unmapped)
	fieldName string

	// field_value_factor
	factor   float64
	modifier string
	missing  *float64

	// random_score
	seed int64

	// decay
	decayType            string
	multiValue           string
	geo                  bool
	origin               float64
	originLat, originLon float64
	scale, offset        float64
	procScale            float64
}

type functionScoreQuery struct {
	inner     bluge.Query
	functions []compiledFunction
	scoreMode string
	boostMode string
	maxBoost  float64
	minScore  *float64
	boost     float64
}

func (f *functionScoreQuery) Searcher(i search.Reader, o search.SearcherOptions) (search.Searcher, error) {
	inner, err := f.inner.Searcher(i, o)
	if err != nil {
		return nil, err
	}
	fs := &functionScoreSearcher{Searcher: inner, q: f, values: map[string][][]byte{}, explain: o.Explain}
	fieldSet := map[string]bool{}
	for _, fn := range f.functions {
		var cur *docCursor
		if fn.filter != nil {
			s, err := fn.filter.Searcher(i, o)
			if err != nil {
				_ = fs.Close()
				return nil, err
			}
			cur = &docCursor{s: s}
		}
		fs.filters = append(fs.filters, cur)
		if fn.field != "" && !fieldSet[fn.field] {
			fieldSet[fn.field] = true
			fs.fields = append(fs.fields, fn.field)
		}
	}
	if len(fs.fields) > 0 {
		dv, err := i.DocumentValueReader(fs.fields)
		if err != nil {
			_ = fs.Close()
			return nil, err
		}
		fs.dv = dv
	}
	return fs, nil
}

type functionScoreSearcher struct {
	search.Searcher
	q       *functionScoreQuery
	filters []*docCursor
	fields  []string
	dv      segment.DocumentValueReader
	values  map[string][][]byte
	explain bool
}

func (s *functionScoreSearcher) Close() error {
	err := s.Searcher.Close()
	for _, f := range s.filters {
		if f != nil {
			if cerr := f.s.Close(); err == nil {
				err = cerr
			}
		}
	}
	return err
}

func (s *functionScoreSearcher) DocumentMatchPoolSize() int {
	n := s.Searcher.DocumentMatchPoolSize()
	for _, f := range s.filters {
		if f != nil {
			n += f.s.DocumentMatchPoolSize() + 1
		}
	}
	return n
}

func (s *functionScoreSearcher) Next(ctx *search.Context) (*search.DocumentMatch, error) {
	for {
		dm, err := s.Searcher.Next(ctx)
		if dm == nil || err != nil {
			return dm, err
		}
		ok, err := s.score(ctx, dm)
		if err != nil {
			return nil, err
		}
		if ok {
			return dm, nil
		}
		ctx.DocumentMatchPool.Put(dm)
	}
}

func (s *functionScoreSearcher) Advance(ctx *search.Context, n uint64) (*search.DocumentMatch, error) {
	dm, err := s.Searcher.Advance(ctx, n)
	for {
		if dm == nil || err != nil {
			return dm, err
		}
		ok, err := s.score(ctx, dm)
		if err != nil {
			return nil, err
		}
		if ok {
			return dm, nil
		}
		ctx.DocumentMatchPool.Put(dm)
		dm, err = s.Searcher.Next(ctx)
	}
}

// loadValues reads the document's values of the function fields.
func (s *functionScoreSearcher) loadValues(n uint64) error {
	for k, v := range s.values {
		s.values[k] = v[:0]
	}
	if s.dv == nil {
		return nil
	}
	return s.dv.VisitDocumentValues(n, func(field string, term []byte) {
		s.values[field] = append(s.values[field], term)
	})
}

// score computes the function score of dm; it reports false when the
// document falls below min_score.
func (s *functionScoreSearcher) score(ctx *search.Context, dm *search.DocumentMatch) (bool, error) {
	q := s.q
	if err := s.loadValues(dm.Number); err != nil {
		return false, err
	}
	factor := 1.0
	var total, weightSum float64
	best, worst := math.Inf(-1), math.Inf(1)
	var fnExp []*search.Explanation
	for i := range q.functions {
		fn := &q.functions[i]
		if c := s.filters[i]; c != nil {
			hit, err := c.matches(ctx, dm.Number)
			if err != nil {
				return false, err
			}
			if !hit {
				continue
			}
		}
		v, err := s.eval(fn, dm)
		if err != nil {
			return false, err
		}
		if s.explain {
			fnExp = append(fnExp, search.NewExplanation(v, fn.describe()))
		}
		switch q.scoreMode {
		case "first":
			factor = v
		case "multiply":
			factor *= v
		case "max":
			best = math.Max(best, v)
		case "min":
			worst = math.Min(worst, v)
		default: // sum, avg
			total += v
			weightSum += fn.weight
		}
		if q.scoreMode == "first" {
			break
		}
	}
	switch q.scoreMode {
	case "max":
		if !math.IsInf(best, -1) {
			factor = best
		}
	case "min":
		if !math.IsInf(worst, 1) {
			factor = worst
		}
	case "sum", "avg":
		if weightSum != 0 {
			factor = total
			if q.scoreMode == "avg" {
				factor /= weightSum
			}
		}
	}
	factor = math.Min(factor, q.maxBoost)
	sub := dm.Score
	var score float64
	switch q.boostMode {
	case "replace":
		score = factor
	case "sum":
		score = sub + factor
	case "avg":
		score = (sub + factor) / 2
	case "max":
		score = math.Max(sub, factor)
	case "min":
		score = math.Min(sub, factor)
	default:
		score = sub * factor
	}
	score = float64(float32(score))
	if q.minScore != nil && score < *q.minScore {
		return false, nil
	}
	dm.Score = score * q.boost
	if s.explain {
		dm.Explanation = search.NewExplanation(dm.Score, "function score, boost_mode ["+q.boostMode+"], boost "+
			javaDoubleString(q.boost)+", of:", dm.Explanation,
			search.NewExplanation(factor, "functions combined by score_mode ["+q.scoreMode+"], at most max_boost", fnExp...))
	}
	return true, nil
}

// numbers decodes the numeric doc values of field.
func (s *functionScoreSearcher) numbers(field string) []float64 {
	var out []float64
	for _, t := range s.values[field] {
		pc := numeric.PrefixCoded(t)
		if shift, err := pc.Shift(); err != nil || shift != 0 {
			continue
		}
		i64, err := pc.Int64()
		if err != nil {
			continue
		}
		out = append(out, numeric.Int64ToFloat64(i64))
	}
	return out
}

// eval is one function's (weighted) score for the current document.
func (s *functionScoreSearcher) eval(fn *compiledFunction, dm *search.DocumentMatch) (float64, error) {
	var v float64
	switch fn.kind {
	case fnWeight:
		return fn.weight, nil
	case fnFieldValue:
		var x float64
		vals := s.numbers(fn.field)
		switch {
		case len(vals) > 0:
			x = vals[0]
			for _, y := range vals[1:] {
				x = math.Min(x, y)
			}
		case fn.missing != nil:
			x = *fn.missing
		default:
			return 0, searchcore.Errorf(searchcore.Invalid, "exception", "Missing value for field [%s]", fn.fieldName)
		}
		v = applyModifier(fn.modifier, x*fn.factor)
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return 0, searchcore.IllegalArgument("field value function must not produce negative scores, but got: [%s] for field value: [%s]",
				javaDoubleString(v), javaDoubleString(x))
		}
	case fnRandom:
		h := fnv.New64a()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(fn.seed))
		_, _ = h.Write(b[:])
		vals := s.values[fn.field]
		if len(vals) > 0 {
			_, _ = h.Write(vals[0])
		} else {
			binary.LittleEndian.PutUint64(b[:], dm.Number)
			_, _ = h.Write(b[:])
		}
		// 24 random bits as a float in [0, 1), like Lucene's float scores
		v = float64(h.Sum64()>>40) / float64(1<<24)
	case fnDecay:
		v = s.decay(fn)
	}
	if fn.hasWeight {
		v *= fn.weight
	}
	return v, nil
}

// decay evaluates a gauss/exp/linear function; documents without a value
// score 1.
func (s *functionScoreSearcher) decay(fn *compiledFunction) float64 {
	var dists []float64
	if fn.geo {
		for _, t := range s.values[fn.field] {
			lon, lat, ok := decodeGeoPoint(t)
			if !ok {
				continue
			}
			dists = append(dists, math.Max(0, arcDistance(fn.originLat, fn.originLon, lat, lon)-fn.offset))
		}
	} else {
		for _, x := range s.numbers(fn.field) {
			dists = append(dists, math.Max(0, math.Abs(x-fn.origin)-fn.offset))
		}
	}
	if len(dists) == 0 {
		return 1
	}
	d := dists[0]
	switch fn.multiValue {
	case "max":
		for _, x := range dists[1:] {
			d = math.Max(d, x)
		}
	case "sum", "avg":
		for _, x := range dists[1:] {
			d += x
		}
		if fn.multiValue == "avg" {
			d /= float64(len(dists))
		}
	default:
		for _, x := range dists[1:] {
			d = math.Min(d, x)
		}
	}
	switch fn.decayType {
	case "gauss":
		return math.Exp(0.5 * d * d / fn.procScale)
	case "exp":
		return math.Exp(fn.procScale * d)
	}
	return math.Max(0, (fn.procScale-d)/fn.procScale)
}

// applyModifier is FieldValueFactorFunction.Modifier.apply.
func applyModifier(m string, x float64) float64 {
	switch m {
	case "log":
		return math.Log10(x)
	case "log1p":
		return math.Log10(x + 1)
	case "log2p":
		return math.Log10(x + 2)
	case "ln":
		return math.Log(x)
	case "ln1p":
		return math.Log1p(x)
	case "ln2p":
		return math.Log1p(x + 1)
	case "square":
		return x * x
	case "sqrt":
		return math.Sqrt(x)
	case "reciprocal":
		return 1 / x
	}
	return x
}

// describe names the function in explanations, after ES's ScoreFunction
// explanations.
func (fn *compiledFunction) describe() string {
	var d string
	switch fn.kind {
	case fnFieldValue:
		d = "field value function: " + fn.modifier + "(doc['" + fn.fieldName + "'].value * factor=" + javaDoubleString(fn.factor) + ")"
	case fnRandom:
		d = "random score function (seed: " + strconv.FormatInt(fn.seed, 10) + ", field: " + fn.fieldName + ")"
	case fnDecay:
		d = "Function for field " + fn.fieldName + ": " + fn.decayType
	default:
		d = "weight"
	}
	if fn.kind != fnWeight && fn.hasWeight {
		d += ", product with weight " + javaDoubleString(fn.weight)
	}
	if fn.filter != nil {
		d = "function matching filter: " + d
	}
	return d
}
