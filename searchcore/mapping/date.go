package mapping

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// DefaultDateFormat is the format of a date field without "format".
const DefaultDateFormat = "strict_date_optional_time||epoch_millis"

// DefaultDateNanosFormat is the format of a date_nanos field without "format".
const DefaultDateNanosFormat = "strict_date_optional_time_nanos||epoch_millis"

// dateParser parses or prints one alternative of a date format.
type dateParser interface {
	// parse returns seconds and nanoseconds since the epoch.
	parse(s string) (sec int64, nsec int64, ok bool)
	print(t time.Time) string
}

// dateFormat is a compiled "a||b||c" format.
type dateFormat struct {
	raw  string
	alts []dateParser
}

var dateFormats sync.Map // string → *dateFormat

// compileDateFormat compiles (and caches) a format; an invalid pattern is an
// illegal_argument_exception "Invalid format: [x]: ...".
func compileDateFormat(format string) (*dateFormat, error) {
	if f, ok := dateFormats.Load(format); ok {
		return f.(*dateFormat), nil
	}
	df := &dateFormat{raw: format}
	for _, alt := range strings.Split(format, "||") {
		p, err := compileDateAlt(strings.TrimSpace(alt))
		if err != nil {
			return nil, eserr.IllegalArgument("Invalid format: [%s]: %s", format, err.Error())
		}
		df.alts = append(df.alts, p)
	}
	if len(df.alts) == 0 {
		return nil, eserr.IllegalArgument("Invalid format: [%s]: empty format", format)
	}
	dateFormats.Store(format, df)
	return df, nil
}

type formatError string

func (e formatError) Error() string { return string(e) }

// namedPatterns are the Elasticsearch built-in formats expressible as Java
// patterns. Lenient (non-strict) variants accept fewer digits.
var namedPatterns = map[string]string{
	"basic_date":                        "yyyyMMdd",
	"basic_date_time":                   "yyyyMMdd'T'HHmmss.SSSZ",
	"basic_date_time_no_millis":         "yyyyMMdd'T'HHmmssZ",
	"basic_ordinal_date":                "yyyyDDD",
	"basic_ordinal_date_time":           "yyyyDDD'T'HHmmss.SSSZ",
	"basic_ordinal_date_time_no_millis": "yyyyDDD'T'HHmmssZ",
	"basic_time":                        "HHmmss.SSSZ",
	"basic_time_no_millis":              "HHmmssZ",
	"basic_t_time":                      "'T'HHmmss.SSSZ",
	"basic_t_time_no_millis":            "'T'HHmmssZ",
	"date":                              "yyyy-MM-dd",
	"date_hour":                         "yyyy-MM-dd'T'HH",
	"date_hour_minute":                  "yyyy-MM-dd'T'HH:mm",
	"date_hour_minute_second":           "yyyy-MM-dd'T'HH:mm:ss",
	"date_hour_minute_second_fraction":  "yyyy-MM-dd'T'HH:mm:ss.SSS",
	"date_hour_minute_second_millis":    "yyyy-MM-dd'T'HH:mm:ss.SSS",
	"date_time":                         "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
	"date_time_no_millis":               "yyyy-MM-dd'T'HH:mm:ssXXX",
	"hour":                              "HH",
	"hour_minute":                       "HH:mm",
	"hour_minute_second":                "HH:mm:ss",
	"hour_minute_second_fraction":       "HH:mm:ss.SSS",
	"hour_minute_second_millis":         "HH:mm:ss.SSS",
	"ordinal_date":                      "yyyy-DDD",
	"ordinal_date_time":                 "yyyy-DDD'T'HH:mm:ss.SSSXXX",
	"ordinal_date_time_no_millis":       "yyyy-DDD'T'HH:mm:ssXXX",
	"time":                              "HH:mm:ss.SSSXXX",
	"time_no_millis":                    "HH:mm:ssXXX",
	"t_time":                            "'T'HH:mm:ss.SSSXXX",
	"t_time_no_millis":                  "'T'HH:mm:ssXXX",
	"year":                              "yyyy",
	"year_month":                        "yyyy-MM",
	"year_month_day":                    "yyyy-MM-dd",
}

func compileDateAlt(alt string) (dateParser, error) {
	switch alt {
	case "":
		return nil, formatError("empty format")
	case "epoch_millis":
		return epochParser{millis: true}, nil
	case "epoch_second":
		return epochParser{}, nil
	case "strict_date_optional_time", "strict_date_optional_time_nanos":
		return &isoParser{strict: true, nanos: strings.HasSuffix(alt, "_nanos")}, nil
	case "date_optional_time", "iso8601":
		return &isoParser{}, nil
	}
	name := strings.TrimPrefix(alt, "strict_")
	if p, ok := namedPatterns[name]; ok {
		return compileJavaPattern(p, name == alt)
	}
	// Elasticsearch 7 accepted an "8" prefix selecting java-time patterns.
	if strings.HasPrefix(alt, "8") && len(alt) > 1 {
		alt = alt[1:]
	}
	return compileJavaPattern(alt, false)
}

