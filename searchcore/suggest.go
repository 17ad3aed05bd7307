package searchcore

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/analysis"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// The term suggester (suggest: {name: {text, term: {...}}}), following
// Lucene's DirectSpellChecker as Elasticsearch configures it: each token of
// the analyzed text gets the indexed terms within max_edits of it, scored
// 1 - edits / min(token length, candidate length).

// Suggester is one named suggestion of a search.
type Suggester struct {
	Name string
	Text string
	// Term options.
	Field          string
	Analyzer       string
	Size           int
	Sort           string // score or frequency
	SuggestMode    string // missing, popular, always
	MaxEdits       int
	PrefixLength   int
	MinWordLength  int
	MinDocFreq     float64
	MaxTermFreq    float64
	Accuracy       float64
	LowercaseTerms bool
	// StringDistance scores candidates: internal (the default),
	// damerau_levenshtein, levenshtein, jaro_winkler or ngram.
	StringDistance string
}

// URLSuggester is the term suggester the suggest_field, suggest_text,
// suggest_mode and suggest_size URL parameters describe (named after the
// field, like Elasticsearch's RestSearchAction). size 0 keeps the default.
func URLSuggester(field, text, mode string, size int) (Suggester, error) {
	s := defaultSuggester(field)
	s.Text, s.Field = text, field
	if mode != "" {
		s.SuggestMode = mode
	}
	if size > 0 {
		s.Size = size
	} else if size < 0 {
		return s, IllegalArgument("size must be positive")
	}
	if field == "" || text == "" {
		return s, IllegalArgument("suggest_field and suggest_text go together")
	}
	return s, nil
}

// defaultSuggester is a term suggester with Elasticsearch's defaults.
func defaultSuggester(name string) Suggester {
	return Suggester{Name: name, Size: 5, Sort: "score", SuggestMode: "missing", MaxEdits: 2, PrefixLength: 1,
		MinWordLength: 4, MaxTermFreq: 0.01, Accuracy: 0.5}
}

