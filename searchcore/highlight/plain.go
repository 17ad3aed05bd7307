package highlight

import "sort"

// plainFragment is a fragment of the plain highlighter.
type plainFragment struct {
	text  string
	score int
	num   int
}

// plainField highlights one field like Elasticsearch's plain highlighter
// (Lucene's Highlighter with a fragment_size fragmenter and QueryScorer):
// each value is cut into fragments at the token that crosses the next
// multiple of fragment_size, a fragment scores one per distinct marked
// term, and the best fragments are returned best first.
func (p *Plan) plainField(pf *planField, values []string) []string {
	var frags []plainFragment
	for _, v := range values {
		vu := toU16(v)
		toks := p.analyze(pf.field, v, len(vu))
		matches := markTokens(toks, pf.terms)
		frags = append(frags, p.plainValue(pf, vu, toks, matches)...)
	}
	if pf.scoreOrder {
		sort.SliceStable(frags, func(i, j int) bool { return frags[i].score > frags[j].score })
	}
	n := pf.numberOfFragments
	if n == 0 {
		n = 1
		if len(values) > 1 {
			n = len(frags)
		}
	}
	if len(frags) > n {
		frags = frags[:n]
	}
	out := make([]string, 0, len(frags))
	for _, f := range frags {
		out = append(out, f.text)
	}
	if len(out) == 0 && pf.noMatchSize > 0 && len(values) > 0 {
		// The start of the first value, cut after the last token that ends
		// within no_match_size.
		vu := toU16(values[0])
		end := 0
		if len(vu) <= pf.noMatchSize {
			end = len(vu)
		} else {
			for _, t := range p.analyze(pf.field, values[0], len(vu)) {
				if t.end > pf.noMatchSize {
					break
				}
				end = t.end
			}
		}
		if end > 0 {
			out = append(out, p.encode(vu.str(0, end)))
		}
	}
	return out
}

// plainValue returns the scored fragments of one value (score > 0 only),
// best first, at most number_of_fragments (1 for the whole value when
// number_of_fragments is 0).
func (p *Plan) plainValue(pf *planField, vu u16, toks []token, matches []match) []plainFragment {
	// Fragment start offsets (SimpleSpanFragmenter): a new fragment begins
	// after the token preceding the first token whose end reaches
	// fragment_size * n, unless less than half a fragment of text is left.
	starts := []int{0}
	if pf.numberOfFragments > 0 && pf.fragmentSize > 0 {
		continues := map[int]bool{}
		for _, m := range matches {
			if m.inPhrase {
				continues[m.start] = true
			}
		}
		n := 1
		for i := 1; i < len(toks); i++ {
			span := !pf.simpleFragmenter
			if span && continues[toks[i].start] {
				continue // never inside a phrase
			}
			if toks[i].end >= pf.fragmentSize*n && (!span || len(vu)-toks[i].end >= pf.fragmentSize/2) {
				n++
				starts = append(starts, toks[i-1].end)
			}
		}
	}
	var frags []plainFragment
	for i, s := range starts {
		e := len(vu)
		if i+1 < len(starts) {
			e = starts[i+1]
		}
		distinct := map[string]bool{}
		var in []match
		for _, m := range matches {
			if m.start >= s && m.end <= e {
				in = append(in, m)
				distinct[m.term] = true
			}
		}
		if len(distinct) == 0 {
			continue
		}
		frags = append(frags, plainFragment{text: p.format(pf, vu, s, e, in), score: len(distinct), num: i})
	}
	sort.SliceStable(frags, func(i, j int) bool { return frags[i].score > frags[j].score })
	limit := pf.numberOfFragments
	if limit == 0 {
		limit = 1
	}
	if len(frags) > limit {
		frags = frags[:limit]
	}
	return frags
}