// ParseDate parses value with an Elasticsearch date format (named formats,
// Java-time patterns, "||" alternatives) and returns epoch milliseconds.
// Values without a zone are UTC. A failure is an illegal_argument_exception
// "failed to parse date field [v] with format [f]" caused by a
// date_time_parse_exception, as Elasticsearch reports it.
func ParseDate(value string, format string) (epochMillis int64, err error) {
	sec, nsec, err := parseDateNanos(value, format)
	if err != nil {
		return 0, err
	}
	return sec*1000 + nsec/1e6, nil
}

// parseDateNanos is ParseDate with nanosecond resolution.
func parseDateNanos(value, format string) (sec, nsec int64, err error) {
	if format == "" {
		format = DefaultDateFormat
	}
	df, err := compileDateFormat(format)
	if err != nil {
		return 0, 0, err
	}
	for _, p := range df.alts {
		if s, n, ok := p.parse(value); ok {
			return s, n, nil
		}
	}
	cause := "Failed to parse with all enclosed parsers"
	if len(df.alts) == 1 {
		cause = "Text '" + value + "' could not be parsed at index 0"
	}
	return 0, 0, eserr.IllegalArgument("failed to parse date field [%s] with format [%s]", value, format).
		Caused(eserr.New("date_time_parse_exception", cause))
}

// FormatDate renders epoch milliseconds with the first alternative of an
// Elasticsearch date format, in UTC (as sort values and stored fields show
// dates). An invalid format falls back to the default format.
func FormatDate(millis int64, format string) string {
	if format == "" {
		format = DefaultDateFormat
	}
	df, err := compileDateFormat(format)
	if err != nil {
		df, _ = compileDateFormat(DefaultDateFormat)
	}
	t := time.UnixMilli(millis).UTC()
	return df.alts[0].print(t)
}

// FormatTime renders t in its own time zone with the first alternative of an
// Elasticsearch date format (date-math index names); an invalid format is an
// error.
func FormatTime(t time.Time, format string) (string, error) {
	df, err := compileDateFormat(format)
	if err != nil {
		return "", err
	}
	return df.alts[0].print(t), nil
}

// epochParser parses epoch_millis (with up to 6 fraction digits) or
// epoch_second (up to 9).
type epochParser struct{ millis bool }

func (e epochParser) parse(s string) (int64, int64, bool) {
	if s == "" {
		return 0, 0, false
	}
	neg := false
	i := 0
	if s[0] == '-' {
		neg = true
		i = 1
	}
	intPart, frac, hasDot := s[i:], "", false
	if dot := strings.IndexByte(intPart, '.'); dot >= 0 {
		intPart, frac, hasDot = intPart[:dot], intPart[dot+1:], true
	}
	maxFrac := 9
	if e.millis {
		maxFrac = 6
	}
	if intPart == "" || len(intPart) > 18 || !allDigits(intPart) || (hasDot && (frac == "" || len(frac) > maxFrac || !allDigits(frac))) {
		return 0, 0, false
	}
	n, _ := strconv.ParseInt(intPart, 10, 64)
	var fracNanos int64
	if frac != "" {
		f, _ := strconv.ParseInt(frac, 10, 64)
		scale := 9 - len(frac)
		if e.millis {
			scale = 6 - len(frac)
		}
		for ; scale > 0; scale-- {
			f *= 10
		}
		fracNanos = f
	}
	var totalNanosSec, totalNsec int64
	if e.millis {
		totalNanosSec = n / 1000
		totalNsec = (n%1000)*1e6 + fracNanos
	} else {
		totalNanosSec = n
		totalNsec = fracNanos
	}
	if neg {
		totalNanosSec, totalNsec = -totalNanosSec, -totalNsec
		if totalNsec < 0 {
			totalNanosSec--
			totalNsec += 1e9
		}
	}
	return totalNanosSec, totalNsec, true
}

