package query

import (
	"regexp"
	"strings"
	"unicode/utf8"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

var (
	spaceAroundLessThan = regexp.MustCompile(`(\s+<\s*)|(\s*<\s+)`)
)

// minShouldMatch is Queries.calculateMinShouldMatch: the number of optional
// clauses that must match for a spec like "2", "-1", "75%", "-25%",
// "3<90%" or "2<-25% 9<-3". Bad specs fail like Integer.parseInt.
func minShouldMatch(optional int, spec string) (int, error) {
	result := optional
	spec = strings.TrimSpace(spec)
	if strings.Contains(spec, "<") {
		spec = spaceAroundLessThan.ReplaceAllString(spec, "<")
		for _, s := range strings.Split(spec, " ") {
			parts := strings.Split(s, "<")
			// String.split drops trailing empty strings (but keeps [""])
			for len(parts) > 1 && parts[len(parts)-1] == "" {
				parts = parts[:len(parts)-1]
			}
			upper, err := javaParseInt(parts[0])
			if err != nil {
				return 0, err
			}
			if optional <= upper {
				return result, nil
			}
			if len(parts) < 2 {
				return 0, searchcore.Errorf(searchcore.Invalid, "array_index_out_of_bounds_exception", "Index 1 out of bounds for length 1")
			}
			result, err = minShouldMatch(optional, parts[1])
			if err != nil {
				return 0, err
			}
		}
		return result, nil
	}
	if strings.Contains(spec, "%") {
		// the % is assumed to be the last character
		_, size := utf8.DecodeLastRuneInString(spec)
		percent, err := javaParseInt(spec[:len(spec)-size])
		if err != nil {
			return 0, err
		}
		calc := float32(int32(result)*int32(percent)) * (1 / float32(100))
		if calc < 0 {
			result += int(int32(calc))
		} else {
			result = int(int32(calc))
		}
	} else {
		calc, err := javaParseInt(spec)
		if err != nil {
			return 0, err
		}
		if calc < 0 {
			result += calc
		} else {
			result = calc
		}
	}
	if result < 0 {
		return 0, nil
	}
	return result, nil
}
