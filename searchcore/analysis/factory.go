package analysis

import (
	"regexp"
	"strings"
	"unicode"

	blugeanalysis "github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/analysis/lang/cjk"
	"github.com/blugelabs/bluge/analysis/token"
	"github.com/blugelabs/bluge/analysis/tokenizer"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// builder holds the custom components defined in the settings while the
// analyzers that use them are built.
type builder struct {
	tokenizers  map[string]blugeanalysis.Tokenizer
	filters     map[string]blugeanalysis.TokenFilter
	filterTypes map[string]string
	charFilters map[string]blugeanalysis.CharFilter
}

func (b *builder) compile(component, name, key, pattern string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, eserr.IllegalArgument("Invalid regex pattern [%s] for [%s] of %s [%s]: %v", pattern, key, component, name, err)
	}
	return re, nil
}

// charFilter builds a configured char filter.
func (b *builder) charFilter(name string, p params) (blugeanalysis.CharFilter, error) {
	typ, ok := p.str("type")
	if !ok {
		return nil, eserr.IllegalArgument("char_filter [%s] must specify either an analyzer type, or a tokenizer", name)
	}
	switch typ {
	case "html_strip":
		f := &htmlStripCharFilter{escaped: map[string]bool{}}
		tags, _ := p.list("escaped_tags")
		for _, t := range tags {
			f.escaped[strings.ToLower(t)] = true
		}
		return f, nil
	case "mapping":
		rules, ok := p.list("mappings")
		if !ok {
			if _, hasPath := p["mappings_path"]; hasPath {
				return nil, eserr.IllegalArgument("mapping requires either `mappings` or `mappings_path` to be configured; mappings_path is not supported")
			}
			return nil, eserr.IllegalArgument("mapping requires either `mappings` or `mappings_path` to be configured")
		}
		m := map[string]string{}
		for _, rule := range rules {
			from, to, ok := strings.Cut(rule, "=>")
			if !ok {
				return nil, eserr.IllegalArgument("Invalid Mapping Rule : [%s]", rule)
			}
			from = unescapeRule(strings.TrimSpace(from))
			if from == "" {
				return nil, eserr.IllegalArgument("Invalid Mapping Rule : [%s]", rule)
			}
			m[from] = unescapeRule(strings.TrimSpace(to))
		}
		return newMappingCharFilter(m), nil
	case "pattern_replace":
		pat, _ := p.str("pattern")
		re, err := b.compile("char_filter", name, "pattern", pat)
		if err != nil {
			return nil, err
		}
		repl, _ := p.str("replacement")
		return &patternReplaceCharFilter{re: re, repl: []byte(javaReplacement(repl))}, nil
	}
	return nil, eserr.IllegalArgument("Unknown char_filter type [%s] for [%s]", typ, name)
}

