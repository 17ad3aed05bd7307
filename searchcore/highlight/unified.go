package highlight

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// paragraphSep joins the values of a multi-valued field so each holds its
// own passages (HighlightUtils.PARAGRAPH_SEPARATOR).
const paragraphSep = 0x2029

// passage is a candidate fragment of the unified highlighter.
type passage struct {
	start, end int
	matches    []match
	score      float32
}

// unifiedField highlights one field like Elasticsearch's unified
// highlighter (Lucene's FieldHighlighter with the bounded sentence scanner).
func (p *Plan) unifiedField(pf *planField, values []string) []string {
	// Join the values, analyse each at its offset in the content.
	var content u16
	var matches []match
	var bounds [][2]int
	for i, v := range values {
		if i > 0 {
			content = append(content, paragraphSep)
		}
		off := len(content)
		vu := toU16(v)
		content = append(content, vu...)
		bounds = append(bounds, [2]int{off, len(content)})
		for _, m := range markTokens(p.analyze(pf.field, v, len(vu)), pf.terms) {
			matches = append(matches, match{start: m.start + off, end: m.end + off, term: m.term})
		}
	}
	if pf.numberOfFragments == 0 {
		// One fragment per value holding a match, the whole value.
		var out []string
		for _, b := range bounds {
			var in []match
			for _, m := range matches {
				if m.start >= b[0] && m.end <= b[1] {
					in = append(in, m)
				}
			}
			if len(in) > 0 {
				out = append(out, javaTrim(p.format(pf, content, b[0], b[1], in)))
			}
		}
		return out
	}
	if len(matches) == 0 {
		return p.noMatch(pf, content, bounds)
	}
	passages := selectPassages(content, bounds, matches, pf.fragmentSize, pf.words, pf.numberOfFragments)
	if pf.scoreOrder {
		sort.SliceStable(passages, func(i, j int) bool { return passages[i].score > passages[j].score })
	}
	out := make([]string, 0, len(passages))
	for _, ps := range passages {
		s := p.format(pf, content, ps.start, ps.end, ps.matches)
		s = strings.TrimSuffix(s, string(rune(paragraphSep)))
		out = append(out, javaTrim(s))
	}
	return out
}

// noMatch is the no_match_size excerpt: the start of the first value up to
// the first word boundary after no_match_size characters.
func (p *Plan) noMatch(pf *planField, content u16, bounds [][2]int) []string {
	if pf.noMatchSize <= 0 || len(bounds) == 0 {
		return nil
	}
	start, end := bounds[0][0], bounds[0][1]
	if start+pf.noMatchSize < end {
		end = min(end, following(wordBreaks(content), start+pf.noMatchSize-1, len(content)))
	}
	s := javaTrim(p.encode(content.str(start, end)))
	if s == "" {
		return nil
	}
	return []string{s}
}

// javaTrim is String.trim: it strips code points <= U+0020 at both ends.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

