package searchcore

import (
	"strings"
	"unicode/utf16"
)

// stringDistances are the term suggester's string_distance options.
var stringDistances = map[string]bool{
	"internal": true, "damerau_levenshtein": true, "levenshtein": true, "jaro_winkler": true, "ngram": true,
}

// suggestScore is the score of candidate cand for the query token under
// the term suggester's string_distance; ed is their Damerau-Levenshtein
// distance. internal and damerau_levenshtein (Lucene's
// LuceneLevenshteinDistance) scale the edits by the shorter term; the
// others are Lucene's LevenshteinDistance, JaroWinklerDistance and
// NGramDistance(2), computed on UTF-16 units in float32 as Java does.
func suggestScore(distance string, token, cand []rune, ed int) float32 {
	switch distance {
	case "levenshtein":
		return levenshteinSimilarity(utf16.Encode(token), utf16.Encode(cand))
	case "jaro_winkler":
		return jaroWinkler(utf16.Encode(token), utf16.Encode(cand))
	case "ngram":
		return ngramSimilarity(utf16.Encode(token), utf16.Encode(cand), 2)
	}
	return 1 - float32(ed)/float32(min(len(token), len(cand)))
}

// levenshteinSimilarity is Lucene's LevenshteinDistance.getDistance: one
// minus the edit distance over the longer length.
func levenshteinSimilarity(target, other []uint16) float32 {
	n, m := len(target), len(other)
	if n == 0 || m == 0 {
		if n == m {
			return 1
		}
		return 0
	}
	p, d := make([]int, n+1), make([]int, n+1)
	for i := range p {
		p[i] = i
	}
	for j := 1; j <= m; j++ {
		d[0] = j
		for i := 1; i <= n; i++ {
			cost := 1
			if target[i-1] == other[j-1] {
				cost = 0
			}
			d[i] = min(d[i-1]+1, p[i]+1, p[i-1]+cost)
		}
		p, d = d, p
	}
	return 1 - float32(p[n])/float32(max(n, m))
}

// jaroWinkler is Lucene's JaroWinklerDistance.getDistance (threshold 0.7).
func jaroWinkler(s1, s2 []uint16) float32 {
	long, short := s2, s1
	if len(s1) > len(s2) {
		long, short = s1, s2
	}
	rng := max(len(long)/2-1, 0)
	matchIndexes := make([]int, len(short))
	matchFlags := make([]bool, len(long))
	matches := 0
	for mi, c := range short {
		matchIndexes[mi] = -1
		for xi := max(mi-rng, 0); xi < min(mi+rng+1, len(long)); xi++ {
			if !matchFlags[xi] && c == long[xi] {
				matchIndexes[mi], matchFlags[xi] = xi, true
				matches++
				break
			}
		}
	}
	if matches == 0 {
		return 0
	}
	ms1 := make([]uint16, 0, matches)
	for i, c := range short {
		if matchIndexes[i] != -1 {
			ms1 = append(ms1, c)
		}
	}
	ms2 := make([]uint16, 0, matches)
	for i, c := range long {
		if matchFlags[i] {
			ms2 = append(ms2, c)
		}
	}
	transpositions := 0
	for i := range ms1 {
		if ms1[i] != ms2[i] {
			transpositions++
		}
	}
	prefix := 0
	for i := range short {
		if s1[i] != s2[i] {
			break
		}
		prefix++
	}
	m := float32(matches)
	j := (m/float32(len(s1)) + m/float32(len(s2)) + (m-float32(transpositions/2))/m) / 3
	if j < 0.7 {
		return j
	}
	return j + min(float32(0.1), 1/float32(len(long)))*float32(prefix)*(1-j)
}

// ngramSimilarity is Lucene's NGramDistance.getDistance for n-grams of n.
func ngramSimilarity(source, target []uint16, n int) float32 {
	sl, tl := len(source), len(target)
	if sl == 0 || tl == 0 {
		if sl == tl {
			return 1
		}
		return 0
	}
	if sl < n || tl < n {
		cost := 0
		for i := 0; i < min(sl, tl); i++ {
			if source[i] == target[i] {
				cost++
			}
		}
		return float32(cost) / float32(max(sl, tl))
	}
	sa := make([]uint16, sl+n-1) // source with n-1 leading zero units
	copy(sa[n-1:], source)
	p, d := make([]float32, sl+1), make([]float32, sl+1)
	for i := range p {
		p[i] = float32(i)
	}
	tj := make([]uint16, n)
	for j := 1; j <= tl; j++ {
		if j < n {
			for ti := 0; ti < n-j; ti++ {
				tj[ti] = 0
			}
			copy(tj[n-j:], target[:j])
		} else {
			copy(tj, target[j-n:j])
		}
		d[0] = float32(j)
		for i := 1; i <= sl; i++ {
			cost, tn := 0, n
			for ni := 0; ni < n; ni++ {
				if sa[i-1+ni] != tj[ni] {
					cost++
				} else if sa[i-1+ni] == 0 {
					tn-- // matches on the padding do not count
				}
			}
			ec := float32(cost) / float32(tn)
			d[i] = min(d[i-1]+1, p[i]+1, p[i-1]+ec)
		}
		p, d = d, p
	}
	return 1 - p[sl]/float32(max(tl, sl))
}

// parseStringDistance resolves a string_distance option.
func parseStringDistance(s string) (string, error) {
	d := strings.ToLower(s)
	if !stringDistances[d] {
		return "", IllegalArgument("Illegal distance option %s", s)
	}
	return d, nil
}
