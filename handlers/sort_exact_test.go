package handlers_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSortExactNumbers follows Elasticsearch's 260_sort_long/260_sort_double:
// longs beyond 2^53 sort and render exactly (sums wrap like Java longs, avg
// and median of two round a double), and duplicate values count in sums.
func TestSortExactNumbers(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/nums", "application/json", `{"settings":{"number_of_shards":3},"mappings":{"properties":{"l":{"type":"long"},"d":{"type":"double"}}}}`)
	bulk := []string{
		`{"index":{"_id":"1"}}`, `{"l":[9223372036854775807,1],"d":[900719925474099.1,1.1]}`,
		`{"index":{"_id":"2"}}`, `{"l":[922337203685477777,2],"d":[900719925474099.2,900719925474099.3]}`,
		`{"index":{"_id":"3"}}`, `{"l":[2147483647,3,4],"d":[450359962737049.4,3.5,4.6]}`,
		`{"index":{"_id":"4"}}`, `{"l":[2147483648,5,-1,-2],"d":[450359962737049.7,5.8,-1.9,-2.0]}`,
		`{"index":{"_id":"5"}}`, `{"other":1}`,
	}
	if code, body := n.do("POST", "/nums/_bulk?refresh=true", "application/x-ndjson", strings.Join(bulk, "\n")+"\n"); code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("bulk = %d %v", code, body)
	}
	tests := []struct{ field, mode, order, want string }{
		{"l", "max", "desc", `1:[9223372036854775807] 2:[922337203685477777] 4:[2147483648] 3:[2147483647] 5:[-9223372036854775808]`},
		{"l", "max", "asc", `3:[2147483647] 4:[2147483648] 2:[922337203685477777] 1:[9223372036854775807] 5:[9223372036854775807]`},
		{"l", "min", "desc", `3:[3] 2:[2] 1:[1] 4:[-2] 5:[-9223372036854775808]`},
		{"l", "median", "asc", `4:[2] 3:[4] 2:[461168601842738880] 1:[4611686018427387904] 5:[9223372036854775807]`},
		{"l", "avg", "desc", `2:[461168601842738880] 3:[715827885] 4:[536870913] 1:[-4611686018427387904] 5:[-9223372036854775808]`},
		{"l", "sum", "asc", `1:[-9223372036854775808] 4:[2147483650] 3:[2147483654] 2:[922337203685477779] 5:[9223372036854775807]`},
		{"d", "max", "desc", `2:[900719925474099.2] 1:[900719925474099.1] 4:[450359962737049.7] 3:[450359962737049.4] 5:["-Infinity"]`},
		{"d", "median", "desc", `2:[900719925474099.2] 1:[450359962737050.1] 3:[4.6] 4:[1.95] 5:["-Infinity"]`},
		{"d", "avg", "asc", `4:[112589990684262.9] 3:[150119987579019.16] 1:[450359962737050.1] 2:[900719925474099.2] 5:["Infinity"]`},
		{"d", "sum", "desc", `2:[1801439850948198.5] 1:[900719925474100.2] 3:[450359962737057.5] 4:[450359962737051.6] 5:["-Infinity"]`},
	}
	for _, tc := range tests {
		t.Run(tc.field+"_"+tc.mode+"_"+tc.order, func(t *testing.T) {
			code, raw := n.raw("POST", "/nums/_search", "application/json", `{"sort":[{"`+tc.field+`":{"mode":"`+tc.mode+`","order":"`+tc.order+`"}}]}`)
			if code != 200 {
				t.Fatalf("status %d: %s", code, raw)
			}
			if got := idsAndSorts(t, raw); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	// search_after with an exact long value pages past it exactly.
	code, raw := n.raw("POST", "/nums/_search", "application/json", `{"sort":[{"l":"desc"}],"search_after":[922337203685477777]}`)
	if got := idsAndSorts(t, raw); code != 200 || got != `4:[2147483648] 3:[2147483647] 5:[-9223372036854775808]` {
		t.Errorf("search_after: %d %s", code, got)
	}
	code, raw = n.raw("POST", "/nums/_search", "application/json", `{"sort":[{"l":{"order":"asc","missing":922337203685477778}}]}`)
	if got := idsAndSorts(t, raw); code != 200 || got != `4:[-2] 1:[1] 2:[2] 3:[3] 5:[922337203685477778]` {
		t.Errorf("missing replacement: %d %s", code, got)
	}
}

// TestSortExactSingleValues: a document whose one value the float64 doc
// value holds exactly carries no exact value; it sorts, ties and renders
// like one that does (a value beyond 2^53, or several values).
func TestSortExactSingleValues(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/one", "application/json", `{"mappings":{"properties":{"l":{"type":"long"}}}}`)
	bulk := []string{
		`{"index":{"_id":"a"}}`, `{"l":9007199254740993}`,
		`{"index":{"_id":"b"}}`, `{"l":9007199254740992}`,
		`{"index":{"_id":"x"}}`, `{"l":5}`,
		`{"index":{"_id":"y"}}`, `{"l":[5,5]}`,
		`{"index":{"_id":"f"}}`, `{"l":-3}`,
	}
	if code, body := n.do("POST", "/one/_bulk?refresh=true", "application/x-ndjson", strings.Join(bulk, "\n")+"\n"); code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("bulk = %d %v", code, body)
	}
	tests := []struct{ name, body, want string }{
		{"desc ties in index order", `{"sort":[{"l":"desc"}]}`, `a:[9007199254740993] b:[9007199254740992] x:[5] y:[5] f:[-3]`},
		{"asc", `{"sort":[{"l":"asc"}]}`, `f:[-3] x:[5] y:[5] b:[9007199254740992] a:[9007199254740993]`},
		{"sum counts duplicates", `{"sort":[{"l":{"order":"asc","mode":"sum"}}]}`, `f:[-3] x:[5] y:[10] b:[9007199254740992] a:[9007199254740993]`},
		{"search_after past 2^53", `{"sort":[{"l":"desc"}],"search_after":[9007199254740992]}`, `x:[5] y:[5] f:[-3]`},
		{"search_after between 2^53 and 2^53+1", `{"sort":[{"l":"asc"}],"search_after":[9007199254740992]}`, `a:[9007199254740993]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, raw := n.raw("POST", "/one/_search", "application/json", tc.body)
			if code != 200 {
				t.Fatalf("status %d: %s", code, raw)
			}
			if got := idsAndSorts(t, raw); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// Doubles render as Go's shortest form: 112589990684262.9 and
// 450359962737051.6 are the doubles ES prints as 112589990684262.89 and
// 450359962737051.56 (Java's Double.toString is not always shortest).

// idsAndSorts renders "id:sort" pairs from raw hits, numbers kept verbatim.
func idsAndSorts(t *testing.T, raw []byte) string {
	t.Helper()
	var parts []string
	hits := rawMember(raw, "hits.hits")
	var list []map[string]jsonRaw
	if err := jsonUnmarshal([]byte(hits), &list); err != nil {
		t.Fatalf("hits: %v in %s", err, raw)
	}
	for _, h := range list {
		var id string
		_ = jsonUnmarshal(h["_id"], &id)
		parts = append(parts, id+":"+string(h["sort"]))
	}
	return strings.Join(parts, " ")
}

type jsonRaw = json.RawMessage

var jsonUnmarshal = json.Unmarshal
