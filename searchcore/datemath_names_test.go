package searchcore

import (
	"testing"
	"time"
)

func TestResolveDateMathName(t *testing.T) {
	// ES docs' examples are for 22 March 2024 noon UTC.
	now := time.Date(2024, 3, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct{ in, want, err string }{
		{"plain", "plain", ""},
		{"<logstash-{now/d}>", "logstash-2024.03.22", ""},
		{"<logstash-{now/M}>", "logstash-2024.03.01", ""},
		{"<logstash-{now/M{yyyy.MM}}>", "logstash-2024.03", ""},
		{"<logstash-{now/M-1M{yyyy.MM}}>", "logstash-2024.02", ""},
		{"<logstash-{now/d{yyyy.MM.dd|+12:00}}>", "logstash-2024.03.23", ""},
		{"<elastic\\{ON\\}-{now/M}>", "elastic{ON}-2024.03.01", ""},
		{"<static>", "static", ""},
		{"<a-{now/d}-b-{now-1d/d}>", "a-2024.03.22-b-2024.03.21", ""},
		{"<a-{now/M>", "", "parse_exception: invalid dynamic name expression [a-{now/M]. date math placeholder is open ended"},
		{"<a-}>", "", "parse_exception: invalid dynamic name expression [a-}]. invalid character at position [2]. `{` and `}` are reserved characters and should be escaped when used as part of the index name using `\\` (e.g. `\\{text\\}`)"},
		{"<a-{now/d{}}>", "", "parse_exception: invalid dynamic name expression [a-{now/d{}}]. missing date format"},
		{"<a\\>", "", "parse_exception: invalid dynamic name expression [a\\]. missing escaped char at the end of the expression"},
	}
	for _, tc := range tests {
		got, err := resolveDateMathName(tc.in, now)
		if tc.err != "" {
			e, ok := AsError(err)
			if !ok || e.Type+": "+e.Reason != tc.err {
				t.Errorf("%s: error %v, want %s", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