// selectPassages is FieldHighlighter.highlightOffsetsEnums: matches in
// offset order open passages bounded by the break iterator; the best
// maxPassages by score are returned in offset order. Each value (bounds)
// is broken on its own, as Lucene's SplittingBreakIterator does, so a
// passage never spans two values. Passages are single words with words,
// single sentences with maxLen <= 0.
func selectPassages(content u16, bounds [][2]int, matches []match, maxLen int, words bool, maxPassages int) []passage {
	sort.SliceStable(matches, func(i, j int) bool {
		if matches[i].start != matches[j].start {
			return matches[i].start < matches[j].start
		}
		return matches[i].end < matches[j].end
	})
	freq := map[string]int{}
	for _, m := range matches {
		freq[m.term]++
	}
	scanners := make([]*boundedScanner, len(bounds))
	scannerAt := func(offset int) *boundedScanner {
		i := sort.Search(len(bounds), func(i int) bool { return bounds[i][1] >= offset }) // value holding offset
		if i == len(bounds) {
			i--
		}
		if scanners[i] == nil {
			scanners[i] = newBoundedScanner(content, bounds[i][0], bounds[i][1], maxLen)
			switch {
			case words:
				scanners[i].simple = scanners[i].words
			case maxLen <= 0:
				scanners[i].simple = scanners[i].sentences
			}
		}
		return scanners[i]
	}
	contentLen := len(content)
	var queue []passage
	cur := passage{start: -1, end: -1}
	add := func() {
		if cur.start == -1 {
			return
		}
		cur.score = scorePassage(&cur, freq, contentLen)
		if len(queue) == maxPassages && cur.score < queue[lowest(queue)].score {
			return
		}
		queue = append(queue, cur)
		if len(queue) > maxPassages {
			l := lowest(queue)
			queue = append(queue[:l], queue[l+1:]...)
		}
	}
	for _, m := range matches {
		if m.start < contentLen && m.end > contentLen {
			continue
		}
		if m.start >= cur.end {
			add()
			cur = passage{start: -1, end: -1}
			if m.start >= contentLen {
				break
			}
			bi := scannerAt(m.start)
			cur.start = max(bi.preceding(m.start+1), 0)
			cur.end = min(bi.following(m.start), contentLen)
		}
		cur.matches = append(cur.matches, m)
	}
	add()
	sort.Slice(queue, func(i, j int) bool { return queue[i].start < queue[j].start })
	return queue
}

// lowest is the head of Lucene's passage priority queue: the lowest score,
// the earliest start among equal scores.
func lowest(q []passage) int {
	best := 0
	for i := 1; i < len(q); i++ {
		if q[i].score < q[best].score || (q[i].score == q[best].score && q[i].start < q[best].start) {
			best = i
		}
	}
	return best
}

// Lucene's PassageScorer defaults.
const (
	scorerK1    = 1.2
	scorerB     = 0.75
	scorerPivot = 87
)

// scorePassage is PassageScorer.score (BM25 over the passage).
func scorePassage(ps *passage, freqInDoc map[string]int, contentLen int) float32 {
	inPassage := map[string]int{}
	var order []string
	for _, m := range ps.matches {
		if inPassage[m.term] == 0 {
			order = append(order, m.term)
		}
		inPassage[m.term]++
	}
	length := float32(ps.end - ps.start)
	var score float32
	for _, t := range order {
		f := float32(inPassage[t])
		norm := float32(scorerK1) * ((1 - scorerB) + scorerB*(length/scorerPivot))
		tf := f / (f + norm)
		numDocs := 1 + float32(contentLen)/scorerPivot
		weight := float32(scorerK1+1) * float32(math.Log(1+(float64(numDocs)+0.5)/(float64(freqInDoc[t])+0.5)))
		score += tf * weight
	}
	return score * (1 + 1/float32(math.Log(float64(scorerPivot+ps.start))))
}

// boundedScanner is Elasticsearch's BoundedBreakIteratorScanner: sentence
// passages no longer than maxLen, re-split on word boundaries when a
// sentence is longer.
type boundedScanner struct {
	textLen                int
	sentences, words       []int
	maxLen                 int
	windowStart, windowEnd int
	innerStart, innerEnd   int
	// simple, when set, replaces the bounded scan by plain segments (word
	// or unbounded sentence iterators).
	simple []int
}

// newBoundedScanner scans the value content[start:end] (offsets stay
// absolute).
func newBoundedScanner(content u16, start, end, maxLen int) *boundedScanner {
	shift := func(breaks []int) []int {
		for i := range breaks {
			breaks[i] += start
		}
		return breaks
	}
	return &boundedScanner{textLen: end, sentences: shift(sentenceBreaks(content[start:end])), words: shift(wordBreaks(content[start:end])),
		maxLen: maxLen, windowStart: -1, windowEnd: -1, innerStart: -1}
}

