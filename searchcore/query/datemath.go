package query

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // time_zone accepts region ids on hosts without zoneinfo
	"unicode/utf8"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// defaultDateFormat is the format of a date field mapped without one.
const defaultDateFormat = "strict_date_optional_time||epoch_millis"

// dateMath resolves ES date values: a date in one of the formats, "now", or
// an anchor followed by math ("now-1d/d", "2020-01-01||+1M/d"), in a time
// zone, rounding down or up as JavaDateMathParser does.
type dateMath struct {
	format string
	loc    *time.Location // nil = UTC, and no zone override
	now    func() time.Time
}

// parseErr is ElasticsearchParseException (parse_exception).
func parseErr(format string, args ...any) *searchcore.Error {
	return searchcore.Errorf(searchcore.Invalid, "parse_exception", format, args...)
}

// resolve returns epoch milliseconds for text. roundUp selects the last
// millisecond of rounded units and of partially given dates.
func (dm dateMath) resolve(text string, roundUp bool) (int64, error) {
	var t time.Time
	var math string
	if strings.HasPrefix(text, "now") {
		t = dm.now().Truncate(time.Millisecond)
		math = text[len("now"):]
	} else {
		i := strings.Index(text, "||")
		if i < 0 {
			return dm.parseDateTime(text, roundUp)
		}
		ms, err := dm.parseDateTime(text[:i], false)
		if err != nil {
			return 0, err
		}
		t = time.UnixMilli(ms)
		math = text[i+2:]
	}
	loc := dm.loc
	if loc == nil {
		loc = time.UTC
	}
	t, err := applyDateMath(t.In(loc), math, roundUp)
	if err != nil {
		return 0, err
	}
	return t.UnixMilli(), nil
}

// applyDateMath evaluates +N<unit>, -N<unit> and /<unit> operations.
func applyDateMath(t time.Time, expr string, roundUp bool) (time.Time, error) {
	for i := 0; i < len(expr); {
		c := expr[i]
		i++
		round := false
		sign := 1
		switch c {
		case '/':
			round = true
		case '+':
		case '-':
			sign = -1
		default:
			return t, parseErr("operator not supported for date math [%s]", expr)
		}
		if i >= len(expr) {
			return t, parseErr("truncated date math [%s]", expr)
		}
		num := 1
		if expr[i] >= '0' && expr[i] <= '9' {
			from := i
			for i < len(expr) && expr[i] >= '0' && expr[i] <= '9' {
				i++
			}
			if i >= len(expr) {
				return t, parseErr("truncated date math [%s]", expr)
			}
			n, err := strconv.Atoi(expr[from:i])
			if err != nil {
				return t, numberFormatErr(expr[from:i])
			}
			num = n
		}
		if round && num != 1 {
			return t, parseErr("rounding `/` can only be used on single unit types [%s]", expr)
		}
		unit, size := utf8.DecodeRuneInString(expr[i:])
		i += size
		n := sign * num
		y, mo, d := t.Date()
		h, mi, s := t.Clock()
		loc := t.Location()
		switch unit {
		case 'y':
			if round {
				t = time.Date(y, 1, 1, 0, 0, 0, 0, loc)
				if roundUp {
					t = time.Date(y+1, 1, 1, 0, 0, 0, 0, loc)
				}
			} else {
				t = plusMonths(t, 12*n)
			}
		case 'M':
			if round {
				t = time.Date(y, mo, 1, 0, 0, 0, 0, loc)
				if roundUp {
					t = time.Date(y, mo+1, 1, 0, 0, 0, 0, loc)
				}
			} else {
				t = plusMonths(t, n)
			}
		case 'w':
			if round {
				back := (int(t.Weekday()) + 6) % 7 // days since Monday
				t = time.Date(y, mo, d-back, 0, 0, 0, 0, loc)
				if roundUp {
					t = time.Date(y, mo, d-back+7, 0, 0, 0, 0, loc)
				}
			} else {
				t = time.Date(y, mo, d+7*n, h, mi, s, t.Nanosecond(), loc)
			}
		case 'd':
			if round {
				t = time.Date(y, mo, d, 0, 0, 0, 0, loc)
				if roundUp {
					t = time.Date(y, mo, d+1, 0, 0, 0, 0, loc)
				}
			} else {
				t = time.Date(y, mo, d+n, h, mi, s, t.Nanosecond(), loc)
			}
		case 'h', 'H':
			if round {
				t = truncateIn(t, time.Hour)
				if roundUp {
					t = t.Add(time.Hour)
				}
			} else {
				t = t.Add(time.Duration(n) * time.Hour)
			}
		case 'm':
			if round {
				t = truncateIn(t, time.Minute)
				if roundUp {
					t = t.Add(time.Minute)
				}
			} else {
				t = t.Add(time.Duration(n) * time.Minute)
			}
		case 's':
			if round {
				t = truncateIn(t, time.Second)
				if roundUp {
					t = t.Add(time.Second)
				}
			} else {
				t = t.Add(time.Duration(n) * time.Second)
			}
		default:
			return t, parseErr("unit [%c] not supported for date math [%s]", unit, expr)
		}
		if round && roundUp {
			t = t.Add(-time.Millisecond)
		}
	}
	return t, nil
}