// unescapeRule decodes the escapes allowed in mapping rules (\n, \t, \uXXXX, \\).
func unescapeRule(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'u':
			if i+4 < len(s) {
				var r rune
				ok := true
				for _, c := range s[i+1 : i+5] {
					r <<= 4
					switch {
					case c >= '0' && c <= '9':
						r |= c - '0'
					case c >= 'a' && c <= 'f':
						r |= c - 'a' + 10
					case c >= 'A' && c <= 'F':
						r |= c - 'A' + 10
					default:
						ok = false
					}
				}
				if ok {
					b.WriteRune(r)
					i += 4
					continue
				}
			}
			b.WriteByte('u')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// tokenizer builds a configured tokenizer.
func (b *builder) tokenizer(name string, p params) (blugeanalysis.Tokenizer, error) {
	typ, ok := p.str("type")
	if !ok {
		return nil, eserr.IllegalArgument("tokenizer [%s] must specify either an analyzer type, or a tokenizer", name)
	}
	switch typ {
	case "standard", "classic":
		n, err := p.integer("tokenizer."+name, "max_token_length", 255)
		if err != nil {
			return nil, err
		}
		return standardTokenizer(n), nil
	case "whitespace":
		n, err := p.integer("tokenizer."+name, "max_token_length", 255)
		if err != nil {
			return nil, err
		}
		return &chainTokenizer{tok: tokenizer.NewWhitespaceTokenizer(), filters: []blugeanalysis.TokenFilter{maxLengthFilter{max: n}}}, nil
	case "ngram", "nGram", "edge_ngram", "edgeNGram":
		minG, err := p.integer("tokenizer."+name, "min_gram", 1)
		if err != nil {
			return nil, err
		}
		maxG, err := p.integer("tokenizer."+name, "max_gram", 2)
		if err != nil {
			return nil, err
		}
		if minG > maxG {
			return nil, eserr.IllegalArgument("the min_gram [%d] must be smaller than or equal to the max_gram [%d]", minG, maxG)
		}
		classes, _ := p.list("token_chars")
		custom, _ := p.str("custom_token_chars")
		keep, bad := tokenChars(classes, custom)
		if bad != "" {
			return nil, eserr.IllegalArgument("Unknown token type: '%s', must be one of [symbol, private_use, paragraph_separator, start_punctuation, unassigned, enclosing_mark, connector_punctuation, letter_number, other_number, math_symbol, lowercase_letter, space_separator, surrogate, initial_quote_punctuation, decimal_digit_number, digit, other_punctuation, dash_punctuation, currency_symbol, final_quote_punctuation, format, other_letter, modifier_symbol, control, title_case_letter, line_separator, non_spacing_mark, combining_spacing_mark, modifier_letter, uppercase_letter, other_symbol, enclosing_mark, letter, whitespace, punctuation, custom]", bad)
		}
		return &ngramTokenizer{min: minG, max: maxG, edge: strings.HasPrefix(strings.ToLower(typ), "edge"), keep: keep}, nil
	case "pattern":
		pat, ok := p.str("pattern")
		if !ok {
			pat = `\W+`
		}
		re, err := b.compile("tokenizer", name, "pattern", pat)
		if err != nil {
			return nil, err
		}
		group, err := p.integer("tokenizer."+name, "group", -1)
		if err != nil {
			return nil, err
		}
		return &patternTokenizer{re: re, group: group}, nil
	case "simple_pattern":
		pat, _ := p.str("pattern")
		re, err := b.compile("tokenizer", name, "pattern", pat)
		if err != nil {
			return nil, err
		}
		return &patternTokenizer{re: re, group: 0}, nil
	case "simple_pattern_split":
		pat, _ := p.str("pattern")
		re, err := b.compile("tokenizer", name, "pattern", pat)
		if err != nil {
			return nil, err
		}
		return &patternTokenizer{re: re, group: -1}, nil
	case "char_group":
		chars, _ := p.list("tokenize_on_chars")
		var preds []func(rune) bool
		var literal []rune
		for _, c := range chars {
			switch c {
			case "letter":
				preds = append(preds, unicode.IsLetter)
			case "digit":
				preds = append(preds, unicode.IsDigit)
			case "whitespace":
				preds = append(preds, unicode.IsSpace)
			case "punctuation":
				preds = append(preds, unicode.IsPunct)
			case "symbol":
				preds = append(preds, unicode.IsSymbol)
			default:
				c = unescapeRule(c)
				if len([]rune(c)) != 1 {
					return nil, eserr.IllegalArgument("Invalid escaped char in [%s]", c)
				}
				literal = append(literal, []rune(c)[0])
			}
		}
		return &runeClassTokenizer{keep: func(r rune) bool {
			for _, l := range literal {
				if l == r {
					return false
				}
			}
			for _, p := range preds {
				if p(r) {
					return false
				}
			}
			return true
		}}, nil
	case "path_hierarchy", "PathHierarchy":
		d, ok := p.str("delimiter")
		if !ok {
			d = "/"
		}
		rep, ok := p.str("replacement")
		if !ok {
			rep = d
		}
		if len(d) != 1 || len(rep) != 1 {
			return nil, eserr.IllegalArgument("delimiter must be a one char value")
		}
		return &pathHierarchyTokenizer{delim: d[0], replace: rep[0]}, nil
	}
	if f, ok := builtinTokenizers[typ]; ok {
		return f(), nil
	}
	return nil, eserr.IllegalArgument("Unknown tokenizer type [%s] for [%s]", typ, name)
}

// filter builds a configured token filter.
func (b *builder) filter(name string, p params) (blugeanalysis.TokenFilter, error) {
	typ, ok := p.str("type")
	if !ok {
		return nil, eserr.IllegalArgument("filter [%s] must specify either an analyzer type, or a tokenizer", name)
	}
	key := "filter." + name
	switch typ {
	case "stop":
		words := luceneEnglishStopWords
		if l, ok := p.list("stopwords"); ok {
			words = stopWords(l)
		} else if _, ok := p["stopwords_path"]; ok {
			return nil, eserr.IllegalArgument("stopwords_path is not supported, use stopwords for filter [%s]", name)
		}
		ic, err := p.boolean(key, "ignore_case", false)
		if err != nil {
			return nil, err
		}
		return newStopFilter(words, ic), nil
	case "asciifolding":
		po, err := p.boolean(key, "preserve_original", false)
		if err != nil {
			return nil, err
		}
		return asciiFoldingFilter{preserveOriginal: po}, nil
	case "stemmer", "snowball":
		lang, ok := p.str("language")
		if !ok {
			lang, ok = p.str("name")
		}
		if !ok {
			lang = "english"
		}
		f, found := stemmers[strings.ToLower(lang)]
		if !found {
			return nil, eserr.IllegalArgument("Unknown stemmer language [%s] for filter [%s]", lang, name)
		}
		return f(), nil
	case "length":
		minL, err := p.integer(key, "min", 0)
		if err != nil {
			return nil, err
		}
		maxL, err := p.integer(key, "max", 1<<31-1)
		if err != nil {
			return nil, err
		}
		return token.NewLengthFilter(minL, maxL), nil
	case "truncate":
		n, err := p.integer(key, "length", 10)
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return nil, eserr.IllegalArgument("length parameter must be provided")
		}
		return token.NewTruncateTokenFilter(n), nil
	case "ngram", "nGram", "edge_ngram", "edgeNGram":
		minG, err := p.integer(key, "min_gram", 1)
		if err != nil {
			return nil, err
		}
		maxG, err := p.integer(key, "max_gram", 2)
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(strings.ToLower(typ), "edge") {
			side := token.FRONT
			if s, _ := p.str("side"); s == "back" {
				side = token.BACK
			}
			return token.NewEdgeNgramFilter(side, minG, maxG), nil
		}
		return token.NewNgramFilter(minG, maxG), nil
	case "shingle":
		minS, err := p.integer(key, "min_shingle_size", 2)
		if err != nil {
			return nil, err
		}
		maxS, err := p.integer(key, "max_shingle_size", 2)
		if err != nil {
			return nil, err
		}
		uni, err := p.boolean(key, "output_unigrams", true)
		if err != nil {
			return nil, err
		}
		sep, ok := p.str("token_separator")
		if !ok {
			sep = " "
		}
		fill, ok := p.str("filler_token")
		if !ok {
			fill = "_"
		}
		if minS < 2 || maxS < minS {
			return nil, eserr.IllegalArgument("invalid shingle sizes min_shingle_size [%d] max_shingle_size [%d] for filter [%s]", minS, maxS, name)
		}
		_ = fill
		return &shingleFilter{min: minS, max: maxS, unigrams: uni, sep: sep}, nil
	case "elision":
		arts, ok := p.list("articles")
		if !ok {
			return nil, eserr.IllegalArgument("elision filter requires [articles] or [articles_path] setting")
		}
		ic, err := p.boolean(key, "articles_case", false)
		if err != nil {
			return nil, err
		}
		m := blugeanalysis.NewTokenMap()
		for _, a := range arts {
			m.AddToken(a)
			if ic {
				m.AddToken(strings.ToLower(a))
			}
		}
		return token.NewElisionFilter(m), nil
	case "keyword_marker":
		words, _ := p.list("keywords")
		ic, err := p.boolean(key, "ignore_case", false)
		if err != nil {
			return nil, err
		}
		return keywordMarker(words, ic), nil
	case "synonym", "synonym_graph":
		lines, ok := p.list("synonyms")
		if !ok {
			return nil, eserr.IllegalArgument("synonym requires either `synonyms` or `synonyms_path` to be configured")
		}
		expand, err := p.boolean(key, "expand", true)
		if err != nil {
			return nil, err
		}
		ic, err := p.boolean(key, "ignore_case", false)
		if err != nil {
			return nil, err
		}
		return newSynonymFilter(lines, expand, ic), nil
	case "pattern_replace":
		pat, _ := p.str("pattern")
		re, err := b.compile("filter", name, "pattern", pat)
		if err != nil {
			return nil, err
		}
		repl, _ := p.str("replacement")
		all, err := p.boolean(key, "all", true)
		if err != nil {
			return nil, err
		}
		return &patternReplaceFilter{re: re, repl: []byte(javaReplacement(repl)), all: all}, nil
	case "cjk_bigram":
		uni, err := p.boolean(key, "output_unigrams", false)
		if err != nil {
			return nil, err
		}
		return cjk.NewBigramFilter(uni), nil
	case "fingerprint":
		sep, ok := p.str("separator")
		if !ok {
			sep = " "
		}
		n, err := p.integer(key, "max_output_size", 255)
		if err != nil {
			return nil, err
		}
		return fingerprintFilter{sep: sep, maxOutput: n}, nil
	}
	if f, ok := builtinFilters[typ]; ok {
		return f(), nil
	}
	return nil, eserr.IllegalArgument("Unknown filter type [%s] for [%s]", typ, name)
}