func (s *boundedScanner) preceding(offset int) int {
	if s.simple != nil {
		// a plain break iterator: the passage is the segment at offset-1
		s.innerStart = max(preceding(s.simple, offset), 0)
		s.innerEnd = following(s.simple, offset-1, s.textLen)
		return s.innerStart
	}
	if offset > s.windowStart && offset < s.windowEnd {
		s.innerStart = s.innerEnd
		s.innerEnd = s.windowEnd
	} else {
		s.innerStart = max(preceding(s.sentences, offset), 0)
		target := offset + max(0, s.maxLen-(offset-s.innerStart))
		if target+1 > s.textLen {
			s.innerEnd = s.textLen
		} else {
			s.innerEnd = preceding(s.sentences, target+1)
		}
		if s.innerStart == s.innerEnd {
			s.innerEnd = following(s.sentences, target, s.textLen)
		}
		s.windowStart, s.windowEnd = s.innerStart, s.innerEnd
	}
	if s.innerEnd-s.innerStart > s.maxLen {
		if offset-s.maxLen > s.innerStart {
			s.innerStart = max(s.innerStart, preceding(s.words, offset-s.maxLen))
		}
		remaining := max(0, s.maxLen-(offset-s.innerStart))
		if offset+remaining < s.windowEnd {
			s.innerEnd = min(s.windowEnd, following(s.words, offset+remaining, s.textLen))
		}
	}
	return s.innerStart
}

func (s *boundedScanner) following(int) int { return s.innerEnd }

// preceding returns the last boundary before offset (-1 if none).
func preceding(breaks []int, offset int) int {
	i := sort.SearchInts(breaks, offset) - 1
	if i < 0 {
		return -1
	}
	return breaks[i]
}

// following returns the first boundary after offset (textLen if none).
func following(breaks []int, offset, textLen int) int {
	i := sort.SearchInts(breaks, offset+1)
	if i >= len(breaks) {
		return textLen
	}
	return breaks[i]
}

func isParaSep(c uint16) bool {
	return c == '\n' || c == '\r' || c == 0x85 || c == 0x2028 || c == paragraphSep
}

func isSpace(c uint16) bool {
	return c == ' ' || c == '\t' || c == 0xA0 || c == '\f' || c == 0x3000
}

// sentenceBreaks approximates java.text.BreakIterator's sentence instance:
// a break after [.?!] (and closing quotes or brackets) followed by spaces,
// unless a period is followed by a lower-case word, and after every line
// or paragraph separator. The result includes 0 and len(t).
func sentenceBreaks(t u16) []int {
	out := []int{0}
	n := len(t)
	for i := 0; i < n; i++ {
		c := t[i]
		if isParaSep(c) {
			j := i + 1
			if c == '\r' && j < n && t[j] == '\n' {
				j++
			}
			if j < n {
				out = append(out, j)
			}
			i = j - 1
			continue
		}
		if c != '.' && c != '?' && c != '!' {
			continue
		}
		j := i + 1
		for j < n && strings.ContainsRune(`.?!"')]}’”`, rune(t[j])) {
			j++
		}
		if j >= n || !isSpace(t[j]) {
			continue
		}
		for j < n && isSpace(t[j]) {
			j++
		}
		if j < n && isParaSep(t[j]) {
			i = j - 1
			continue
		}
		if c == '.' && j < n && unicode.IsLower(rune(t[j])) {
			continue
		}
		if j < n {
			out = append(out, j)
		}
		i = j - 1
	}
	if out[len(out)-1] != n {
		out = append(out, n)
	}
	return out
}

// wordBreaks approximates BreakIterator's word instance: boundaries around
// runs of letters and digits, around runs of spaces, and around every other
// character.
func wordBreaks(t u16) []int {
	out := []int{0}
	n := len(t)
	class := func(c uint16) int {
		r := rune(c)
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || (c >= 0xD800 && c <= 0xDFFF):
			return 1
		case isSpace(c):
			return 2
		}
		return 0
	}
	for i := 1; i < n; i++ {
		a, b := class(t[i-1]), class(t[i])
		if a != b || a == 0 {
			// letters joined by an apostrophe or a period stay one word
			if a == 1 && (t[i] == '\'' || t[i] == '.') && i+1 < n && class(t[i+1]) == 1 {
				continue
			}
			if b == 1 && (t[i-1] == '\'' || t[i-1] == '.') && i >= 2 && class(t[i-2]) == 1 {
				continue
			}
			out = append(out, i)
		}
	}
	if n > 0 {
		out = append(out, n)
	}
	return out
}