// truncateIn truncates t to d in its own zone's local clock.
func truncateIn(t time.Time, d time.Duration) time.Time {
	_, off := t.Zone()
	local := t.Add(time.Duration(off) * time.Second)
	trunc := local.Truncate(d)
	return t.Add(trunc.Sub(local))
}

// plusMonths is ZonedDateTime.plusMonths: the day of month is clamped to
// the length of the target month.
func plusMonths(t time.Time, n int) time.Time {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	total := int(mo) - 1 + n
	ny := y + floorDiv(total, 12)
	nm := time.Month(floorMod(total, 12) + 1)
	if last := daysIn(ny, nm); d > last {
		d = last
	}
	return time.Date(ny, nm, d, h, mi, s, t.Nanosecond(), t.Location())
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int) int { return a - floorDiv(a, b)*b }

// parseDateTime parses a date without math, trying the formats in order.
func (dm dateMath) parseDateTime(text string, roundUp bool) (int64, error) {
	if text == "" {
		return 0, parseErr("cannot parse empty date")
	}
	format := dm.format
	if format == "" {
		format = defaultDateFormat
	}
	for _, sub := range strings.Split(format, "||") {
		ms, err := mapping.ParseDate(text, sub)
		if err != nil {
			continue
		}
		epoch := strings.HasPrefix(sub, "epoch_")
		if roundUp {
			ms += roundUpFill(text, sub)
		}
		if dm.loc != nil && !epoch && !hasExplicitZone(text, sub) {
			ms = reinterpretIn(ms, dm.loc)
		}
		return ms, nil
	}
	msg := fmt.Sprintf("failed to parse date field [%s] with format [%s]", text, format)
	e := parseErr("%s: [%s]", msg, msg)
	e.CausedBy = searchcore.IllegalArgument("%s", msg)
	return 0, e
}

// reinterpretIn treats ms (parsed as UTC) as a local time in loc.
func reinterpretIn(ms int64, loc *time.Location) int64 {
	u := time.UnixMilli(ms).UTC()
	y, mo, d := u.Date()
	h, mi, s := u.Clock()
	return time.Date(y, mo, d, h, mi, s, u.Nanosecond(), loc).UnixMilli()
}

var (
	isoTimeZone = regexp.MustCompile(`(Z|[+-]\d{2}(:?\d{2}(:?\d{2})?)?)$`)
	patternZone = regexp.MustCompile(`[ZXxzOV]`)
)

// hasExplicitZone reports whether a date text carries its own zone, which
// then wins over the time_zone parameter.
func hasExplicitZone(text, format string) bool {
	if isCustomPattern(format) {
		return patternZone.MatchString(stripQuoted(format))
	}
	ti := strings.IndexAny(text, "T ")
	if ti < 0 {
		return false
	}
	return isoTimeZone.MatchString(text[ti+1:])
}

// isCustomPattern tells a java-time pattern ("dd/MM/yyyy") from a named
// ES format ("strict_date_optional_time", "basic_date").
func isCustomPattern(format string) bool {
	for _, r := range format {
		if r != '_' && (r < 'a' || r > 'z') {
			return true
		}
	}
	return false
}

