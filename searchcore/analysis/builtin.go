package analysis

import (
	"sort"
	"strings"
	"sync"
	"unicode"

	blugeanalysis "github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/analysis/lang/ar"
	"github.com/blugelabs/bluge/analysis/lang/bg"
	"github.com/blugelabs/bluge/analysis/lang/ca"
	"github.com/blugelabs/bluge/analysis/lang/cjk"
	"github.com/blugelabs/bluge/analysis/lang/ckb"
	"github.com/blugelabs/bluge/analysis/lang/cs"
	"github.com/blugelabs/bluge/analysis/lang/da"
	"github.com/blugelabs/bluge/analysis/lang/de"
	"github.com/blugelabs/bluge/analysis/lang/el"
	"github.com/blugelabs/bluge/analysis/lang/en"
	"github.com/blugelabs/bluge/analysis/lang/es"
	"github.com/blugelabs/bluge/analysis/lang/eu"
	"github.com/blugelabs/bluge/analysis/lang/fa"
	"github.com/blugelabs/bluge/analysis/lang/fi"
	"github.com/blugelabs/bluge/analysis/lang/fr"
	"github.com/blugelabs/bluge/analysis/lang/ga"
	"github.com/blugelabs/bluge/analysis/lang/gl"
	"github.com/blugelabs/bluge/analysis/lang/hi"
	"github.com/blugelabs/bluge/analysis/lang/hu"
	"github.com/blugelabs/bluge/analysis/lang/hy"
	"github.com/blugelabs/bluge/analysis/lang/id"
	"github.com/blugelabs/bluge/analysis/lang/in"
	"github.com/blugelabs/bluge/analysis/lang/it"
	"github.com/blugelabs/bluge/analysis/lang/nl"
	"github.com/blugelabs/bluge/analysis/lang/no"
	"github.com/blugelabs/bluge/analysis/lang/pt"
	"github.com/blugelabs/bluge/analysis/lang/ro"
	"github.com/blugelabs/bluge/analysis/lang/ru"
	"github.com/blugelabs/bluge/analysis/lang/sv"
	"github.com/blugelabs/bluge/analysis/lang/tr"
	"github.com/blugelabs/bluge/analysis/token"
	"github.com/blugelabs/bluge/analysis/tokenizer"
)

// luceneEnglishStopWords is Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET,
// which Elasticsearch uses for _english_, the stop analyzer and the english
// analyzer (bluge's English list is the much longer snowball one).
var luceneEnglishStopWords = []string{
	"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
	"no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
	"they", "this", "to", "was", "will", "with",
}

// stopWordLists maps the Elasticsearch predefined stop word list names to
// their words; "_none_" is the empty list.
var stopWordLists = map[string]func() []string{
	"_none_":       func() []string { return nil },
	"_english_":    func() []string { return luceneEnglishStopWords },
	"_arabic_":     tokenMapWords(ar.StopWords),
	"_armenian_":   tokenMapWords(hy.StopWords),
	"_basque_":     tokenMapWords(eu.StopWords),
	"_bulgarian_":  tokenMapWords(bg.StopWords),
	"_catalan_":    tokenMapWords(ca.StopWords),
	"_czech_":      tokenMapWords(cs.StopWords),
	"_danish_":     tokenMapWords(da.StopWords),
	"_dutch_":      tokenMapWords(nl.StopWords),
	"_finnish_":    tokenMapWords(fi.StopWords),
	"_french_":     tokenMapWords(fr.StopWords),
	"_galician_":   tokenMapWords(gl.StopWords),
	"_german_":     tokenMapWords(de.StopWords),
	"_greek_":      tokenMapWords(el.StopWords),
	"_hindi_":      tokenMapWords(hi.StopWords),
	"_hungarian_":  tokenMapWords(hu.StopWords),
	"_indonesian_": tokenMapWords(id.StopWords),
	"_irish_":      tokenMapWords(ga.StopWords),
	"_italian_":    tokenMapWords(it.StopWords),
	"_norwegian_":  tokenMapWords(no.StopWords),
	"_persian_":    tokenMapWords(fa.StopWords),
	"_portuguese_": tokenMapWords(pt.StopWords),
	"_romanian_":   tokenMapWords(ro.StopWords),
	"_russian_":    tokenMapWords(ru.StopWords),
	"_sorani_":     tokenMapWords(ckb.StopWords),
	"_spanish_":    tokenMapWords(es.StopWords),
	"_swedish_":    tokenMapWords(sv.StopWords),
	"_turkish_":    tokenMapWords(tr.StopWords),
}

