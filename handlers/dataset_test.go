package handlers_test

// Exact-value tests on the shared datasets (../shared/datasets): the first
// 20,000 GeoNames cities and the 6,046 mails, loaded once through _bulk into
// a real node. Every expected value is computed here from the raw NDJSON
// with plain Go (filters, counts, sums, sorts, distances, a UAX#29-like
// tokeniser for full text), never by asking the code under test.

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
)

const (
	dsCitiesPath = "/work/shared/datasets/cities.ndjson.gz"
	dsEmailsPath = "/work/shared/datasets/emails.ndjson.gz"
	dsCityLimit  = 20000
	dsCityShards = 3
	dsMailShards = 2
)

// dsCity is one city line plus the derived members the test adds before
// indexing: coords (multi-valued double, absent on every 7th city), tags
// (multi-valued keyword, absent on every 11th) and msm (1 or 2).
type dsCity struct {
	ID, Name, AltName, Country, Feature, Admin string
	Pop                                        int64
	Lat, Lon                                   float64
	Coords                                     []float64
	Tags                                       []string
	Msm                                        int
	tokens                                     []string
	line                                       string
}

// dsEmail is one mail; zero-value members are absent from the source.
type dsEmail struct {
	ID, Group, From, To, Subject, Body string
	Spam                               bool
	Date                               time.Time
	HasDate, HasSubject, HasTo         bool
	subj, body                         []string // tokens
	line                               string
}

func dsOpen(t testing.TB, path string, limit int, fn func(i int, line []byte)) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Skipf("dataset not available: %v", err)
	}
	defer fh.Close()
	gz, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for i := 0; sc.Scan() && (limit == 0 || i < limit); i++ {
		fn(i, sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func dsReadCities(t testing.TB, limit int) []dsCity {
	var out []dsCity
	dsOpen(t, dsCitiesPath, limit, func(i int, line []byte) {
		var raw struct {
			ID, Name, Country, Admin_code, Feature_code string
			Alt_name                                    string
			Population                                  int64
			Location                                    struct{ Lat, Lon float64 }
		}
		if err := json.Unmarshal(line, &raw); err != nil {
			t.Fatal(err)
		}
		c := dsCity{ID: raw.ID, Name: raw.Name, AltName: raw.Alt_name, Country: raw.Country, Feature: raw.Feature_code,
			Admin: raw.Admin_code, Pop: raw.Population, Lat: raw.Location.Lat, Lon: raw.Location.Lon, Msm: 1 + i%2}
		var extra strings.Builder
		if i%7 != 3 {
			c.Coords = []float64{c.Lat, c.Lon, float64(c.Pop % 97)}
			fmt.Fprintf(&extra, `,"coords":[%s,%s,%d]`, ff(c.Lat), ff(c.Lon), c.Pop%97)
		}
		if i%11 != 5 {
			c.Tags = []string{c.Country, c.Feature}
			fmt.Fprintf(&extra, `,"tags":[%q,%q]`, c.Country, c.Feature)
		}
		fmt.Fprintf(&extra, `,"msm":%d}`, c.Msm)
		s := strings.TrimSpace(string(line))
		c.line = s[:len(s)-1] + extra.String()
		c.tokens = dsTokens(c.Name)
		out = append(out, c)
	})
	return out
}

func dsReadEmails(t testing.TB) []dsEmail {
	var out []dsEmail
	dsOpen(t, dsEmailsPath, 0, func(i int, line []byte) {
		var raw map[string]any
		if err := json.Unmarshal(line, &raw); err != nil {
			t.Fatal(err)
		}
		e := dsEmail{line: string(line)}
		e.ID, _ = raw["id"].(string)
		e.Group, _ = raw["group"].(string)
		e.From, _ = raw["from"].(string)
		e.Body, _ = raw["body"].(string)
		e.Spam, _ = raw["spam"].(bool)
		e.To, e.HasTo = raw["to"].(string)
		e.Subject, e.HasSubject = raw["subject"].(string)
		if d, ok := raw["date"].(string); ok {
			tm, err := time.Parse(time.RFC3339Nano, d)
			if err != nil {
				t.Fatalf("mail %s date %q: %v", e.ID, d, err)
			}
			e.Date, e.HasDate = tm.UTC(), true
		}
		e.subj, e.body = dsTokens(e.Subject), dsTokens(e.Body)
		out = append(out, e)
	})
	return out
}

func ff(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// dsTokens approximates the standard analyzer (UAX#29 word breaks +
// lowercase) for the characters in the datasets: runs of letters, digits,
// marks and underscores; an apostrophe, dot or colon joins letters on both
// sides, a dot, comma, semicolon or apostrophe joins digits on both sides.
func dsTokens(s string) []string {
	rs := []rune(strings.ToLower(s))
	word := func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r) || r == '_' || unicode.Is(unicode.Pc, r)
	}
	letter := func(r rune) bool { return unicode.IsLetter(r) || unicode.Is(unicode.M, r) }
	var out []string
	for i := 0; i < len(rs); {
		if !word(rs[i]) {
			i++
			continue
		}
		if dsIdeograph(rs[i]) {
			out = append(out, string(rs[i]))
			i++
			continue
		}
		j := i + 1
		for j < len(rs) {
			if word(rs[j]) && !dsIdeograph(rs[j]) {
				j++
				continue
			}
			if j+1 < len(rs) && word(rs[j+1]) {
				p, nx := rs[j-1], rs[j+1]
				switch rs[j] {
				case '\'', '.', ':', '’', '·':
					if letter(p) && letter(nx) {
						j += 2
						continue
					}
				}
				switch rs[j] {
				case '.', ',', ';', '\'', '’':
					if unicode.IsDigit(p) && unicode.IsDigit(nx) {
						j += 2
						continue
					}
				}
			}
			break
		}
		out = append(out, string(rs[i:j]))
		i = j
	}
	return out
}

func dsIdeograph(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Thai, r)
}

