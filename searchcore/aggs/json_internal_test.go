package aggs

import (
	"encoding/json"
	"testing"
)

// TestStr0MatchesMarshal: str0's copy path writes what json.Marshal does.
func TestStr0MatchesMarshal(t *testing.T) {
	for _, s := range []string{
		"", "US", "key_as_string", "2024-01-01T00:00:00.000Z", "a b~{}[]:,", "\x7f",
		`q"uote`, `back\slash`, "<html>", "a&b", "tab\there", "nl\n", "\x00", "\x1f",
		"é", "日本", "\u2028", "\u2029", "bad\xffutf8", "mixed US<é",
	} {
		var w jw
		w.str0(s)
		want, _ := json.Marshal(s)
		if w.b.String() != string(want) {
			t.Errorf("str0(%q) = %s, want %s", s, w.b.String(), want)
		}
	}
}