func tokenMapWords(f func() blugeanalysis.TokenMap) func() []string {
	return func() []string {
		m := f()
		out := make([]string, 0, len(m))
		for w := range m {
			out = append(out, w)
		}
		sort.Strings(out)
		return out
	}
}

// stopWords resolves a stopwords setting: a predefined list name or words.
func stopWords(list []string) []string {
	if len(list) == 1 {
		if f, ok := stopWordLists[list[0]]; ok {
			return f()
		}
	}
	var out []string
	for _, w := range list {
		if f, ok := stopWordLists[w]; ok {
			out = append(out, f()...)
		} else {
			out = append(out, w)
		}
	}
	return out
}

// stemmers maps stemmer/snowball language names (lower case) to filters.
var stemmers = map[string]func() blugeanalysis.TokenFilter{
	"english":            func() blugeanalysis.TokenFilter { return token.NewPorterStemmer() },
	"porter":             func() blugeanalysis.TokenFilter { return token.NewPorterStemmer() },
	"light_english":      func() blugeanalysis.TokenFilter { return token.NewPorterStemmer() },
	"minimal_english":    func() blugeanalysis.TokenFilter { return token.NewPorterStemmer() },
	"porter2":            func() blugeanalysis.TokenFilter { return en.StemmerFilter() },
	"possessive_english": func() blugeanalysis.TokenFilter { return en.NewPossessiveFilter() },
	"arabic":             func() blugeanalysis.TokenFilter { return ar.StemmerFilter() },
	"danish":             func() blugeanalysis.TokenFilter { return da.StemmerFilter() },
	"dutch":              func() blugeanalysis.TokenFilter { return nl.StemmerFilter() },
	"finnish":            func() blugeanalysis.TokenFilter { return fi.StemmerFilter() },
	"french":             func() blugeanalysis.TokenFilter { return fr.StemmerFilter() },
	"light_french":       func() blugeanalysis.TokenFilter { return fr.LightStemmerFilter() },
	"minimal_french":     func() blugeanalysis.TokenFilter { return fr.MinimalStemmerFilter() },
	"german":             func() blugeanalysis.TokenFilter { return de.StemmerFilter() },
	"german2":            func() blugeanalysis.TokenFilter { return de.StemmerFilter() },
	"light_german":       func() blugeanalysis.TokenFilter { return de.LightStemmerFilter() },
	"hindi":              func() blugeanalysis.TokenFilter { return hi.StemmerFilter() },
	"hungarian":          func() blugeanalysis.TokenFilter { return hu.StemmerFilter() },
	"italian":            func() blugeanalysis.TokenFilter { return it.StemmerFilter() },
	"light_italian":      func() blugeanalysis.TokenFilter { return it.LightStemmerFilter() },
	"norwegian":          func() blugeanalysis.TokenFilter { return no.StemmerFilter() },
	"portuguese":         func() blugeanalysis.TokenFilter { return pt.LightStemmerFilter() },
	"light_portuguese":   func() blugeanalysis.TokenFilter { return pt.LightStemmerFilter() },
	"romanian":           func() blugeanalysis.TokenFilter { return ro.StemmerFilter() },
	"russian":            func() blugeanalysis.TokenFilter { return ru.StemmerFilter() },
	"sorani":             func() blugeanalysis.TokenFilter { return ckb.StemmerFilter() },
	"spanish":            func() blugeanalysis.TokenFilter { return es.StemmerFilter() },
	"light_spanish":      func() blugeanalysis.TokenFilter { return es.LightStemmerFilter() },
	"swedish":            func() blugeanalysis.TokenFilter { return sv.StemmerFilter() },
	"turkish":            func() blugeanalysis.TokenFilter { return tr.StemmerFilter() },
}

