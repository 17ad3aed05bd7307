package searchcore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/quarry-search/quarry/searchcore"
)

// TestMatchPruning compares match queries answered with MaxScore pruning
// (query.Pruner, seeded from a rare term's postings) and without it (a
// profiled search, which does not prune): the same hits in the same order
// with the same scores, the same total and relation, the same max_score.
// The index has one and two shards, many segments, updates and deletions,
// and words of very different frequencies, so that pruning skips most of
// the documents of common words.
func TestMatchPruning(t *testing.T) {
	ctx := context.Background()
	e, _ := openEngine(t, t.TempDir(), searchcore.Config{})
	rnd := rand.New(rand.NewSource(5))
	// Word i comes with a probability about 1/(i+1).
	words := make([]string, 40)
	for i := range words {
		words[i] = fmt.Sprintf("w%02d", i)
	}
	word := func() string {
		for {
			if i := rnd.Intn(len(words)); rnd.Float64() < 1/float64(i+1) {
				return words[i]
			}
		}
	}
	for _, name := range []string{"one", "two"} {
		shards := map[string]int{"one": 1, "two": 2}[name]
		if _, err := e.CreateIndex(ctx, name, searchcore.CreateIndexRequest{
			Settings: json.RawMessage(fmt.Sprintf(`{"number_of_shards":%d}`, shards)),
			Mappings: json.RawMessage(`{"properties":{"t":{"type":"text"},"u":{"type":"text"}}}`),
		}); err != nil {
			t.Fatal(err)
		}
		for b := 0; b < 12; b++ {
			var body strings.Builder
			for k := 0; k < 250; k++ {
				id := rnd.Intn(2500)
				if rnd.Intn(10) == 0 {
					fmt.Fprintf(&body, `{"delete":{"_index":%q,"_id":"%d"}}`+"\n", name, id)
					continue
				}
				var t, u []string
				for n := 1 + rnd.Intn(8); n > 0; n-- {
					t = append(t, word())
				}
				for n := rnd.Intn(3); n > 0; n-- {
					u = append(u, word())
				}
				fmt.Fprintf(&body, `{"index":{"_index":%q,"_id":"%d"}}`+"\n"+`{"t":%q,"u":%q}`+"\n", name, id, strings.Join(t, " "), strings.Join(u, " "))
			}
			if !execBulk(t, e, body.String(), searchcore.RefreshTrue) {
				t.FailNow()
			}
		}
	}

	run := func(index, body string, profile bool) *searchcore.SearchResult {
		t.Helper()
		ix, ok := e.Index(index)
		if !ok {
			t.Fatalf("no index %s", index)
		}
		req := searchcore.NewSearchRequest()
		if err := searchcore.ParseSearchBody([]byte(fmt.Sprintf(`{"profile":%v,%s`, profile, body[1:])), req); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		res, err := e.Search(ctx, []*searchcore.Index{ix}, req)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		return res
	}
	summary := func(res *searchcore.SearchResult) string {
		var b strings.Builder
		fmt.Fprintf(&b, "total %d %s, max %v:", res.Total, res.TotalRelation, res.MaxScore)
		for _, h := range res.Hits {
			fmt.Fprintf(&b, " %s=%v", h.ID, math.Float64bits(h.Score))
		}
		return b.String()
	}
	compared := 0
	for n := 0; n < 400; n++ {
		var q []string
		// Mostly a rare word with common ones, the case pruning is for.
		q = append(q, words[20+rnd.Intn(20)])
		for k := rnd.Intn(4); k >= 0; k-- {
			q = append(q, words[rnd.Intn(12)])
		}
		rnd.Shuffle(len(q), func(i, j int) { q[i], q[j] = q[j], q[i] })
		match := fmt.Sprintf(`{"match":{"t":%q}}`, strings.Join(q, " "))
		switch rnd.Intn(6) {
		case 0:
			match = fmt.Sprintf(`{"match":{"t":{"query":%q,"boost":%v}}}`, strings.Join(q, " "), 0.5+rnd.Float64()*3)
		case 1:
			match = fmt.Sprintf(`{"match":{"t":{"query":%q,"minimum_should_match":2}}}`, strings.Join(q, " "))
		case 2:
			match = fmt.Sprintf(`{"bool":{"should":[{"term":{"t":%q}},{"term":{"u":%q}},{"term":{"t":%q}}]}}`, q[0], words[rnd.Intn(8)], words[rnd.Intn(40)])
		}
		size, from := []int{1, 3, 10, 25}[rnd.Intn(4)], []int{0, 0, 5}[rnd.Intn(3)]
		track := []string{"", `,"track_total_hits":true`, `,"track_total_hits":50`, `,"track_total_hits":false`}[rnd.Intn(4)]
		body := fmt.Sprintf(`{"size":%d,"from":%d%s,"query":%s}`, size, from, track, match)
		index := []string{"one", "two"}[rnd.Intn(2)]
		got, want := summary(run(index, body, false)), summary(run(index, body, true))
		if got != want {
			t.Fatalf("%s %s:\npruned   %s\nunpruned %s", index, body, got, want)
		}
		compared++
	}
	if compared != 400 {
		t.Fatalf("%d queries compared", compared)
	}
}