func (e epochParser) print(t time.Time) string {
	if e.millis {
		ms := strconv.FormatInt(t.UnixMilli(), 10)
		// date_nanos values print their sub-millisecond digits as a fraction
		if sub := t.Nanosecond() % 1e6; sub != 0 && t.Unix() >= 0 {
			ms += "." + strings.TrimRight(strconv.Itoa(1e6 + sub)[1:], "0")
		}
		return ms
	}
	if t.Nanosecond() == 0 {
		return strconv.FormatInt(t.Unix(), 10)
	}
	ms := t.UnixMilli()
	s := strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
	return s
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// isoParser parses (strict_)date_optional_time: yyyy[-MM[-dd]] then
// optionally 'T'HH[:mm[:ss[.fraction]]] and a zone (Z, ±HH, ±HHmm, ±HH:mm).
type isoParser struct {
	strict bool
	nanos  bool
}

func (p *isoParser) parse(s string) (int64, int64, bool) {
	i := 0
	num := func(minD, maxD int) (int, bool) {
		start := i
		for i < len(s) && i-start < maxD && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i-start < minD {
			return 0, false
		}
		n, _ := strconv.Atoi(s[start:i])
		return n, true
	}
	d := func(n int) (int, int) { // strict/lenient digit counts
		if p.strict {
			return n, n
		}
		return 1, n
	}
	neg := false
	if !p.strict && i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	minY, maxY := 4, 4
	if !p.strict {
		minY, maxY = 1, 9
	}
	year, ok := num(minY, maxY)
	if !ok {
		return 0, 0, false
	}
	if neg {
		year = -year
	}
	month, day := 1, 1
	if i < len(s) && s[i] == '-' {
		i++
		a, b := d(2)
		if month, ok = num(a, b); !ok {
			return 0, 0, false
		}
		if i < len(s) && s[i] == '-' {
			i++
			if day, ok = num(a, b); !ok {
				return 0, 0, false
			}
		}
	}
	hour, minute, second, nsec := 0, 0, 0, 0
	if i < len(s) && s[i] == 'T' {
		i++
		a, b := d(2)
		if hour, ok = num(a, b); !ok {
			return 0, 0, false
		}
		if i < len(s) && s[i] == ':' {
			i++
			if minute, ok = num(a, b); !ok {
				return 0, 0, false
			}
			if i < len(s) && s[i] == ':' {
				i++
				if second, ok = num(a, b); !ok {
					return 0, 0, false
				}
				if i < len(s) && (s[i] == '.' || s[i] == ',') {
					i++
					start := i
					for i < len(s) && i-start < 9 && s[i] >= '0' && s[i] <= '9' {
						i++
					}
					if i == start {
						return 0, 0, false
					}
					f, _ := strconv.Atoi(s[start:i])
					for k := i - start; k < 9; k++ {
						f *= 10
					}
					nsec = f
				}
			}
		}
	}
	offset := 0
	if i < len(s) {
		var n int
		n, ok = parseOffset(s[i:], offsetAny, true)
		if !ok {
			return 0, 0, false
		}
		offset = n
		i = len(s)
	}
	return resolveDate(year, month, day, hour, minute, second, nsec, offset)
}

func (p *isoParser) print(t time.Time) string {
	if p.nanos && t.Nanosecond()%1e6 != 0 {
		frac := strings.TrimRight(strconv.Itoa(1e9 + t.Nanosecond())[1:], "0")
		for len(frac) < 3 {
			frac += "0"
		}
		return t.Format("2006-01-02T15:04:05") + "." + frac + "Z"
	}
	return t.Format("2006-01-02T15:04:05.000Z")
}

// offset styles for parseOffset.
const (
	offsetAny   = iota // Z, ±HH, ±HHmm, ±HH:mm
	offsetHHMM         // ±HHmm (pattern Z)
	offsetColon        // ±HH:mm (XXX / ZZZZZ)
	offsetHH           // ±HH[mm] (X)
)

// parseOffset parses a whole-string zone offset and returns seconds.
func parseOffset(s string, style int, allowZ bool) (int, bool) {
	if s == "Z" || s == "z" {
		return 0, allowZ || style == offsetAny
	}
	if len(s) < 3 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	body := s[1:]
	var hh, mm string
	switch {
	case len(body) == 2:
		hh = body
	case len(body) == 4 && style != offsetColon:
		hh, mm = body[:2], body[2:]
	case len(body) == 5 && body[2] == ':' && style != offsetHHMM:
		hh, mm = body[:2], body[3:]
	default:
		return 0, false
	}
	if style == offsetHHMM && mm == "" {
		return 0, false
	}
	if !allDigits(hh) || (mm != "" && !allDigits(mm)) {
		return 0, false
	}
	h, _ := strconv.Atoi(hh)
	m := 0
	if mm != "" {
		m, _ = strconv.Atoi(mm)
	}
	if h > 18 || m > 59 {
		return 0, false
	}
	return sign * (h*3600 + m*60), true
}

var daysIn = [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// resolveDate validates the fields and returns epoch seconds and nanos.
func resolveDate(year, month, day, hour, minute, second, nsec, offset int) (int64, int64, bool) {
	if month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59 || hour < 0 {
		return 0, 0, false
	}
	dim := daysIn[month-1]
	if month == 2 && isLeap(year) {
		dim = 29
	}
	if day > dim {
		return 0, 0, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, second, nsec, time.UTC)
	return t.Unix() - int64(offset), int64(t.Nanosecond()), true
}