// builtinTokenizers are the tokenizers available by name without settings.
var builtinTokenizers = map[string]func() blugeanalysis.Tokenizer{
	"standard":      func() blugeanalysis.Tokenizer { return standardTokenizer(255) },
	"classic":       func() blugeanalysis.Tokenizer { return standardTokenizer(255) },
	"uax_url_email": func() blugeanalysis.Tokenizer { return tokenizer.NewWebTokenizer() },
	"whitespace":    func() blugeanalysis.Tokenizer { return tokenizer.NewWhitespaceTokenizer() },
	"keyword":       func() blugeanalysis.Tokenizer { return keywordTokenizer{} },
	"letter":        func() blugeanalysis.Tokenizer { return &runeClassTokenizer{keep: unicode.IsLetter} },
	"lowercase":     func() blugeanalysis.Tokenizer { return &runeClassTokenizer{keep: unicode.IsLetter, lower: true} },
	"ngram":         func() blugeanalysis.Tokenizer { return &ngramTokenizer{min: 1, max: 2} },
	"nGram":         func() blugeanalysis.Tokenizer { return &ngramTokenizer{min: 1, max: 2} },
	"edge_ngram":    func() blugeanalysis.Tokenizer { return &ngramTokenizer{min: 1, max: 2, edge: true} },
	"edgeNGram":     func() blugeanalysis.Tokenizer { return &ngramTokenizer{min: 1, max: 2, edge: true} },
	"pattern":       func() blugeanalysis.Tokenizer { return &patternTokenizer{re: defaultPatternRe, group: -1} },
	"path_hierarchy": func() blugeanalysis.Tokenizer {
		return &pathHierarchyTokenizer{delim: '/', replace: '/'}
	},
}

// defaultPatternRe is the pattern tokenizer/analyzer default (\W+), made
// Unicode-aware like Java's with UNICODE_CHARACTER_CLASS off (ASCII \W).
var defaultPatternRe = mustCompile(`\W+`)

func standardTokenizer(maxLen int) blugeanalysis.Tokenizer {
	return &chainTokenizer{tok: tokenizer.NewUnicodeTokenizer(), filters: []blugeanalysis.TokenFilter{maxLengthFilter{max: maxLen}}}
}

