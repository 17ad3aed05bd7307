package handlers_test

// The official Go client (go-elasticsearch v7.17) running the search
// features applications use most on 3,000 real cities, every expectation
// computed from the raw NDJSON in the test.

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/elastic/go-elasticsearch/v7"
)

// gcFounded is the derived date of city i (the dataset has none).
func gcFounded(i int) time.Time {
	return time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, (i*37)%700)
}

func TestOfficialGoClientSearch(t *testing.T) {
	cs := dsReadCities(t, 3000)
	n := newTestNode(t)
	es, err := elasticsearch.NewClient(elasticsearch.Config{Addresses: []string{n.URL}, Transport: n.HTTP.Transport})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	code, body, _ := ecDecode(t, "create")(es.Indices.Create("places", es.Indices.Create.WithContext(ctx), es.Indices.Create.WithBody(strings.NewReader(`{
		"settings":{"number_of_shards":2},"mappings":{"properties":{"id":{"type":"keyword"},"name":{"type":"text"},
		"country":{"type":"keyword"},"feature_code":{"type":"keyword"},"admin_code":{"type":"keyword"},"population":{"type":"long"},
		"location":{"type":"geo_point"},"coords":{"type":"double"},"tags":{"type":"keyword"},"msm":{"type":"integer"},"founded":{"type":"date"}}}}`))))
	if code != 200 {
		t.Fatalf("create = %d %v", code, body)
	}
	var b strings.Builder
	for i, c := range cs {
		fmt.Fprintf(&b, "{\"index\":{\"_id\":%q}}\n%s,\"founded\":%q}\n", c.ID, c.line[:len(c.line)-1], gcFounded(i).Format("2006-01-02"))
	}
	code, body, _ = ecDecode(t, "bulk")(es.Bulk(strings.NewReader(b.String()), es.Bulk.WithIndex("places"), es.Bulk.WithRefresh("true")))
	if code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("bulk = %d %.300s", code, str(body))
	}

	search := func(t *testing.T, q string) map[string]any {
		t.Helper()
		code, body, _ := ecDecode(t, "search")(es.Search(es.Search.WithContext(ctx), es.Search.WithIndex("places"),
			es.Search.WithBody(strings.NewReader(q)), es.Search.WithTrackTotalHits(true)))
		if code != 200 {
			t.Fatalf("search = %d %.500s", code, str(body))
		}
		return body
	}
	ids := func(keep func(i int, c dsCity) bool) []string {
		var out []string
		for i, c := range cs {
			if keep(i, c) {
				out = append(out, c.ID)
			}
		}
		sort.Strings(out)
		return out
	}
	const vlat, vlon = 48.2082, 16.3738 // Vienna
	queries := []struct {
		name, query string
		keep        func(i int, c dsCity) bool
	}{
		{"match", `{"match":{"name":"san"}}`, func(_ int, c dsCity) bool { return hasTok(c.tokens, "san") }},
		{"term", `{"term":{"country":"AT"}}`, func(_ int, c dsCity) bool { return c.Country == "AT" }},
		{"terms", `{"terms":{"feature_code":["PPLA","PPLC"]}}`, func(_ int, c dsCity) bool { return c.Feature == "PPLA" || c.Feature == "PPLC" }},
		{"range", `{"range":{"population":{"gte":20000,"lt":50000}}}`, func(_ int, c dsCity) bool { return c.Pop >= 20000 && c.Pop < 50000 }},
		{"range date", `{"range":{"founded":{"gte":"2020-06-01","lt":"2020-07-01"}}}`, func(i int, _ dsCity) bool {
			d := gcFounded(i)
			return !d.Before(time.Date(2020, 6, 1, 0, 0, 0, 0, time.UTC)) && d.Before(time.Date(2020, 7, 1, 0, 0, 0, 0, time.UTC))
		}},
		{"bool", `{"bool":{"filter":[{"term":{"country":"AT"}}],"must_not":[{"term":{"feature_code":"PPL"}}],"should":[{"range":{"population":{"gte":5000}}}],"minimum_should_match":1}}`,
			func(_ int, c dsCity) bool { return c.Country == "AT" && c.Feature != "PPL" && c.Pop >= 5000 }},
		{"match_phrase", `{"match_phrase":{"name":"sankt peter"}}`, func(_ int, c dsCity) bool { return hasPhrase(c.tokens, "sankt", "peter") }},
		{"prefix", `{"prefix":{"admin_code":"0"}}`, func(_ int, c dsCity) bool { return strings.HasPrefix(c.Admin, "0") }},
		{"wildcard", `{"wildcard":{"feature_code":"PPLA?"}}`, func(_ int, c dsCity) bool { return len(c.Feature) == 5 && strings.HasPrefix(c.Feature, "PPLA") }},
		{"exists", `{"exists":{"field":"coords"}}`, func(_ int, c dsCity) bool { return c.Coords != nil }},
		{"ids", `{"ids":{"values":["` + cs[10].ID + `","` + cs[2999].ID + `","none"]}}`, func(i int, _ dsCity) bool { return i == 10 || i == 2999 }},
		{"query_string", `{"query_string":{"query":"country:(AT OR CH) AND population:>50000"}}`, func(_ int, c dsCity) bool {
			return (c.Country == "AT" || c.Country == "CH") && c.Pop > 50000
		}},
		{"multi_match", `{"multi_match":{"query":"AT","fields":["country","tags"]}}`, func(_ int, c dsCity) bool { return c.Country == "AT" }},
		{"geo_distance", fmt.Sprintf(`{"geo_distance":{"distance":"30km","location":{"lat":%g,"lon":%g}}}`, vlat, vlon), func(_ int, c dsCity) bool {
			return haversine(vlat, vlon, c.Lat, c.Lon) <= 30000
		}},
	}
	for _, tc := range queries {
		t.Run(tc.name, func(t *testing.T) {
			want := ids(tc.keep)
			if len(want) == 0 || len(want) == len(cs) {
				t.Fatalf("case selects %d of %d cities", len(want), len(cs))
			}
			body := search(t, `{"query":`+tc.query+`,"size":50,"sort":["id"],"_source":false}`)
			checkHits(t, body, want, 50)
		})
	}

	t.Run("source filtering", func(t *testing.T) {
		body := search(t, `{"query":{"ids":{"values":["`+cs[7].ID+`"]}},"_source":{"includes":["name","loc*"],"excludes":["location.lat"]}}`)
		want := fmt.Sprintf(`{"location":{"lon":%s},"name":%q}`, ff(cs[7].Lon), cs[7].Name)
		if got := str(jsonPath(body, "hits.hits.0._source")); got != want {
			t.Errorf("_source = %s, want %s", got, want)
		}
		body = search(t, `{"query":{"ids":{"values":["`+cs[7].ID+`"]}},"_source":false}`)
		if jsonPath(body, "hits.hits.0._source") != nil {
			t.Errorf("_source false still returns %s", str(jsonPath(body, "hits.hits.0._source")))
		}
	})

	t.Run("aggregations", func(t *testing.T) {
		body := search(t, `{"size":0,"query":{"terms":{"country":["AT","CH","BE"]}},"aggs":{
			"c":{"terms":{"field":"country"},"aggs":{"avg":{"avg":{"field":"population"}}}},
			"sum":{"sum":{"field":"population"}},"min":{"min":{"field":"population"}},"max":{"max":{"field":"population"}},
			"avg":{"avg":{"field":"population"}},"vc":{"value_count":{"field":"coords"}},"card":{"cardinality":{"field":"admin_code"}},
			"r":{"range":{"field":"population","ranges":[{"to":1000},{"from":1000,"to":100000},{"from":100000}]}},
			"d":{"date_histogram":{"field":"founded","calendar_interval":"quarter"}}}}`)
		var pops []float64
		countries, sums := map[string]int64{}, map[string]float64{}
		admins := map[string]bool{}
		var vc int64
		var rng [3]int64
		quarters := map[int64]int64{}
		for i, c := range cs {
			if c.Country != "AT" && c.Country != "CH" && c.Country != "BE" {
				continue
			}
			pops = append(pops, float64(c.Pop))
			countries[c.Country]++
			sums[c.Country] += float64(c.Pop)
			admins[c.Admin] = true
			vc += int64(len(c.Coords))
			switch {
			case c.Pop < 1000:
				rng[0]++
			case c.Pop < 100000:
				rng[1]++
			default:
				rng[2]++
			}
			d := gcFounded(i)
			quarters[time.Date(d.Year(), time.Month((int(d.Month())-1)/3*3+1), 1, 0, 0, 0, 0, time.UTC).UnixMilli()]++
		}
		s := statsOf(pops)
		var want []kc
		for _, k := range countKeys(func() []string {
			var o []string
			for k, n := range countries {
				for j := int64(0); j < n; j++ {
					o = append(o, k)
				}
			}
			return o
		}()) {
			want = append(want, k)
		}
		checkBuckets(t, "terms", jsonPath(body, "aggregations.c.buckets"), want)
		for i, w := range want {
			checkNum(t, w.key+" avg", jsonPath(body, fmt.Sprintf("aggregations.c.buckets.%d.avg.value", i)), sums[w.key]/float64(w.count), 1e-9)
		}
		checkNum(t, "sum", jsonPath(body, "aggregations.sum.value"), s.sum, 1e-9)
		checkNum(t, "min", jsonPath(body, "aggregations.min.value"), s.min, 1e-9)
		checkNum(t, "max", jsonPath(body, "aggregations.max.value"), s.max, 1e-9)
		checkNum(t, "avg", jsonPath(body, "aggregations.avg.value"), s.sum/float64(s.count), 1e-9)
		checkNum(t, "value_count", jsonPath(body, "aggregations.vc.value"), float64(vc), 0)
		checkNum(t, "cardinality", jsonPath(body, "aggregations.card.value"), float64(len(admins)), 0)
		checkBuckets(t, "range", jsonPath(body, "aggregations.r.buckets"), []kc{{"*-1000.0", rng[0]}, {"1000.0-100000.0", rng[1]}, {"100000.0-*", rng[2]}})
		var qk []int64
		for k := range quarters {
			qk = append(qk, k)
		}
		sort.Slice(qk, func(i, j int) bool { return qk[i] < qk[j] })
		var qw []kc
		for _, k := range qk {
			qw = append(qw, kc{fmt.Sprintf("%g", float64(k)), quarters[k]})
		}
		checkBuckets(t, "date_histogram", jsonPath(body, "aggregations.d.buckets"), qw)
		if math.IsNaN(num(jsonPath(body, "aggregations.d.buckets.0.doc_count"))) {
			t.Errorf("date_histogram has no buckets")
		}
	})
}
