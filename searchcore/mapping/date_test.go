package mapping_test

import (
	"testing"
	"time"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

func ms(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UnixMilli()
}

func TestParseDate(t *testing.T) {
	tests := []struct {
		value, format string
		want          int64
	}{
		{"2020-01-01", "", ms("2020-01-01T00:00:00Z")},
		{"2020-01-01T10:20:30Z", "", ms("2020-01-01T10:20:30Z")},
		{"2020-01-01T10:20:30.123+02:00", "", ms("2020-01-01T08:20:30.123Z")},
		{"2020-01-01T10:20:30.123456789-0130", "", ms("2020-01-01T11:50:30.123Z")},
		{"2020-01-01T10:20", "", ms("2020-01-01T10:20:00Z")},
		{"2020-03", "", ms("2020-03-01T00:00:00Z")},
		{"2020", "strict_date_optional_time", ms("2020-01-01T00:00:00Z")},
		{"1420070400001", "", 1420070400001},
		{"-1000", "epoch_millis", -1000},
		{"1420070400001.5", "epoch_millis", 1420070400001},
		{"1420070400", "epoch_second", 1420070400000},
		{"1420070400.25", "epoch_second", 1420070400250},
		{"20200131", "basic_date", ms("2020-01-31T00:00:00Z")},
		{"20200131T101112.123Z", "basic_date_time", ms("2020-01-31T10:11:12.123Z")},
		{"2020-1-5", "date_optional_time", ms("2020-01-05T00:00:00Z")},
		{"2020-01-05", "yyyy-MM-dd", ms("2020-01-05T00:00:00Z")},
		{"2020/01/05 13:14:15", "yyyy/MM/dd HH:mm:ss", ms("2020-01-05T13:14:15Z")},
		{"2020/01/05", "yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis", ms("2020-01-05T00:00:00Z")},
		{"05.01.2020 01:02:03.456", "dd.MM.yyyy HH:mm:ss.SSS", ms("2020-01-05T01:02:03.456Z")},
		{"2020-01-05T10:00:00+0100", "yyyy-MM-dd'T'HH:mm:ssZ", ms("2020-01-05T09:00:00Z")},
		{"2020-01-05T10:00:00-05:00", "yyyy-MM-dd'T'HH:mm:ssXXX", ms("2020-01-05T15:00:00Z")},
		{"2020-01-05T10:00:00Z", "yyyy-MM-dd'T'HH:mm:ssXXX", ms("2020-01-05T10:00:00Z")},
		{"2020-01-05 10:00", "yyyy-MM-dd[ HH:mm]", ms("2020-01-05T10:00:00Z")},
		{"2020-01-05", "yyyy-MM-dd[ HH:mm]", ms("2020-01-05T00:00:00Z")},
		{"Jan 5, 2020 3:04 PM", "MMM d, yyyy h:mm a", ms("2020-01-05T15:04:00Z")},
		{"Sunday, January 5, 2020", "EEEE, MMMM d, yyyy", ms("2020-01-05T00:00:00Z")},
		{"20-01-05", "yy-MM-dd", ms("2020-01-05T00:00:00Z")},
		{"2020-032", "yyyy-DDD", ms("2020-02-01T00:00:00Z")},
		{"2020-01-05T10:00:00 UTC", "yyyy-MM-dd'T'HH:mm:ss z", ms("2020-01-05T10:00:00Z")},
		{"10:20:30", "HH:mm:ss", ms("1970-01-01T10:20:30Z")},
		{"2020-02-29", "yyyy-MM-dd", ms("2020-02-29T00:00:00Z")},
		{"'2020'", "''yyyy''", ms("2020-01-01T00:00:00Z")},
	}
	for _, tc := range tests {
		got, err := mapping.ParseDate(tc.value, tc.format)
		if err != nil {
			t.Errorf("ParseDate(%q, %q): %v", tc.value, tc.format, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseDate(%q, %q) = %d (%s), want %d", tc.value, tc.format, got, time.UnixMilli(got).UTC(), tc.want)
		}
	}
}

func TestParseDateErrors(t *testing.T) {
	for _, tc := range []struct{ value, format string }{
		{"abc", ""},
		{"2020-13-01", ""},
		{"2019-02-29", "yyyy-MM-dd"},
		{"2020-1-5", "strict_date_optional_time"},
		{"2020-01-01 10:00:00", "strict_date_optional_time"},
		{"2020-01-05", "yyyy/MM/dd"},
		{"1.1234567", "epoch_millis"},
		{"2020-01-01T25:00:00Z", ""},
	} {
		if v, err := mapping.ParseDate(tc.value, tc.format); err == nil {
			t.Errorf("ParseDate(%q, %q) = %d, want error", tc.value, tc.format, v)
		}
	}
	_, err := mapping.ParseDate("abc", "strict_date_optional_time||epoch_millis")
	checkErr(t, err, "illegal_argument_exception", "failed to parse date field [abc] with format [strict_date_optional_time||epoch_millis]",
		"date_time_parse_exception", "Failed to parse with all enclosed parsers")
	_, err = mapping.ParseDate("x", "yyyy-ff")
	checkErr(t, err, "illegal_argument_exception", "Invalid format: [yyyy-ff]: Unknown pattern letter: f")
}

func TestFormatDate(t *testing.T) {
	m := ms("2020-01-05T03:04:05.678Z")
	for _, tc := range []struct{ format, want string }{
		{"", "2020-01-05T03:04:05.678Z"},
		{"strict_date_optional_time||epoch_millis", "2020-01-05T03:04:05.678Z"},
		{"epoch_millis", "1578193445678"},
		{"epoch_second", "1578193445.678"},
		{"yyyy-MM-dd", "2020-01-05"},
		{"yyyy/MM/dd HH:mm:ss", "2020/01/05 03:04:05"},
		{"basic_date", "20200105"},
		{"date_time", "2020-01-05T03:04:05.678Z"},
		{"dd MMM yyyy hh:mm a", "05 Jan 2020 03:04 AM"},
		{"yyyy-MM-dd'T'HH:mm:ssZ", "2020-01-05T03:04:05+0000"},
	} {
		if got := mapping.FormatDate(m, tc.format); got != tc.want {
			t.Errorf("FormatDate(%q) = %q, want %q", tc.format, got, tc.want)
		}
	}
	// Round trip through the same custom format.
	for _, f := range []string{"yyyy-MM-dd HH:mm:ss.SSS", "date_time", "basic_date_time", "epoch_millis"} {
		got, err := mapping.ParseDate(mapping.FormatDate(m, f), f)
		if err != nil || got != m {
			t.Errorf("round trip %q: %d, %v", f, got, err)
		}
	}
}