// builtinFilters are the token filters available by name without settings.
var builtinFilters = map[string]func() blugeanalysis.TokenFilter{
	"lowercase":             func() blugeanalysis.TokenFilter { return token.NewLowerCaseFilter() },
	"uppercase":             func() blugeanalysis.TokenFilter { return upperCaseFilter{} },
	"asciifolding":          func() blugeanalysis.TokenFilter { return asciiFoldingFilter{} },
	"stop":                  func() blugeanalysis.TokenFilter { return newStopFilter(luceneEnglishStopWords, false) },
	"porter_stem":           func() blugeanalysis.TokenFilter { return token.NewPorterStemmer() },
	"kstem":                 func() blugeanalysis.TokenFilter { return token.NewPorterStemmer() },
	"snowball":              func() blugeanalysis.TokenFilter { return en.StemmerFilter() },
	"stemmer":               func() blugeanalysis.TokenFilter { return token.NewPorterStemmer() },
	"length":                func() blugeanalysis.TokenFilter { return token.NewLengthFilter(0, 1<<31-1) },
	"truncate":              func() blugeanalysis.TokenFilter { return token.NewTruncateTokenFilter(10) },
	"unique":                func() blugeanalysis.TokenFilter { return token.NewUniqueTermFilter() },
	"reverse":               func() blugeanalysis.TokenFilter { return token.NewReverseFilter() },
	"ngram":                 func() blugeanalysis.TokenFilter { return token.NewNgramFilter(1, 2) },
	"nGram":                 func() blugeanalysis.TokenFilter { return token.NewNgramFilter(1, 2) },
	"edge_ngram":            func() blugeanalysis.TokenFilter { return token.NewEdgeNgramFilter(token.FRONT, 1, 2) },
	"edgeNGram":             func() blugeanalysis.TokenFilter { return token.NewEdgeNgramFilter(token.FRONT, 1, 2) },
	"shingle":               func() blugeanalysis.TokenFilter { return &shingleFilter{min: 2, max: 2, unigrams: true, sep: " "} },
	"elision":               func() blugeanalysis.TokenFilter { return fr.ElisionFilter() },
	"trim":                  func() blugeanalysis.TokenFilter { return trimFilter{} },
	"apostrophe":            func() blugeanalysis.TokenFilter { return token.NewApostropheFilter() },
	"cjk_width":             func() blugeanalysis.TokenFilter { return cjk.NewWidthFilter() },
	"cjk_bigram":            func() blugeanalysis.TokenFilter { return cjk.NewBigramFilter(false) },
	"arabic_normalization":  func() blugeanalysis.TokenFilter { return ar.NormalizeFilter() },
	"german_normalization":  func() blugeanalysis.TokenFilter { return de.NormalizeFilter() },
	"hindi_normalization":   func() blugeanalysis.TokenFilter { return hi.NormalizeFilter() },
	"indic_normalization":   func() blugeanalysis.TokenFilter { return in.NormalizeFilter() },
	"persian_normalization": func() blugeanalysis.TokenFilter { return fa.NormalizeFilter() },
	"sorani_normalization":  func() blugeanalysis.TokenFilter { return ckb.NormalizeFilter() },
	"arabic_stem":           func() blugeanalysis.TokenFilter { return ar.StemmerFilter() },
	"german_stem":           func() blugeanalysis.TokenFilter { return de.StemmerFilter() },
	"french_stem":           func() blugeanalysis.TokenFilter { return fr.StemmerFilter() },
	"russian_stem":          func() blugeanalysis.TokenFilter { return ru.StemmerFilter() },
	"dutch_stem":            func() blugeanalysis.TokenFilter { return nl.StemmerFilter() },
	"english_possessive":    func() blugeanalysis.TokenFilter { return en.NewPossessiveFilter() },
	"decimal_digit":         func() blugeanalysis.TokenFilter { return decimalDigitFilter{} },
	"remove_duplicates":     func() blugeanalysis.TokenFilter { return removeDuplicatesFilter{} },
	"classic":               func() blugeanalysis.TokenFilter { return classicFilter{} },
	"scandinavian_folding":  func() blugeanalysis.TokenFilter { return asciiFoldingFilter{} },
	"scandinavian_normalization": func() blugeanalysis.TokenFilter {
		return scandinavianNormalizationFilter{}
	},
}

// normalizerFilters are the filters a normalizer may use (ES only allows
// filters that work per character, never splitting or removing tokens).
var normalizerFilters = map[string]bool{
	"lowercase": true, "uppercase": true, "asciifolding": true, "elision": true, "cjk_width": true,
	"arabic_normalization": true, "german_normalization": true, "hindi_normalization": true,
	"indic_normalization": true, "persian_normalization": true, "sorani_normalization": true,
	"trim": true, "decimal_digit": true, "scandinavian_folding": true, "scandinavian_normalization": true,
	"pattern_replace": true, "apostrophe": false,
}

// builtinCharFilters are the char filters available by name without settings.
var builtinCharFilters = map[string]func() blugeanalysis.CharFilter{
	"html_strip": func() blugeanalysis.CharFilter { return &htmlStripCharFilter{} },
}

