package handlers_test

// Highlighting and docvalue_fields with the official Go client
// (github.com/elastic/go-elasticsearch/v7); expectations come from the
// product generator, not from the server.

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/elastic/go-elasticsearch/v7"
)

func TestOfficialGoClientFetch(t *testing.T) {
	n := newTestNode(t)
	es, err := elasticsearch.NewClient(elasticsearch.Config{Addresses: []string{n.URL}, Transport: n.HTTP.Transport})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	products := ecProducts()[:140]
	code, body, _ := ecDecode(t, "create")(es.Indices.Create("products", es.Indices.Create.WithContext(ctx),
		es.Indices.Create.WithBody(strings.NewReader(`{"settings":{"number_of_shards":2},"mappings":{"properties":{
			"name":{"type":"text"},"sku":{"type":"keyword"},"tag":{"type":"keyword"},"qty":{"type":"integer"},
			"price":{"type":"double"},"released":{"type":"date"},"active":{"type":"boolean"}}}}`))))
	if code != 200 {
		t.Fatalf("create = %d %v", code, body)
	}
	var bulk strings.Builder
	for _, p := range products {
		fmt.Fprintf(&bulk, "{\"index\":{\"_id\":%q}}\n%s\n", p.ID, p.source())
	}
	code, body, _ = ecDecode(t, "bulk")(es.Bulk(strings.NewReader(bulk.String()), es.Bulk.WithIndex("products"),
		es.Bulk.WithRefresh("true"), es.Bulk.WithContext(ctx)))
	if code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("bulk = %d %v", code, body)
	}

	t.Run("highlight", func(t *testing.T) {
		foxes := ecSorted(ecFilter(products, func(p ecProduct) bool { return strings.HasSuffix(p.Name, " fox") }),
			func(a, b ecProduct) bool { return a.ID < b.ID })
		q := `{"size":100,"sort":["sku"],"query":{"match":{"name":"fox"}},
			"highlight":{"pre_tags":["<mark>"],"post_tags":["</mark>"],"fields":{"name":{},"sku":{}}}}`
		code, res, _ := ecDecode(t, "highlight search")(es.Search(es.Search.WithContext(ctx), es.Search.WithIndex("products"),
			es.Search.WithBody(strings.NewReader(q))))
		if code != 200 {
			t.Fatalf("search = %d %v", code, res)
		}
		hits, _ := jsonPath(res, "hits.hits").([]any)
		if len(hits) != len(foxes) {
			t.Fatalf("%d hits, want %d", len(hits), len(foxes))
		}
		for i, p := range foxes {
			color := strings.TrimSuffix(p.Name, " fox")
			// the query names "name" only: sku is not highlighted
			ecEqual(t, p.ID+" highlight", jsonPath(hits[i], "highlight"), fmt.Sprintf(`{"name":["%s <mark>fox</mark>"]}`, color))
		}
	})

	t.Run("docvalue_fields", func(t *testing.T) {
		want := ecSorted(ecFilter(products, func(p ecProduct) bool { return p.Active && p.Price != "" }),
			func(a, b ecProduct) bool { return a.Qty < b.Qty })[:20]
		q := `{"size":20,"_source":false,"sort":["qty"],"query":{"bool":{"filter":[{"term":{"active":true}},{"exists":{"field":"price"}}]}},
			"docvalue_fields":[{"field":"price","format":"0.00"},{"field":"released","format":"epoch_millis"},"active"]}`
		code, res, _ := ecDecode(t, "docvalue search")(es.Search(es.Search.WithContext(ctx), es.Search.WithIndex("products"),
			es.Search.WithDocvalueFields("qty", "tag"), es.Search.WithBody(strings.NewReader(q))))
		if code != 200 {
			t.Fatalf("search = %d %v", code, res)
		}
		hits, _ := jsonPath(res, "hits.hits").([]any)
		if len(hits) != len(want) {
			t.Fatalf("%d hits, want %d", len(hits), len(want))
		}
		for i, p := range want {
			if id := jsonPath(hits[i], "_id"); id != p.ID {
				t.Fatalf("hit %d = %v, want %s", i, id, p.ID)
			}
			if jsonPath(hits[i], "_source") != nil {
				t.Errorf("%s: _source returned", p.ID)
			}
			ecEqual(t, p.ID+" fields", jsonPath(hits[i], "fields"), fmt.Sprintf(
				`{"price":["%.2f"],"released":["%d"],"active":[true],"qty":[%d],"tag":["%s"]}`,
				p.priceValue(), p.millis(), p.Qty, p.Tag))
		}
	})
}
