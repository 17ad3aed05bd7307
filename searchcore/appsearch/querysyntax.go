package appsearch

import (
	"strings"
	"unicode"
)

// queryItem is one element of a parsed query string.
type queryItem struct {
	// text is the word or phrase ("" for operators).
	text   string
	phrase bool
	// op is "AND", "OR" or "NOT" for an operator item.
	op string
	// occur is "should", "must" or "must_not".
	occur string
	// synonyms, when set, are the alternatives this item stands for.
	synonyms []string
}

// queryGroup is a conjunction of items; groups are OR-ed (earlier
// revision's OR).
type queryGroup []queryItem

// parseQuerySyntax splits the App Search query syntax: double-quoted
// phrases, +required, -excluded, AND, NOT and (earlier revision only) OR
// between groups. In the later revision OR is an ordinary term (the known
// issue SPEC.md lists). Unbalanced quotes make the rest of the string one
// phrase, as a lenient parser must never fail on user input.
func parseQuerySyntax(q string, rev Revision) []queryGroup {
	var raw []queryItem
	rs := []rune(q)
	for i := 0; i < len(rs); {
		r := rs[i]
		if unicode.IsSpace(r) {
			i++
			continue
		}
		prefix := ""
		if (r == '+' || r == '-') && i+1 < len(rs) && !unicode.IsSpace(rs[i+1]) {
			prefix = string(r)
			i++
			r = rs[i]
		}
		var it queryItem
		if r == '"' {
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				j++
			}
			it = queryItem{text: strings.TrimSpace(string(rs[i+1 : j])), phrase: true}
			i = j + 1
		} else {
			j := i
			for j < len(rs) && !unicode.IsSpace(rs[j]) && rs[j] != '"' {
				j++
			}
			word := string(rs[i:j])
			i = j
			if prefix == "" && (word == "AND" || word == "NOT" || (word == "OR" && rev == RevisionEarlier)) {
				raw = append(raw, queryItem{op: word})
				continue
			}
			it = queryItem{text: word}
		}
		if it.text == "" {
			continue
		}
		switch prefix {
		case "+":
			it.occur = "must"
		case "-":
			it.occur = "must_not"
		}
		raw = append(raw, it)
	}
	// Split into OR groups, then resolve AND and NOT inside each group.
	var groups []queryGroup
	var cur []queryItem
	flush := func() {
		if g := resolveOperators(cur); len(g) > 0 {
			groups = append(groups, g)
		}
		cur = nil
	}
	for _, it := range raw {
		if it.op == "OR" {
			flush()
			continue
		}
		cur = append(cur, it)
	}
	flush()
	return groups
}

// resolveOperators applies NOT (the next term is excluded) and AND (both
// neighbours are required) and drops the operator items.
func resolveOperators(items []queryItem) queryGroup {
	var out queryGroup
	negate, andPending := false, false
	for _, it := range items {
		switch it.op {
		case "NOT":
			negate = true
			continue
		case "AND":
			if len(out) > 0 && out[len(out)-1].occur == "" {
				out[len(out)-1].occur = "must"
			}
			andPending = true
			continue
		}
		if negate {
			it.occur = "must_not"
		} else if andPending && it.occur == "" {
			it.occur = "must"
		}
		negate, andPending = false, false
		out = append(out, it)
	}
	for i := range out {
		if out[i].occur == "" {
			out[i].occur = "should"
		}
	}
	return out
}

// applySynonyms replaces the longest run of plain words equal to a member
// of a synonym set by one item standing for the whole set.
func applySynonyms(g queryGroup, sets [][]string) queryGroup {
	if len(sets) == 0 {
		return g
	}
	var out queryGroup
	for i := 0; i < len(g); {
		best, bestLen := -1, 0
		for si, set := range sets {
			for _, member := range set {
				words := strings.Fields(strings.ToLower(member))
				n := len(words)
				if n == 0 || n <= bestLen || i+n > len(g) {
					continue
				}
				ok := true
				for k := 0; k < n; k++ {
					it := g[i+k]
					if it.phrase || it.occur != g[i].occur || strings.ToLower(it.text) != words[k] {
						ok = false
						break
					}
				}
				if ok {
					best, bestLen = si, n
				}
			}
		}
		if best < 0 {
			out = append(out, g[i])
			i++
			continue
		}
		words := make([]string, bestLen)
		for k := range words {
			words[k] = g[i+k].text
		}
		out = append(out, queryItem{text: strings.Join(words, " "), occur: g[i].occur, synonyms: sets[best]})
		i += bestLen
	}
	return out
}

// positiveTerms returns the words and phrases that may match (used for
// snippets and query suggestions), synonyms included.
func positiveTerms(groups []queryGroup) []string {
	var out []string
	for _, g := range groups {
		for _, it := range g {
			if it.occur == "must_not" {
				continue
			}
			if len(it.synonyms) > 0 {
				out = append(out, it.synonyms...)
				continue
			}
			out = append(out, it.text)
		}
	}
	return out
}