// languageAnalyzers are the prebuilt language analyzers. Where bluge ships
// only a stop list, the analyzer is standard + lowercase + that stop list.
var languageAnalyzers = map[string]func() *blugeanalysis.Analyzer{
	"english": func() *blugeanalysis.Analyzer {
		return englishAnalyzer(luceneEnglishStopWords, nil)
	},
	"arabic":     ar.Analyzer,
	"cjk":        cjk.Analyzer,
	"danish":     da.Analyzer,
	"dutch":      nl.Analyzer,
	"finnish":    fi.Analyzer,
	"french":     fr.Analyzer,
	"german":     de.Analyzer,
	"hungarian":  hu.Analyzer,
	"italian":    it.Analyzer,
	"norwegian":  no.Analyzer,
	"portuguese": pt.Analyzer,
	"romanian":   ro.Analyzer,
	"russian":    ru.Analyzer,
	"spanish":    es.Analyzer,
	"swedish":    sv.Analyzer,
	"turkish":    tr.Analyzer,
	"persian":    fa.Analyzer,
	"hindi":      hi.Analyzer,
	"sorani":     ckb.Analyzer,
	"armenian":   stopOnly("_armenian_"),
	"basque":     stopOnly("_basque_"),
	"bulgarian":  stopOnly("_bulgarian_"),
	"catalan": func() *blugeanalysis.Analyzer {
		a := stopOnly("_catalan_")()
		a.TokenFilters = append([]blugeanalysis.TokenFilter{ca.ElisionFilter()}, a.TokenFilters...)
		return a
	},
	"czech":      stopOnly("_czech_"),
	"galician":   stopOnly("_galician_"),
	"greek":      stopOnly("_greek_"),
	"indonesian": stopOnly("_indonesian_"),
	"irish": func() *blugeanalysis.Analyzer {
		a := stopOnly("_irish_")()
		a.TokenFilters = append([]blugeanalysis.TokenFilter{ga.ElisionFilter()}, a.TokenFilters...)
		return a
	},
}

func stopOnly(list string) func() *blugeanalysis.Analyzer {
	return func() *blugeanalysis.Analyzer {
		return &blugeanalysis.Analyzer{
			Tokenizer: standardTokenizer(255),
			TokenFilters: []blugeanalysis.TokenFilter{
				token.NewLowerCaseFilter(),
				newStopFilter(stopWordLists[list](), false),
			},
		}
	}
}

// englishAnalyzer mirrors ES's english analyzer: standard tokenizer,
// possessive stemmer, lowercase, stop, keyword marker, porter stemmer.
func englishAnalyzer(stop []string, exclusions []string) *blugeanalysis.Analyzer {
	filters := []blugeanalysis.TokenFilter{en.NewPossessiveFilter(), token.NewLowerCaseFilter()}
	if len(stop) > 0 {
		filters = append(filters, newStopFilter(stop, false))
	}
	if len(exclusions) > 0 {
		filters = append(filters, keywordMarker(exclusions, false))
	}
	filters = append(filters, token.NewPorterStemmer())
	return &blugeanalysis.Analyzer{Tokenizer: standardTokenizer(255), TokenFilters: filters}
}

func keywordMarker(words []string, ignoreCase bool) blugeanalysis.TokenFilter {
	m := blugeanalysis.NewTokenMap()
	for _, w := range words {
		if ignoreCase {
			w = strings.ToLower(w)
		}
		m.AddToken(w)
	}
	return token.NewKeyWordMarkerFilter(m)
}

// standardAnalyzer is ES's standard analyzer with the given stop words and
// max token length (defaults: no stop words, 255).
func standardAnalyzer(stop []string, maxLen int) *blugeanalysis.Analyzer {
	filters := []blugeanalysis.TokenFilter{token.NewLowerCaseFilter()}
	if len(stop) > 0 {
		filters = append(filters, newStopFilter(stop, false))
	}
	return &blugeanalysis.Analyzer{Tokenizer: standardTokenizer(maxLen), TokenFilters: filters}
}

var (
	builtinOnce      sync.Once
	builtinAnalyzers map[string]*blugeanalysis.Analyzer
)