func hasTok(toks []string, w string) bool {
	for _, t := range toks {
		if t == w {
			return true
		}
	}
	return false
}

// hasPhrase reports whether words occur consecutively in toks.
func hasPhrase(toks []string, words ...string) bool {
	for i := 0; i+len(words) <= len(toks); i++ {
		ok := true
		for j, w := range words {
			if toks[i+j] != w {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// osa is the optimal-string-alignment distance (Levenshtein plus adjacent
// transpositions), what Lucene's fuzzy automata accept with transpositions.
func osa(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// dsShard is Elasticsearch's shard for an _id: murmur3 x86_32 (seed 0)
// over the UTF-16LE id, floorMod routing_num_shards, divided by the routing
// factor (routing_num_shards = shards·2^⌊log2(1024/shards)⌋).
func dsShard(id string, shards int) int {
	var data []byte
	for _, u := range []rune(id) {
		data = append(data, byte(u), byte(u>>8)) // ids are ASCII/BMP here
	}
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	var h uint32
	n := len(data) / 4
	for i := 0; i < n; i++ {
		k := uint32(data[4*i]) | uint32(data[4*i+1])<<8 | uint32(data[4*i+2])<<16 | uint32(data[4*i+3])<<24
		k *= c1
		k = k<<15 | k>>17
		k *= c2
		h ^= k
		h = h<<13 | h>>19
		h = h*5 + 0xe6546b64
	}
	var k uint32
	tail := data[4*n:]
	switch len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		k *= c1
		k = k<<15 | k>>17
		k *= c2
		h ^= k
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	routingShards := shards
	for routingShards*2 <= 1024 {
		routingShards *= 2
	}
	m := int64(int32(h)) % int64(routingShards)
	if m < 0 {
		m += int64(routingShards)
	}
	return int(m) / (routingShards / shards)
}

// dsBulk indexes lines (id, source) in chunks and refreshes.
func dsBulk(t *testing.T, n *testNode, index string, ids, sources []string) {
	t.Helper()
	for from := 0; from < len(ids); {
		var b strings.Builder
		for ; from < len(ids) && b.Len() < 4<<20; from++ {
			fmt.Fprintf(&b, "{\"index\":{\"_id\":%q}}\n%s\n", ids[from], sources[from])
		}
		start := time.Now()
		code, body := n.do("POST", "/"+index+"/_bulk", "application/x-ndjson", b.String())
		if code != 200 || str(body["errors"]) != "false" {
			t.Fatalf("bulk %s = %d %.500s", index, code, str(body))
		}
		t.Logf("bulk %s: %d docs in %v", index, from, time.Since(start))
	}
	if code, body := n.do("POST", "/"+index+"/_refresh", "", ""); code != 200 {
		t.Fatalf("refresh = %d %v", code, body)
	}
}

const dsCitiesMapping = `{"settings":{"number_of_shards":3,"max_result_window":25000},"mappings":{"properties":{
	"id":{"type":"keyword"},"name":{"type":"text","fields":{"kw":{"type":"keyword"}}},"alt_name":{"type":"keyword"},
	"country":{"type":"keyword"},"feature_code":{"type":"keyword"},"admin_code":{"type":"keyword"},
	"population":{"type":"long"},"location":{"type":"geo_point"},"coords":{"type":"double"},
	"tags":{"type":"keyword"},"msm":{"type":"integer"}}}}`

const dsEmailsMapping = `{"settings":{"number_of_shards":2},"mappings":{"properties":{
	"id":{"type":"keyword"},"group":{"type":"keyword"},"spam":{"type":"boolean"},
	"from":{"type":"keyword"},"to":{"type":"text"},"subject":{"type":"text","fields":{"kw":{"type":"keyword"}}},
	"date":{"type":"date"},"body":{"type":"text"}}}}`

// dsFixture is a node holding both datasets plus the parsed documents.
type dsFixture struct {
	n      *testNode
	cities []dsCity
	mails  []dsEmail
}

func newDSFixture(t *testing.T) *dsFixture {
	t.Helper()
	f := &dsFixture{n: newTestNode(t), cities: dsReadCities(t, dsCityLimit), mails: dsReadEmails(t)}
	for _, x := range []struct{ name, mapping string }{{"cities", dsCitiesMapping}, {"emails", dsEmailsMapping}} {
		if code, body := f.n.do("PUT", "/"+x.name, "application/json", x.mapping); code != 200 {
			t.Fatalf("create %s = %d %v", x.name, code, body)
		}
	}
	var ids, srcs []string
	for _, c := range f.cities {
		ids, srcs = append(ids, c.ID), append(srcs, c.line)
	}
	dsBulk(t, f.n, "cities", ids, srcs)
	ids, srcs = nil, nil
	for _, e := range f.mails {
		ids, srcs = append(ids, e.ID), append(srcs, e.line)
	}
	dsBulk(t, f.n, "emails", ids, srcs)
	return f
}

// search posts body to index/_search and fails on a non-200 answer.
func (f *dsFixture) search(t *testing.T, index, body string) map[string]any {
	t.Helper()
	code, out := f.n.do("POST", "/"+index+"/_search", "application/json", body)
	if code != 200 {
		t.Fatalf("search %s = %d %.800s\nbody: %s", index, code, str(out), body)
	}
	return out
}

func num(v any) float64 {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case float64:
		return x
	}
	return math.NaN()
}

// near reports |got-want| ≤ rel·max(1,|want|).
func near(got, want, rel float64) bool {
	if math.IsNaN(got) {
		return false
	}
	return math.Abs(got-want) <= rel*math.Max(1, math.Abs(want))
}

func sortedIDs[T any](docs []T, id func(T) string, keep func(int) bool) []string {
	var out []string
	for i, d := range docs {
		if keep(i) {
			out = append(out, id(d))
		}
	}
	sort.Strings(out)
	return out
}

func head(ids []string, n int) []string {
	if len(ids) > n {
		return ids[:n]
	}
	return ids
}

// checkHits compares the total and the first ids of an answer.
func checkHits(t *testing.T, body map[string]any, want []string, size int) {
	t.Helper()
	if got := int(num(jsonPath(body, "hits.total.value"))); got != len(want) {
		t.Errorf("total = %d, want %d", got, len(want))
	}
	if got, w := strings.Join(hitIDs(body), ","), strings.Join(head(want, size), ","); got != w {
		t.Errorf("ids =\n %s\nwant\n %s", got, w)
	}
}
