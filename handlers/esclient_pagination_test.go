package handlers_test

// Scroll and point in time with the official Go client
// (github.com/elastic/go-elasticsearch/v7), as an application pages with it.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/elastic/go-elasticsearch/v7"
)

func TestOfficialGoClientPagination(t *testing.T) {
	n := newTestNode(t)
	seedNumbered(t, n, "pages", 3, 123)
	es, err := elasticsearch.NewClient(elasticsearch.Config{Addresses: []string{n.URL}, Transport: n.HTTP.Transport})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	want := strings.Join(numberedIDs(0, 123), ",")

	t.Run("scroll sorted by _doc, then clear", func(t *testing.T) {
		code, body, _ := ecDecode(t, "search scroll")(es.Search(es.Search.WithContext(ctx), es.Search.WithIndex("pages"),
			es.Search.WithScroll(60e9), es.Search.WithSize(20), es.Search.WithSort("_doc")))
		if code != 200 {
			t.Fatalf("open = %d %v", code, body)
		}
		ids := hitIDs(body)
		id := body["_scroll_id"].(string)
		for {
			code, page, _ := ecDecode(t, "scroll")(es.Scroll(es.Scroll.WithContext(ctx), es.Scroll.WithScrollID(id), es.Scroll.WithScroll(60e9)))
			if code != 200 {
				t.Fatalf("scroll = %d %v", code, page)
			}
			if len(hitIDs(page)) == 0 {
				break
			}
			ids = append(ids, hitIDs(page)...)
			id = page["_scroll_id"].(string)
		}
		sort.Strings(ids)
		if got := strings.Join(ids, ","); got != want {
			t.Fatalf("scrolled %d ids", len(ids))
		}
		code, cl, _ := ecDecode(t, "clear scroll")(es.ClearScroll(es.ClearScroll.WithContext(ctx), es.ClearScroll.WithScrollID(id)))
		if code != 200 || str(cl) != `{"num_freed":1,"succeeded":true}` {
			t.Fatalf("clear = %d %v", code, cl)
		}
		code, gone, _ := ecDecode(t, "scroll cleared")(es.Scroll(es.Scroll.WithContext(ctx), es.Scroll.WithScrollID(id), es.Scroll.WithScroll(60e9)))
		if code != 404 || errType(gone) != "search_context_missing_exception" {
			t.Fatalf("cleared = %d %v", code, gone)
		}
	})

	t.Run("point in time with search_after", func(t *testing.T) {
		code, opened, _ := ecDecode(t, "open pit")(es.OpenPointInTime([]string{"pages"}, "1m", es.OpenPointInTime.WithContext(ctx)))
		if code != 200 {
			t.Fatalf("open pit = %d %v", code, opened)
		}
		pit := opened["id"].(string)
		n.do("PUT", "/pages/_doc/late?refresh=true", "application/json", `{"n":1000}`)
		var ids []string
		after := ""
		for page := 0; page < 100; page++ {
			q := fmt.Sprintf(`{"size":25,"track_total_hits":false,"sort":[{"n":"desc"}],"pit":{"id":%q,"keep_alive":"1m"}%s}`, pit, after)
			code, res, _ := ecDecode(t, "pit search")(es.Search(es.Search.WithContext(ctx), es.Search.WithBody(strings.NewReader(q))))
			if code != 200 || res["pit_id"] != pit {
				t.Fatalf("pit search = %d %v", code, res)
			}
			hits, _ := jsonPath(res, "hits.hits").([]any)
			if len(hits) == 0 {
				break
			}
			ids = append(ids, hitIDs(res)...)
			after = `,"search_after":` + str(jsonPath(hits[len(hits)-1], "sort"))
		}
		if len(ids) != 123 || ids[0] != "d122" || ids[122] != "d000" {
			t.Fatalf("pit pages = %d ids (%v)", len(ids), ids[:3])
		}
		code, closed, _ := ecDecode(t, "close pit")(es.ClosePointInTime(es.ClosePointInTime.WithContext(ctx),
			es.ClosePointInTime.WithBody(strings.NewReader(`{"id":"`+pit+`"}`))))
		if code != 200 || str(closed) != `{"num_freed":1,"succeeded":true}` {
			t.Fatalf("close = %d %v", code, closed)
		}
	})
}