// builtins returns the shared prebuilt analyzers, built once per process.
func builtins() map[string]*blugeanalysis.Analyzer {
	builtinOnce.Do(func() {
		m := map[string]*blugeanalysis.Analyzer{
			"standard": standardAnalyzer(nil, 255),
			"simple": {
				Tokenizer:    &runeClassTokenizer{keep: unicode.IsLetter},
				TokenFilters: []blugeanalysis.TokenFilter{token.NewLowerCaseFilter()},
			},
			"whitespace": {Tokenizer: tokenizer.NewWhitespaceTokenizer()},
			"keyword":    {Tokenizer: keywordTokenizer{}},
			"stop": {
				Tokenizer:    &runeClassTokenizer{keep: unicode.IsLetter, lower: true},
				TokenFilters: []blugeanalysis.TokenFilter{newStopFilter(luceneEnglishStopWords, false)},
			},
			"pattern": {
				Tokenizer:    &patternTokenizer{re: defaultPatternRe, group: -1},
				TokenFilters: []blugeanalysis.TokenFilter{token.NewLowerCaseFilter()},
			},
			"fingerprint": {
				Tokenizer: standardTokenizer(255),
				TokenFilters: []blugeanalysis.TokenFilter{
					token.NewLowerCaseFilter(), asciiFoldingFilter{}, fingerprintFilter{sep: " ", maxOutput: 255},
				},
			},
		}
		for name, f := range languageAnalyzers {
			m[name] = f()
		}
		builtinAnalyzers = m
	})
	return builtinAnalyzers
}

// decimalDigitFilter converts Unicode decimal digits to 0-9.
type decimalDigitFilter struct{}

func (decimalDigitFilter) Filter(in blugeanalysis.TokenStream) blugeanalysis.TokenStream {
	for _, t := range in {
		s := string(t.Term)
		changed := false
		out := []rune(s)
		for i, r := range out {
			if r > '9' && unicode.IsDigit(r) {
				out[i] = '0' + digitValue(r)
				changed = true
			}
		}
		if changed {
			t.Term = []byte(string(out))
		}
	}
	return in
}

func digitValue(r rune) rune {
	// Unicode decimal digit blocks are contiguous runs of ten starting at a zero.
	z := r
	for r-z < 9 && unicode.IsDigit(z-1) {
		z--
	}
	return r - z
}

// removeDuplicatesFilter drops tokens equal to another at the same position.
type removeDuplicatesFilter struct{}

func (removeDuplicatesFilter) Filter(in blugeanalysis.TokenStream) blugeanalysis.TokenStream {
	j := 0
	var seen []string
	for _, t := range in {
		if t.PositionIncr > 0 {
			seen = seen[:0]
		}
		dup := false
		for _, s := range seen {
			if s == string(t.Term) {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		seen = append(seen, string(t.Term))
		in[j] = t
		j++
	}
	return in[:j]
}

// classicFilter removes English possessives and dots from acronyms.
type classicFilter struct{}

func (classicFilter) Filter(in blugeanalysis.TokenStream) blugeanalysis.TokenStream {
	for _, t := range in {
		s := string(t.Term)
		if strings.HasSuffix(s, "'s") || strings.HasSuffix(s, "'S") {
			t.Term = t.Term[:len(t.Term)-2]
		} else if strings.Count(s, ".") > 0 && len(s) > 1 && strings.HasSuffix(s, ".") {
			t.Term = []byte(strings.ReplaceAll(s, ".", ""))
		}
	}
	return in
}

// scandinavianNormalizationFilter folds interchangeable Scandinavian letters.
type scandinavianNormalizationFilter struct{}

var scandinavianReplacer = strings.NewReplacer("æ", "æ", "ä", "æ", "Ä", "Æ", "ö", "ø", "Ö", "Ø", "aa", "å", "ao", "å", "AA", "Å", "AO", "Å")

func (scandinavianNormalizationFilter) Filter(in blugeanalysis.TokenStream) blugeanalysis.TokenStream {
	for _, t := range in {
		t.Term = []byte(scandinavianReplacer.Replace(string(t.Term)))
	}
	return in
}
