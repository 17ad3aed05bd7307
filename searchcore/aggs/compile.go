package aggs

import (
	"encoding/json"
	"github.com/quarry-search/quarry/searchcore/eserr"
	"strings"
)

// compile builds the impl of one parsed aggregation.
func compile(cm *ctxMapping, d *def, parent *def) (impl, error) {
	p := newParams(d)
	var im impl
	var err error
	switch d.typ {
	case "min", "max", "sum", "avg", "value_count", "stats", "extended_stats":
		im, err = newStats(cm, p)
	case "cardinality":
		im, err = newCardinality(cm, p)
	case "percentiles", "percentile_ranks", "median_absolute_deviation":
		im, err = newValues(cm, p)
	case "weighted_avg":
		im, err = newWeightedAvg(cm, p)
	case "terms":
		im, err = newTerms(cm, p, d)
	case "significant_terms":
		im, err = newSigTerms(cm, p)
	case "histogram", "date_histogram":
		im, err = newHistogram(cm, p, d)
	case "range", "date_range":
		im, err = newRange(cm, p)
	case "missing":
		im, err = newMissing(cm, p)
	case "geo_bounds", "geo_centroid":
		im, err = newGeoMetric(cm, p)
	case "geohash_grid", "geotile_grid":
		im, err = newGrid(cm, p)
	case "auto_date_histogram":
		im, err = newAutoDate(cm, p)
	case "top_hits":
		im, err = newTopHits(cm, p)
	case "composite":
		im, err = newComposite(cm, p)
	case "filter", "filters":
		f, ferr := parseFilter(d)
		if ferr != nil {
			return nil, ferr
		}
		return f, f.compile(cm.qctx)
	case "nested":
		im, err = newNested(cm, p, d)
	case "reverse_nested":
		im, err = newReverseNested(cm, p, d)
	case "global":
		if parent != nil {
			return nil, eserr.Errorf(eserr.Invalid, "aggregation_execution_exception",
				"Aggregation [%s] cannot have a global sub-aggregation [%s]. Global aggregations can only be defined as top level aggregations", parent.name, d.name)
		}
		im = globalImpl{}
	default:
		im, err = newPipeline(p, parent)
	}
	if err != nil {
		return nil, err
	}
	if err := p.unknown(d); err != nil {
		return nil, err
	}
	return im, nil
}

func jsonUnmarshal(r json.RawMessage, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(r)))
	return dec.Decode(v)
}
