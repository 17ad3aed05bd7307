package query

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// fuzziness is ES's Fuzziness: a fixed edit distance or AUTO[:low,high].
type fuzziness struct {
	auto      bool
	low, high int
	edits     float32 // fixed value (may be fractional, as ES accepts)
}

var fuzzinessAuto = fuzziness{auto: true, low: 3, high: 6}

// parseFuzziness is Fuzziness.parse on the current token.
func parseFuzziness(v *jval) (fuzziness, error) {
	if v.kind != kString && v.kind != kNumber {
		return fuzziness{}, searchcore.IllegalArgument("Can't parse fuzziness on token: [%s]", v.kind.token())
	}
	s := v.s
	if strings.EqualFold(s, "AUTO") {
		return fuzzinessAuto, nil
	}
	if strings.HasPrefix(strings.ToUpper(s), "AUTO:") {
		parts := strings.Split(s[len("AUTO:"):], ",")
		if len(parts) != 2 {
			return fuzziness{}, parseErr("failed to find low and high distance values")
		}
		low, err1 := javaParseInt(parts[0])
		high, err2 := javaParseInt(parts[1])
		if err1 != nil || err2 != nil {
			e := parseErr("failed to parse [%s] as a \"auto:int,int\"", s)
			if err1 != nil {
				e.CausedBy, _ = searchcore.AsError(err1)
			} else {
				e.CausedBy, _ = searchcore.AsError(err2)
			}
			return fuzziness{}, e
		}
		if low < 0 || high < 0 || low > high {
			return fuzziness{}, parseErr("fuzziness wrongly configured, must be: lowDistance > 0, highDistance" +
				" > 0 and lowDistance <= highDistance ")
		}
		return fuzziness{auto: true, low: low, high: high}, nil
	}
	if n, err := javaParseInt(s); err == nil {
		if n < 0 {
			return fuzziness{}, searchcore.IllegalArgument("Invalid fuzziness value: %s", s)
		}
		return fuzziness{edits: float32(n)}, nil
	}
	f, err := javaParseFloat(s)
	if err != nil {
		return fuzziness{}, parseErr("Invalid fuzziness value: %s", s)
	}
	if f < 0 {
		return fuzziness{}, searchcore.IllegalArgument("Invalid fuzziness value: %s", s)
	}
	return fuzziness{edits: f}, nil
}

// distance is Fuzziness.asDistance(text): the edit distance for a term.
func (f fuzziness) distance(term string) int {
	if f.auto {
		n := utf8.RuneCountInString(term)
		switch {
		case n < f.low:
			return 0
		case n < f.high:
			return 1
		}
		return 2
	}
	return int(math.Min(2, float64(int(f.edits))))
}

func (f fuzziness) String() string {
	if f.auto {
		if f.low == 3 && f.high == 6 {
			return "AUTO"
		}
		return "AUTO:" + strconv.Itoa(f.low) + "," + strconv.Itoa(f.high)
	}
	return javaFloatString(f.edits)
}