// lookupTokenizer resolves a tokenizer name (custom first, then built-in).
func (b *builder) lookupTokenizer(name string) (blugeanalysis.Tokenizer, bool) {
	if t, ok := b.tokenizers[name]; ok {
		return t, true
	}
	if f, ok := builtinTokenizers[name]; ok {
		return f(), true
	}
	return nil, false
}

func (b *builder) lookupFilter(name string) (blugeanalysis.TokenFilter, bool) {
	if f, ok := b.filters[name]; ok {
		return f, true
	}
	if f, ok := builtinFilters[name]; ok {
		return f(), true
	}
	return nil, false
}

func (b *builder) lookupCharFilter(name string) (blugeanalysis.CharFilter, bool) {
	if f, ok := b.charFilters[name]; ok {
		return f, true
	}
	if f, ok := builtinCharFilters[name]; ok {
		return f(), true
	}
	return nil, false
}

// analyzer builds a configured analyzer (custom or a configured built-in).
func (b *builder) analyzer(name string, p params) (*blugeanalysis.Analyzer, error) {
	typ, hasType := p.str("type")
	_, hasTokenizer := p["tokenizer"]
	if !hasType {
		if !hasTokenizer {
			return nil, eserr.IllegalArgument("analyzer [%s] must specify either an analyzer type, or a tokenizer", name)
		}
		typ = "custom"
	}
	key := "analyzer." + name
	stop := func(def []string) []string {
		if l, ok := p.list("stopwords"); ok {
			return stopWords(l)
		}
		return def
	}
	switch typ {
	case "custom":
		tn, ok := p.str("tokenizer")
		if !ok {
			return nil, eserr.IllegalArgument("Custom Analyzer [%s] must be configured with a tokenizer", name)
		}
		tok, ok := b.lookupTokenizer(tn)
		if !ok {
			return nil, eserr.IllegalArgument("Custom Analyzer [%s] failed to find tokenizer under name [%s]", name, tn)
		}
		a := &blugeanalysis.Analyzer{Tokenizer: tok}
		for _, cn := range p.nameList("char_filter") {
			cf, ok := b.lookupCharFilter(cn)
			if !ok {
				return nil, eserr.IllegalArgument("Custom Analyzer [%s] failed to find char_filter under name [%s]", name, cn)
			}
			a.CharFilters = append(a.CharFilters, cf)
		}
		for _, fn := range p.nameList("filter") {
			f, ok := b.lookupFilter(fn)
			if !ok {
				return nil, eserr.IllegalArgument("Custom Analyzer [%s] failed to find filter under name [%s]", name, fn)
			}
			a.TokenFilters = append(a.TokenFilters, f)
		}
		return a, nil
	case "standard":
		n, err := p.integer(key, "max_token_length", 255)
		if err != nil {
			return nil, err
		}
		return standardAnalyzer(stop(nil), n), nil
	case "stop":
		a := *builtins()["stop"]
		a.TokenFilters = []blugeanalysis.TokenFilter{newStopFilter(stop(luceneEnglishStopWords), false)}
		return &a, nil
	case "pattern":
		pat, ok := p.str("pattern")
		if !ok {
			pat = `\W+`
		}
		re, err := b.compile("analyzer", name, "pattern", pat)
		if err != nil {
			return nil, err
		}
		lower, err := p.boolean(key, "lowercase", true)
		if err != nil {
			return nil, err
		}
		a := &blugeanalysis.Analyzer{Tokenizer: &patternTokenizer{re: re, group: -1}}
		if lower {
			a.TokenFilters = append(a.TokenFilters, token.NewLowerCaseFilter())
		}
		if sw := stop(nil); len(sw) > 0 {
			a.TokenFilters = append(a.TokenFilters, newStopFilter(sw, false))
		}
		return a, nil
	case "english":
		excl, _ := p.list("stem_exclusion")
		return englishAnalyzer(stop(luceneEnglishStopWords), excl), nil
	case "fingerprint":
		sep, ok := p.str("separator")
		if !ok {
			sep = " "
		}
		n, err := p.integer(key, "max_output_size", 255)
		if err != nil {
			return nil, err
		}
		filters := []blugeanalysis.TokenFilter{token.NewLowerCaseFilter(), asciiFoldingFilter{}}
		if sw := stop(nil); len(sw) > 0 {
			filters = append(filters, newStopFilter(sw, false))
		}
		filters = append(filters, fingerprintFilter{sep: sep, maxOutput: n})
		return &blugeanalysis.Analyzer{Tokenizer: standardTokenizer(255), TokenFilters: filters}, nil
	}
	if a, ok := builtins()[typ]; ok {
		if l, ok := p.list("stopwords"); ok && languageAnalyzers[typ] != nil {
			// A language analyzer with its own stop words: standard tokenizer,
			// lowercase, the given stop words, then the language's remaining filters.
			c := *a
			c.TokenFilters = nil
			for _, f := range a.TokenFilters {
				if _, isStop := f.(*token.StopTokensFilter); isStop {
					continue
				}
				if _, isStop := f.(*stopFilter); isStop {
					continue
				}
				c.TokenFilters = append(c.TokenFilters, f)
			}
			c.TokenFilters = append([]blugeanalysis.TokenFilter{newStopFilter(stopWords(l), true)}, c.TokenFilters...)
			return &c, nil
		}
		return a, nil
	}
	return nil, eserr.IllegalArgument("Unknown analyzer type [%s] for [%s]", typ, name)
}

// normalizer builds a configured normalizer.
func (b *builder) normalizer(name string, p params) (*Normalizer, error) {
	if typ, ok := p.str("type"); ok && typ != "custom" {
		return nil, eserr.IllegalArgument("Unknown normalizer type [%s] for [%s]", typ, name)
	}
	n := &Normalizer{name: name}
	for _, cn := range p.nameList("char_filter") {
		cf, ok := b.lookupCharFilter(cn)
		if !ok {
			return nil, eserr.IllegalArgument("Custom normalizer [%s] failed to find char_filter under name [%s]", name, cn)
		}
		n.charFilters = append(n.charFilters, cf)
	}
	for _, fn := range p.nameList("filter") {
		f, ok := b.lookupFilter(fn)
		if !ok {
			return nil, eserr.IllegalArgument("Custom normalizer [%s] failed to find filter under name [%s]", name, fn)
		}
		typ := fn
		if t, custom := b.filterTypes[fn]; custom {
			typ = t
		}
		if !normalizerFilters[typ] {
			return nil, eserr.IllegalArgument("Custom normalizer [%s] may not use filter [%s]", name, fn)
		}
		n.filters = append(n.filters, f)
	}
	return n, nil
}