func stripQuoted(p string) string {
	var sb strings.Builder
	in := false
	for _, r := range p {
		if r == '\'' {
			in = !in
			continue
		}
		if !in {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// roundUpFill is the amount the round-up parser adds for fields the text
// leaves out: hour 23, minute 59, second 59, nanos 999999999 (month and day
// default to 1 either way).
func roundUpFill(text, format string) int64 {
	const (
		fillDay    = 86399999
		fillHour   = 3599999
		fillMinute = 59999
		fillSecond = 999
	)
	switch {
	case strings.HasPrefix(format, "epoch_second"):
		if strings.Contains(text, ".") {
			return 0
		}
		return fillSecond
	case strings.HasPrefix(format, "epoch_"):
		return 0
	case isCustomPattern(format):
		p := stripQuoted(format)
		switch {
		case !strings.ContainsAny(p, "HkKh"):
			return fillDay
		case !strings.Contains(p, "m"):
			return fillHour
		case !strings.Contains(p, "s"):
			return fillMinute
		case !strings.ContainsAny(p, "SnN"):
			return fillSecond
		}
		return 0
	}
	ti := strings.IndexAny(text, "T ")
	if ti < 0 {
		return fillDay
	}
	tp := text[ti+1:]
	if loc := isoTimeZone.FindStringIndex(tp); loc != nil && loc[0] > 0 {
		tp = tp[:loc[0]]
	}
	frac := strings.ContainsAny(tp, ".,")
	if i := strings.IndexAny(tp, ".,"); i >= 0 {
		tp = tp[:i]
	}
	var fields int
	if strings.Contains(tp, ":") {
		fields = strings.Count(tp, ":") + 1
	} else {
		fields = (len(tp) + 1) / 2
	}
	switch {
	case fields <= 1:
		return fillHour
	case fields == 2:
		return fillMinute
	case !frac:
		return fillSecond
	}
	return 0
}

var offsetID = regexp.MustCompile(`^[+-]\d{1,2}(:?\d{2}(:?\d{2})?)?$`)

// parseZone resolves a time_zone parameter like java.time.ZoneId.of.
func parseZone(id string) (*time.Location, error) {
	switch id {
	case "Z", "UTC", "GMT", "UT":
		return time.UTC, nil
	}
	off := id
	for _, p := range []string{"UTC", "GMT", "UT"} {
		if strings.HasPrefix(id, p) && len(id) > len(p) && (id[len(p)] == '+' || id[len(p)] == '-') {
			off = id[len(p):]
		}
	}
	if off != "" && (off[0] == '+' || off[0] == '-') {
		if !offsetID.MatchString(off) {
			return nil, searchcore.IllegalArgument("java.time.DateTimeException: Invalid ID for ZoneOffset, invalid format: %s", off)
		}
		sign := 1
		if off[0] == '-' {
			sign = -1
		}
		digits := strings.ReplaceAll(off[1:], ":", "")
		var h, m, s int
		switch len(digits) {
		case 1, 2:
			h, _ = strconv.Atoi(digits)
		case 4:
			h, _ = strconv.Atoi(digits[:2])
			m, _ = strconv.Atoi(digits[2:])
		case 6:
			h, _ = strconv.Atoi(digits[:2])
			m, _ = strconv.Atoi(digits[2:4])
			s, _ = strconv.Atoi(digits[4:])
		default:
			return nil, searchcore.IllegalArgument("java.time.DateTimeException: Invalid ID for ZoneOffset, invalid format: %s", off)
		}
		if h > 18 {
			return nil, searchcore.IllegalArgument("java.time.DateTimeException: Zone offset hours not in valid range: value %d is not in the range -18 to 18", h)
		}
		return time.FixedZone(id, sign*(h*3600+m*60+s)), nil
	}
	if id == "" || strings.HasPrefix(id, "/") {
		return nil, searchcore.IllegalArgument("java.time.DateTimeException: Invalid ID for region-based ZoneId, invalid format: %s", id)
	}
	loc, err := time.LoadLocation(id)
	if err != nil || id == "Local" {
		return nil, searchcore.IllegalArgument("java.time.zone.ZoneRulesException: Unknown time-zone ID: %s", id)
	}
	return loc, nil
}

// NowMath evaluates a "now"-anchored date math expression ("now",
// "now-1d/d", "now/M") in the time zone tz ("" for UTC), rounding down, as
// date-math index names do.
func NowMath(now time.Time, expr, tz string) (time.Time, error) {
	loc := time.UTC
	if tz != "" {
		var err error
		if loc, err = parseZone(tz); err != nil {
			return time.Time{}, err
		}
	}
	if !strings.HasPrefix(expr, "now") {
		return time.Time{}, parseErr("could not parse date math expression [%s]: it must start with [now]", expr)
	}
	return applyDateMath(now.In(loc), expr[len("now"):], false)
}