// ParseSuggest parses the suggest member of a search body.
func ParseSuggest(v json.RawMessage) ([]Suggester, error) {
	members, err := decodeObject(v)
	if err != nil {
		return nil, ParsingError("suggestion does not support [%s]", TokenName(v))
	}
	var global string
	var hasGlobal bool
	var out []Suggester
	for _, m := range members {
		if m.key == "text" {
			if err := json.Unmarshal(m.value, &global); err != nil {
				return nil, ParsingError("[suggest] text must be a string")
			}
			hasGlobal = true
			continue
		}
		s, err := parseSuggester(m.key, m.value)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	for i := range out {
		if out[i].Text == "" && hasGlobal {
			out[i].Text = global
		}
	}
	for _, s := range out {
		if s.Text == "" {
			return nil, IllegalArgument("The required text option is missing")
		}
	}
	return out, nil
}

func parseSuggester(name string, v json.RawMessage) (Suggester, error) {
	s := defaultSuggester(name)
	members, err := decodeObject(v)
	if err != nil {
		return s, ParsingError("suggestion does not support [%s]", TokenName(v))
	}
	found := false
	for _, m := range members {
		switch m.key {
		case "text":
			if err := json.Unmarshal(m.value, &s.Text); err != nil {
				return s, ParsingError("[%s] text must be a string", name)
			}
		case "prefix", "regex":
			return s, IllegalArgument("[%s] is only supported by the completion suggester, which is not available", m.key)
		case "term":
			if found {
				return s, ParsingError("suggestion [%s] has more than one suggester", name)
			}
			found = true
			if err := parseTermSuggester(m.value, &s); err != nil {
				return s, err
			}
		case "completion", "phrase":
			return s, IllegalArgument("the [%s] suggester is not supported: only the [term] suggester is available", m.key)
		default:
			if bytes.HasPrefix(bytes.TrimSpace(m.value), []byte("{")) {
				return s, Errorf(Invalid, "x_content_parse_exception", "unknown suggester [%s]", m.key)
			}
			return s, IllegalArgument("suggestion does not support [%s]", m.key)
		}
	}
	if !found {
		return s, IllegalArgument("suggestion [%s] is missing a suggester", name)
	}
	return s, nil
}

func parseTermSuggester(v json.RawMessage, s *Suggester) error {
	members, err := decodeObject(v)
	if err != nil {
		return ParsingError("[term] must be an object")
	}
	str := func(m member, dst *string) error {
		if err := json.Unmarshal(m.value, dst); err != nil {
			return ParsingError("[term] %s must be a string", m.key)
		}
		return nil
	}
	num := func(m member, dst *float64) error {
		if err := json.Unmarshal(m.value, dst); err != nil {
			return ParsingError("[term] %s must be a number", m.key)
		}
		return nil
	}
	for _, m := range members {
		switch m.key {
		case "field":
			err = str(m, &s.Field)
		case "analyzer":
			err = str(m, &s.Analyzer)
		case "size":
			s.Size, err = intMember("size", m.value)
			if err == nil && s.Size <= 0 {
				err = IllegalArgument("size must be positive")
			}
		case "shard_size", "max_inspections":
			var n int
			if n, err = intMember(m.key, m.value); err == nil && n <= 0 {
				err = IllegalArgument("%s must be positive", m.key)
			}
		case "sort":
			if err = str(m, &s.Sort); err == nil && s.Sort != "score" && s.Sort != "frequency" {
				err = IllegalArgument("Illegal suggest sort %s", s.Sort)
			}
		case "suggest_mode":
			if err = str(m, &s.SuggestMode); err == nil {
				switch s.SuggestMode {
				case "missing", "popular", "always":
				default:
					err = IllegalArgument("Illegal suggest mode %s", s.SuggestMode)
				}
			}
		case "max_edits":
			if s.MaxEdits, err = intMember("max_edits", m.value); err == nil && (s.MaxEdits < 1 || s.MaxEdits > 2) {
				err = IllegalArgument("Illegal max_edits value %d", s.MaxEdits)
			}
		case "prefix_length", "prefix_len":
			if s.PrefixLength, err = intMember(m.key, m.value); err == nil && s.PrefixLength < 0 {
				err = IllegalArgument("prefix_length must be positive")
			}
		case "min_word_length", "min_word_len":
			if s.MinWordLength, err = intMember(m.key, m.value); err == nil && s.MinWordLength < 1 {
				err = IllegalArgument("min_word_length must be greater or equal to 1")
			}
		case "min_doc_freq":
			if err = num(m, &s.MinDocFreq); err == nil && (s.MinDocFreq < 0 || (s.MinDocFreq > 1 && s.MinDocFreq != math.Floor(s.MinDocFreq))) {
				err = IllegalArgument("Illegal min_doc_freq value %v", s.MinDocFreq)
			}
		case "max_term_freq":
			if err = num(m, &s.MaxTermFreq); err == nil && (s.MaxTermFreq < 0 || (s.MaxTermFreq > 1 && s.MaxTermFreq != math.Floor(s.MaxTermFreq))) {
				err = IllegalArgument("Illegal max_term_freq value %v", s.MaxTermFreq)
			}
		case "accuracy":
			if err = num(m, &s.Accuracy); err == nil && (s.Accuracy < 0 || s.Accuracy > 1) {
				err = IllegalArgument("accuracy must be between 0 and 1")
			}
		case "lowercase_terms":
			s.LowercaseTerms, err = boolMember("lowercase_terms", m.value)
		case "string_distance":
			var d string
			if err = str(m, &d); err == nil {
				s.StringDistance, err = parseStringDistance(d)
			}
		default:
			err = ParsingError("suggester[term] doesn't support field [%s]", m.key)
		}
		if err != nil {
			return err
		}
	}
	if s.Field == "" {
		return IllegalArgument("The required field option is missing")
	}
	return nil
}

// SuggestEntry is one token of a suggestion with its options.
type SuggestEntry struct {
	Text    string
	Offset  int
	Length  int
	Options []SuggestOption
}

// SuggestOption is one corrected term.
type SuggestOption struct {
	Text  string
	Score float32
	Freq  int64
}

// SuggestResult is one named suggestion's answer.
type SuggestResult struct {
	Name    string
	Entries []SuggestEntry
}

// runSuggest answers the suggesters over the shards of a search.
func runSuggest(ctx context.Context, shards []ctxShard, suggesters []Suggester) ([]SuggestResult, error) {
	readers := make([]search.Reader, 0, len(shards))
	for _, sh := range shards {
		r, err := shardReader(ctx, sh)
		if err != nil {
			return nil, err
		}
		if r != nil {
			readers = append(readers, r)
		}
	}
	out := make([]SuggestResult, 0, len(suggesters))
	for _, s := range suggesters {
		res, err := termSuggest(shards, readers, s)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// termSuggest answers one term suggester.
func termSuggest(shards []ctxShard, readers []search.Reader, s Suggester) (SuggestResult, error) {
	res := SuggestResult{Name: s.Name, Entries: []SuggestEntry{}}
	var a *analysis.Registry
	var f *mapping.Field
	if len(shards) > 0 {
		a = shards[0].idx.Analyzers()
		f = shards[0].idx.Mapping().Lookup(s.Field)
	}
	var tokens []analysis.Token
	switch {
	case a == nil:
		return res, nil
	case s.Analyzer != "":
		an, err := a.Analyzer(s.Analyzer)
		if err != nil {
			return res, err
		}
		tokens = analysis.AnalyzeWith(an, s.Text)
	case f != nil && f.Type == mapping.TypeText:
		an, err := a.SearchAnalyzer(f.Analyzer, f.SearchAnalyzer)
		if err != nil {
			return res, err
		}
		tokens = analysis.AnalyzeWith(an, s.Text)
	default:
		an, err := a.Analyzer("")
		if err != nil {
			return res, err
		}
		tokens = analysis.AnalyzeWith(an, s.Text)
	}
	var maxDoc uint64
	for _, r := range readers {
		if cs, err := r.CollectionStats(s.Field); err == nil && cs != nil {
			maxDoc += cs.TotalDocumentCount()
		}
	}
	for _, t := range tokens {
		entry := SuggestEntry{Text: t.Token, Offset: t.StartOffset, Length: t.EndOffset - t.StartOffset, Options: []SuggestOption{}}
		opts, err := termCandidates(readers, s, t.Token, maxDoc)
		if err != nil {
			return res, err
		}
		entry.Options = opts
		res.Entries = append(res.Entries, entry)
	}
	return res, nil
}

// termCandidates is DirectSpellChecker.suggestSimilar for one token.
func termCandidates(readers []search.Reader, s Suggester, token string, maxDoc uint64) ([]SuggestOption, error) {
	out := []SuggestOption{}
	runes := []rune(token)
	if len(runes) < s.MinWordLength {
		return out, nil
	}
	df, err := docFreqAll(readers, s.Field, token)
	if err != nil {
		return nil, err
	}
	if s.SuggestMode == "missing" && df > 0 {
		return out, nil
	}
	if s.MaxTermFreq >= 1 {
		if float64(df) > s.MaxTermFreq {
			return out, nil
		}
	} else if float64(df) > math.Ceil(s.MaxTermFreq*float64(maxDoc)) {
		return out, nil
	}
	if s.SuggestMode != "popular" {
		df = 0
	}
	// min_doc_freq raises the frequency a candidate must exceed, as
	// DirectSpellChecker's thresholdFrequency does
	switch t := s.MinDocFreq; {
	case t >= 1:
		df = max(df, uint64(t))
	case t > 0:
		df = uint64(max(int64(float32(t)*float32(maxDoc))-1, int64(df)))
	}
	prefix := string(runes[:min(s.PrefixLength, len(runes))])
	// Lucene's DirectSpellChecker looks for one edit with prefix_length
	// characters fixed, then for max_edits with at least max_edits-1 fixed.
	farPrefix := string(runes[:min(max(s.PrefixLength, s.MaxEdits-1), len(runes))])
	terms := map[string]bool{}
	for _, r := range readers {
		var start, end []byte
		if prefix != "" {
			start = []byte(prefix)
			end = append([]byte(prefix), 0xff)
		}
		it, err := r.DictionaryIterator(s.Field, nil, start, end)
		if err != nil {
			return nil, Internalf(err, "suggest: failed to read terms")
		}
		for {
			de, err := it.Next()
			if err != nil {
				_ = it.Close()
				return nil, Internalf(err, "suggest: failed to read terms")
			}
			if de == nil {
				break
			}
			if utf8.ValidString(de.Term()) {
				terms[de.Term()] = true
			}
		}
		_ = it.Close()
	}
	for term := range terms {
		if term == token {
			continue
		}
		cand := []rune(term)
		if len(cand) < len([]rune(prefix)) || string(cand[:len([]rune(prefix))]) != prefix {
			continue
		}
		ed := damerauDistance(runes, cand)
		if ed > s.MaxEdits || ed > 1 && !strings.HasPrefix(term, farPrefix) {
			continue
		}
		score := suggestScore(s.StringDistance, runes, cand, ed)
		if float64(score) < s.Accuracy {
			continue
		}
		// Frequencies come from the candidates' postings: the dictionary's
		// own counts are unreliable in ice (a postings list read after a
		// one-hit term keeps counting 1).
		n, err := docFreqAll(readers, s.Field, term)
		if err != nil {
			return nil, err
		}
		freq := int64(n)
		if freq <= 0 || freq <= int64(df) {
			continue
		}
		out = append(out, SuggestOption{Text: term, Score: score, Freq: freq})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if s.Sort == "frequency" {
			if a.Freq != b.Freq {
				return a.Freq > b.Freq
			}
			if a.Score != b.Score {
				return a.Score > b.Score
			}
		} else {
			if a.Score != b.Score {
				return a.Score > b.Score
			}
			if a.Freq != b.Freq {
				return a.Freq > b.Freq
			}
		}
		return a.Text < b.Text
	})
	if len(out) > s.Size {
		out = out[:s.Size]
	}
	return out, nil
}

func docFreqAll(readers []search.Reader, field, term string) (uint64, error) {
	var n uint64
	for _, r := range readers {
		pi, err := r.PostingsIterator([]byte(term), field, false, false, false)
		if err != nil {
			return 0, Internalf(err, "suggest: failed to read postings")
		}
		n += pi.Count()
		_ = pi.Close()
	}
	return n, nil
}

// damerauDistance is the optimal string alignment distance (Levenshtein
// with adjacent transpositions), as Lucene's fuzzy automata count edits.
func damerauDistance(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := 0; j <= len(b); j++ {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
