package handlers_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// kc is an expected bucket: key and doc count.
type kc struct {
	key   string
	count int64
}

// countKeys counts values into buckets ordered by count desc, key asc.
func countKeys(keys []string) []kc {
	m := map[string]int64{}
	for _, k := range keys {
		m[k]++
	}
	return byCount(m)
}

// byCount lists counted keys by count desc, key asc (terms order).
func byCount(m map[string]int64) []kc {
	var out []kc
	for k, c := range m {
		out = append(out, kc{k, c})
	}
	slices.SortFunc(out, func(a, b kc) int {
		if a.count != b.count {
			return cmp.Compare(b.count, a.count)
		}
		return strings.Compare(a.key, b.key)
	})
	return out
}

// bucketKey renders a bucket key for comparison (numbers via %g).
func bucketKey(b any) string {
	k := jsonPath(b, "key")
	if s, ok := k.(string); ok {
		return s
	}
	return fmt.Sprintf("%g", num(k))
}

func checkBuckets(t *testing.T, what string, got any, want []kc) {
	t.Helper()
	bs, _ := got.([]any)
	var g, w []string
	for _, b := range bs {
		g = append(g, fmt.Sprintf("%s:%d", bucketKey(b), int64(num(jsonPath(b, "doc_count")))))
	}
	for _, b := range want {
		w = append(w, fmt.Sprintf("%s:%d", b.key, b.count))
	}
	if strings.Join(g, " ") != strings.Join(w, " ") {
		t.Errorf("%s buckets =\n %s\nwant\n %s", what, strings.Join(g, " "), strings.Join(w, " "))
	}
}

func checkNum(t *testing.T, what string, got any, want, rel float64) {
	t.Helper()
	if g := num(got); !near(g, want, rel) {
		t.Errorf("%s = %v, want %v (rel %g)", what, got, want, rel)
	}
}

type popStats struct {
	count                     int64
	sum, min, max, sumSquares float64
}

func statsOf(vs []float64) popStats {
	s := popStats{min: math.Inf(1), max: math.Inf(-1)}
	for _, v := range vs {
		s.count++
		s.sum += v
		s.sumSquares += v * v
		s.min, s.max = math.Min(s.min, v), math.Max(s.max, v)
	}
	return s
}

// rankOf is the fraction of sorted values ≤ v.
func rankOf(sorted []float64, v float64) float64 {
	return float64(sort.SearchFloat64s(sorted, math.Nextafter(v, math.Inf(1)))) / float64(len(sorted))
}

// luceneLat and luceneLon round a coordinate through Lucene's 32-bit
// doc-value encoding (GeoEncodingUtils), as geo grids see it.
func luceneLat(lat float64) float64 {
	const q = 180.0 / (1 << 32)
	return math.Floor(lat/q) * q
}

func luceneLon(lon float64) float64 {
	const q = 360.0 / (1 << 32)
	return math.Floor(lon/q) * q
}

func geohash(lat, lon float64, precision int) string {
	const base32 = "0123456789bcdefghjkmnpqrstuvwxyz"
	latR, lonR := [2]float64{-90, 90}, [2]float64{-180, 180}
	var out []byte
	bit, ch, even := 0, 0, true
	for len(out) < precision {
		r, v := &latR, lat
		if even {
			r, v = &lonR, lon
		}
		mid := (r[0] + r[1]) / 2
		ch <<= 1
		if v >= mid {
			ch |= 1
			r[0] = mid
		} else {
			r[1] = mid
		}
		even = !even
		if bit++; bit == 5 {
			out = append(out, base32[ch])
			bit, ch = 0, 0
		}
	}
	return string(out)
}

func geotile(lat, lon float64, z int) string {
	n := float64(int(1) << z)
	x := int(math.Floor((lon + 180) / 360 * n))
	lr := lat * math.Pi / 180
	y := int(math.Floor((1 - math.Log(math.Tan(lr)+1/math.Cos(lr))/math.Pi) / 2 * n))
	x, y = min(max(x, 0), int(n)-1), min(max(y, 0), int(n)-1)
	return fmt.Sprintf("%d/%d/%d", z, x, y)
}

func (f *dsFixture) cityAggs(t *testing.T) {
	cs := f.cities
	var atPops, allPops []float64
	for _, c := range cs {
		allPops = append(allPops, float64(c.Pop))
		if c.Country == "AT" {
			atPops = append(atPops, float64(c.Pop))
		}
	}
	sort.Float64s(allPops)

	t.Run("metrics", func(t *testing.T) {
		body := f.search(t, "cities", `{"size":0,"query":{"term":{"country":"AT"}},"aggs":{
			"mn":{"min":{"field":"population"}},"mx":{"max":{"field":"population"}},"s":{"sum":{"field":"population"}},
			"a":{"avg":{"field":"population"}},"vc":{"value_count":{"field":"coords"}},"st":{"stats":{"field":"population"}},
			"es":{"extended_stats":{"field":"population","sigma":2}}}}`)
		s := statsOf(atPops)
		var ncoords int64
		for _, c := range cs {
			if c.Country == "AT" {
				ncoords += int64(len(c.Coords))
			}
		}
		avg := s.sum / float64(s.count)
		variance := s.sumSquares/float64(s.count) - avg*avg
		checkNum(t, "min", jsonPath(body, "aggregations.mn.value"), s.min, 1e-9)
		checkNum(t, "max", jsonPath(body, "aggregations.mx.value"), s.max, 1e-9)
		checkNum(t, "sum", jsonPath(body, "aggregations.s.value"), s.sum, 1e-9)
		checkNum(t, "avg", jsonPath(body, "aggregations.a.value"), avg, 1e-9)
		checkNum(t, "value_count", jsonPath(body, "aggregations.vc.value"), float64(ncoords), 0)
		for _, p := range []string{"st", "es"} {
			checkNum(t, p+".count", jsonPath(body, "aggregations."+p+".count"), float64(s.count), 0)
			checkNum(t, p+".sum", jsonPath(body, "aggregations."+p+".sum"), s.sum, 1e-9)
			checkNum(t, p+".avg", jsonPath(body, "aggregations."+p+".avg"), avg, 1e-9)
			checkNum(t, p+".min", jsonPath(body, "aggregations."+p+".min"), s.min, 1e-9)
			checkNum(t, p+".max", jsonPath(body, "aggregations."+p+".max"), s.max, 1e-9)
		}
		checkNum(t, "sum_of_squares", jsonPath(body, "aggregations.es.sum_of_squares"), s.sumSquares, 1e-9)
		checkNum(t, "variance", jsonPath(body, "aggregations.es.variance"), variance, 1e-9)
		checkNum(t, "std_deviation", jsonPath(body, "aggregations.es.std_deviation"), math.Sqrt(variance), 1e-9)
		checkNum(t, "variance_sampling", jsonPath(body, "aggregations.es.variance_sampling"), variance*float64(s.count)/float64(s.count-1), 1e-9)
		checkNum(t, "std_deviation_bounds.upper", jsonPath(body, "aggregations.es.std_deviation_bounds.upper"), avg+2*math.Sqrt(variance), 1e-9)
		checkNum(t, "std_deviation_bounds.lower", jsonPath(body, "aggregations.es.std_deviation_bounds.lower"), avg-2*math.Sqrt(variance), 1e-9)
	})

	t.Run("significant_terms", func(t *testing.T) {
		// ES 7.17 per shard (3, routed by _id): the foreground is the AT
		// cities, the background all the shard's cities; a term's bg_count
		// adds up the shards where it is a foreground candidate. Every
		// shard has fewer candidates than the default shard_size (50).
		const shards = 3
		var fgSize, bgSize int64
		fg, bg := map[string]int64{}, map[string]int64{}
		for s := 0; s < shards; s++ {
			sfg, sbg := map[string]int64{}, map[string]int64{}
			for _, c := range cs {
				if dsShard(c.ID, shards) != s {
					continue
				}
				bgSize++
				if c.Feature != "" {
					sbg[c.Feature]++
				}
				if c.Country == "AT" {
					fgSize++
					if c.Feature != "" {
						sfg[c.Feature]++
					}
				}
			}
			if len(sfg) > 50 {
				t.Fatalf("shard %d has %d candidates, beyond the default shard_size", s, len(sfg))
			}
			for k, n := range sfg {
				fg[k] += n
				bg[k] += sbg[k]
			}
		}
		type want struct {
			key      string
			df, bgDf int64
			score    float64
		}
		var ws []want
		for k, n := range fg {
			p, q := float64(n)/float64(fgSize), float64(bg[k])/float64(bgSize)
			if p > q && n >= 3 {
				ws = append(ws, want{k, n, bg[k], (p - q) * (p / q)})
			}
		}
		slices.SortFunc(ws, func(a, b want) int {
			if c := cmp.Compare(b.score, a.score); c != 0 {
				return c
			}
			return cmp.Compare(a.key, b.key)
		})
		ws = ws[:min(len(ws), 10)]
		code, body := f.n.do("POST", "/cities/_search?typed_keys=true", "application/json", `{"size":0,"query":{"term":{"country":"AT"}},"aggs":{"sig":{"significant_terms":{"field":"feature_code"}}}}`)
		if code != 200 {
			t.Fatalf("%d %s", code, str(body))
		}
		checkNum(t, "doc_count", jsonPath(body, "aggregations.sigsterms#sig.doc_count"), float64(fgSize), 0)
		checkNum(t, "bg_count", jsonPath(body, "aggregations.sigsterms#sig.bg_count"), float64(bgSize), 0)
		bs, _ := jsonPath(body, "aggregations.sigsterms#sig.buckets").([]any)
		if len(ws) == 0 || len(bs) != len(ws) {
			t.Fatalf("%d buckets, want %d: %s", len(bs), len(ws), str(body))
		}
		for i, w := range ws {
			if k := jsonPath(bs[i], "key"); k != w.key {
				t.Errorf("bucket %d key = %v, want %s", i, k, w.key)
			}
			checkNum(t, w.key+" doc_count", jsonPath(bs[i], "doc_count"), float64(w.df), 0)
			checkNum(t, w.key+" bg_count", jsonPath(bs[i], "bg_count"), float64(w.bgDf), 0)
			checkNum(t, w.key+" score", jsonPath(bs[i], "score"), w.score, 1e-12)
		}
	})

	t.Run("approximate metrics", func(t *testing.T) {
		body := f.search(t, "cities", `{"size":0,"aggs":{
			"cc":{"cardinality":{"field":"country"}},"cn":{"cardinality":{"field":"name.kw"}},
			"p":{"percentiles":{"field":"population","percents":[1,5,25,50,75,95,99]}},
			"pr":{"percentile_ranks":{"field":"population","values":[500,2000,10000,100000]}},
			"mad":{"median_absolute_deviation":{"field":"population"}}}}`)
		countries, names := map[string]bool{}, map[string]bool{}
		for _, c := range cs {
			countries[c.Country], names[c.Name] = true, true
		}
		// below precision_threshold (3000) counts are exact up to hash collisions
		checkNum(t, "cardinality(country)", jsonPath(body, "aggregations.cc.value"), float64(len(countries)), 0)
		// HyperLogLog++ above the threshold: a few percent
		checkNum(t, "cardinality(name)", jsonPath(body, "aggregations.cn.value"), float64(len(names)), 0.03)
		// t-digest (compression 100) is accurate in rank: within 1 point.
		for _, p := range []float64{1, 5, 25, 50, 75, 95, 99} {
			got := num(jsonPath(body, "aggregations.p.values").(map[string]any)[fmt.Sprintf("%.1f", p)])
			lo := rankOf(allPops, math.Nextafter(got, math.Inf(-1))-1e-9) // fraction strictly below
			hi := rankOf(allPops, got)
			if p/100 < lo-0.01 || p/100 > hi+0.01 {
				t.Errorf("percentile %g = %v has rank [%.4f, %.4f]", p, got, lo, hi)
			}
		}
		for _, v := range []float64{500, 2000, 10000, 100000} {
			got := num(jsonPath(body, "aggregations.pr.values").(map[string]any)[fmt.Sprintf("%.1f", v)])
			if want := 100 * rankOf(allPops, v); math.Abs(got-want) > 1 {
				t.Errorf("percentile_rank(%g) = %v, want %v ± 1", v, got, want)
			}
		}
		med := allPops[len(allPops)/2]
		var dev []float64
		for _, p := range allPops {
			dev = append(dev, math.Abs(p-med))
		}
		sort.Float64s(dev)
		checkNum(t, "median_absolute_deviation", jsonPath(body, "aggregations.mad.value"), dev[len(dev)/2], 0.05)
	})

	t.Run("weighted_avg and geo metrics", func(t *testing.T) {
		body := f.search(t, "cities", `{"size":0,"query":{"term":{"country":"CH"}},"aggs":{
			"w":{"weighted_avg":{"value":{"field":"coords"},"weight":{"field":"population"}}},
			"b":{"geo_bounds":{"field":"location"}},"c":{"geo_centroid":{"field":"location"}}}}`)
		var vw, ws, latS, lonS float64
		var n int64
		top, bottom, left, right := -90.0, 90.0, 180.0, -180.0
		for _, c := range cs {
			if c.Country != "CH" {
				continue
			}
			for _, v := range c.Coords {
				vw += v * float64(c.Pop)
				ws += float64(c.Pop)
			}
			latS, lonS, n = latS+c.Lat, lonS+c.Lon, n+1
			top, bottom = math.Max(top, c.Lat), math.Min(bottom, c.Lat)
			left, right = math.Min(left, c.Lon), math.Max(right, c.Lon)
		}
		checkNum(t, "weighted_avg", jsonPath(body, "aggregations.w.value"), vw/ws, 1e-9)
		checkNum(t, "top", jsonPath(body, "aggregations.b.bounds.top_left.lat"), top, 1e-6)
		checkNum(t, "left", jsonPath(body, "aggregations.b.bounds.top_left.lon"), left, 1e-6)
		checkNum(t, "bottom", jsonPath(body, "aggregations.b.bounds.bottom_right.lat"), bottom, 1e-6)
		checkNum(t, "right", jsonPath(body, "aggregations.b.bounds.bottom_right.lon"), right, 1e-6)
		checkNum(t, "centroid lat", jsonPath(body, "aggregations.c.location.lat"), latS/float64(n), 1e-6)
		checkNum(t, "centroid lon", jsonPath(body, "aggregations.c.location.lon"), lonS/float64(n), 1e-6)
		checkNum(t, "centroid count", jsonPath(body, "aggregations.c.count"), float64(n), 0)
	})

	t.Run("terms options", func(t *testing.T) {
		body := f.search(t, "cities", `{"size":0,"aggs":{
			"k":{"terms":{"field":"country","size":100,"order":{"_key":"asc"},"include":"A.*|B[A-F]","min_doc_count":30}},
			"t":{"terms":{"field":"tags","size":6,"missing":"N/A","exclude":["PPL"],"shard_size":1000}},
			"asc":{"terms":{"field":"feature_code","size":4,"order":{"_count":"asc"},"shard_size":1000}},
			"bymax":{"terms":{"field":"country","size":3,"order":{"mx":"desc"}},"aggs":{"mx":{"max":{"field":"population"}}}}}}`)
		re := regexp.MustCompile(`^(?:A.*|B[A-F])$`)
		var ks, tags, feats []string
		maxPop := map[string]int64{}
		for _, c := range cs {
			if re.MatchString(c.Country) {
				ks = append(ks, c.Country)
			}
			if c.Tags == nil {
				tags = append(tags, "N/A")
			}
			for _, tg := range c.Tags {
				if tg != "PPL" {
					tags = append(tags, tg)
				}
			}
			feats = append(feats, c.Feature)
			maxPop[c.Country] = max(maxPop[c.Country], c.Pop)
		}
		var keyOrder []kc
		for _, b := range countKeys(ks) {
			if b.count >= 30 {
				keyOrder = append(keyOrder, b)
			}
		}
		slices.SortFunc(keyOrder, func(a, b kc) int { return strings.Compare(a.key, b.key) })
		checkBuckets(t, "include/_key", jsonPath(body, "aggregations.k.buckets"), keyOrder)
		checkBuckets(t, "missing/exclude", jsonPath(body, "aggregations.t.buckets"), countKeys(tags)[:6])
		fc := countKeys(feats)
		slices.SortStableFunc(fc, func(a, b kc) int {
			if a.count != b.count {
				return cmp.Compare(a.count, b.count)
			}
			return strings.Compare(a.key, b.key)
		})
		checkBuckets(t, "_count asc", jsonPath(body, "aggregations.asc.buckets"), fc[:4])
		var bm []kc
		for k := range maxPop {
			bm = append(bm, kc{k, 0})
		}
		slices.SortFunc(bm, func(a, b kc) int {
			if maxPop[a.key] != maxPop[b.key] {
				return cmp.Compare(maxPop[b.key], maxPop[a.key])
			}
			return strings.Compare(a.key, b.key)
		})
		for i, b := range bm[:3] {
			got := jsonPath(body, fmt.Sprintf("aggregations.bymax.buckets.%d", i))
			if bucketKey(got) != b.key || num(jsonPath(got, "mx.value")) != float64(maxPop[b.key]) {
				t.Errorf("order by max bucket %d = %s, want %s %d", i, str(got), b.key, maxPop[b.key])
			}
		}
	})

	t.Run("range histogram filters missing global", func(t *testing.T) {
		body := f.search(t, "cities", `{"size":0,"query":{"terms":{"country":["AT","CH"]}},"aggs":{
			"r":{"range":{"field":"population","ranges":[{"to":1000},{"from":1000,"to":10000,"key":"mid"},{"from":10000}]}},
			"h":{"histogram":{"field":"population","interval":25000,"offset":5000,"min_doc_count":1}},
			"hb":{"histogram":{"field":"coords","interval":10,"extended_bounds":{"min":-20,"max":120}}},
			"f":{"filter":{"range":{"population":{"gte":5000}}},"aggs":{"s":{"sum":{"field":"population"}}}},
			"fs":{"filters":{"other_bucket_key":"rest","filters":{"ch":{"term":{"country":"CH"}},"big":{"range":{"population":{"gte":20000}}}}}},
			"m":{"missing":{"field":"coords"}},
			"g":{"global":{},"aggs":{"n":{"value_count":{"field":"population"}}}}}}`)
		var rng [3]int64
		hist := map[float64]int64{}
		cb := map[float64]int64{}
		var fsum float64
		var fcount, ch, big, rest, miss int64
		for _, c := range cs {
			if c.Country != "AT" && c.Country != "CH" {
				continue
			}
			switch {
			case c.Pop < 1000:
				rng[0]++
			case c.Pop < 10000:
				rng[1]++
			default:
				rng[2]++
			}
			hist[math.Floor(float64(c.Pop-5000)/25000)*25000+5000]++
			seen := map[float64]bool{} // a document counts once per bucket
			for _, v := range c.Coords {
				if k := math.Floor(v/10) * 10; !seen[k] {
					seen[k] = true
					cb[k]++
				}
			}
			if c.Pop >= 5000 {
				fcount++
				fsum += float64(c.Pop)
			}
			if c.Country == "CH" {
				ch++
			}
			if c.Pop >= 20000 {
				big++
			}
			if c.Country != "CH" && c.Pop < 20000 {
				rest++
			}
			if c.Coords == nil {
				miss++
			}
		}
		checkBuckets(t, "range", jsonPath(body, "aggregations.r.buckets"), []kc{{"*-1000.0", rng[0]}, {"mid", rng[1]}, {"10000.0-*", rng[2]}})
		var hk []float64
		for k := range hist {
			hk = append(hk, k)
		}
		sort.Float64s(hk)
		var hw []kc
		for _, k := range hk {
			hw = append(hw, kc{fmt.Sprintf("%g", k), hist[k]})
		}
		checkBuckets(t, "histogram", jsonPath(body, "aggregations.h.buckets"), hw)
		var cw []kc
		for k := -20.0; k <= 120; k += 10 {
			cw = append(cw, kc{fmt.Sprintf("%g", k), cb[k]})
		}
		checkBuckets(t, "histogram extended_bounds (multi-valued)", jsonPath(body, "aggregations.hb.buckets"), cw)
		checkNum(t, "filter.doc_count", jsonPath(body, "aggregations.f.doc_count"), float64(fcount), 0)
		checkNum(t, "filter.s", jsonPath(body, "aggregations.f.s.value"), fsum, 1e-9)
		checkNum(t, "filters.ch", jsonPath(body, "aggregations.fs.buckets.ch.doc_count"), float64(ch), 0)
		checkNum(t, "filters.big", jsonPath(body, "aggregations.fs.buckets.big.doc_count"), float64(big), 0)
		checkNum(t, "filters.rest", jsonPath(body, "aggregations.fs.buckets.rest.doc_count"), float64(rest), 0)
		checkNum(t, "missing", jsonPath(body, "aggregations.m.doc_count"), float64(miss), 0)
		checkNum(t, "global", jsonPath(body, "aggregations.g.doc_count"), float64(len(cs)+len(f.mails)*0), 0)
		checkNum(t, "global count", jsonPath(body, "aggregations.g.n.value"), float64(len(cs)), 0)
	})

	t.Run("composite paging", func(t *testing.T) {
		var keys []string
		for _, c := range cs {
			keys = append(keys, c.Country+"|"+c.Feature)
		}
		want := countKeys(keys)
		slices.SortFunc(want, func(a, b kc) int { return strings.Compare(a.key, b.key) })
		var got []kc
		after := ""
		for page := 0; page < 100; page++ {
			body := f.search(t, "cities", `{"size":0,"aggs":{"c":{"composite":{"size":40,`+after+`"sources":[
				{"c":{"terms":{"field":"country"}}},{"f":{"terms":{"field":"feature_code"}}}]}}}}`)
			bs, _ := jsonPath(body, "aggregations.c.buckets").([]any)
			if len(bs) == 0 {
				break
			}
			for _, b := range bs {
				got = append(got, kc{jsonPath(b, "key.c").(string) + "|" + jsonPath(b, "key.f").(string), int64(num(jsonPath(b, "doc_count")))})
			}
			after = `"after":` + str(jsonPath(body, "aggregations.c.after_key")) + ","
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("composite pages = %d buckets, want %d\n got %v\nwant %v", len(got), len(want), head2(got), head2(want))
		}
	})

	t.Run("geo grids", func(t *testing.T) {
		body := f.search(t, "cities", `{"size":0,"aggs":{"gh":{"geohash_grid":{"field":"location","precision":2,"size":10000}},
			"gt":{"geotile_grid":{"field":"location","precision":5,"size":10000}}}}`)
		var gh, gt []string
		for _, c := range cs {
			lat, lon := luceneLat(c.Lat), luceneLon(c.Lon)
			gh = append(gh, geohash(lat, lon, 2))
			gt = append(gt, geotile(lat, lon, 5))
		}
		for _, x := range []struct {
			name string
			keys []string
		}{{"gh", gh}, {"gt", gt}} {
			want := map[string]int64{}
			for _, b := range countKeys(x.keys) {
				want[b.key] = b.count
			}
			bs, _ := jsonPath(body, "aggregations."+x.name+".buckets").([]any)
			got := map[string]int64{}
			prev := int64(math.MaxInt64)
			for _, b := range bs {
				c := int64(num(jsonPath(b, "doc_count")))
				got[bucketKey(b)] = c
				if c > prev {
					t.Errorf("%s buckets not ordered by doc_count", x.name)
				}
				prev = c
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s = %d cells, want %d\n got %v\nwant %v", x.name, len(got), len(want), got, want)
			}
		}
	})

	t.Run("top_hits and pipelines", func(t *testing.T) {
		body := f.search(t, "cities", `{"size":0,"aggs":{
			"c":{"terms":{"field":"country","size":100},"aggs":{"s":{"sum":{"field":"population"}},
				"top":{"top_hits":{"size":2,"sort":[{"population":"desc"},{"id":"asc"}],"_source":["name"]}},
				"sorted":{"bucket_sort":{"sort":[{"s":{"order":"desc"}}],"from":1,"size":3}}}},
			"all":{"terms":{"field":"country","size":100},"aggs":{"s":{"sum":{"field":"population"}}}},
			"sb":{"sum_bucket":{"buckets_path":"all>s"}},"ab":{"avg_bucket":{"buckets_path":"all>s"}},
			"xb":{"max_bucket":{"buckets_path":"all>s"}},"nb":{"min_bucket":{"buckets_path":"all>s"}},
			"stb":{"stats_bucket":{"buckets_path":"all>s"}},
			"h":{"histogram":{"field":"population","interval":100000,"min_doc_count":0},"aggs":{
				"cs":{"cumulative_sum":{"buckets_path":"_count"}},"d":{"derivative":{"buckets_path":"_count"}}}}}}`)
		sums := map[string]float64{}
		byCountry := map[string][]dsCity{}
		var hist = map[int64]int64{}
		var maxBin int64
		for _, c := range cs {
			sums[c.Country] += float64(c.Pop)
			byCountry[c.Country] = append(byCountry[c.Country], c)
			hist[c.Pop/100000]++
			maxBin = max(maxBin, c.Pop/100000)
		}
		type ks struct {
			k string
			s float64
		}
		var order []ks
		total, mx, mn := 0.0, math.Inf(-1), math.Inf(1)
		mxKey, mnKey := "", ""
		for k, s := range sums {
			order = append(order, ks{k, s})
			total += s
		}
		// ties of max/min_bucket go to the first bucket in terms order (count desc, key asc)
		byCount := countKeys(func() []string {
			var o []string
			for _, c := range cs {
				o = append(o, c.Country)
			}
			return o
		}())
		for _, b := range byCount {
			if s := sums[b.key]; s > mx {
				mx, mxKey = s, b.key
			}
			if s := sums[b.key]; s < mn {
				mn, mnKey = s, b.key
			}
		}
		slices.SortFunc(order, func(a, b ks) int {
			if a.s != b.s {
				return cmp.Compare(b.s, a.s)
			}
			return strings.Compare(a.k, b.k)
		})
		// bucket_sort keeps buckets 1..3 by sum desc
		bs, _ := jsonPath(body, "aggregations.c.buckets").([]any)
		if len(bs) != 3 {
			t.Fatalf("bucket_sort kept %d buckets, want 3", len(bs))
		}
		for i, b := range bs {
			if bucketKey(b) != order[i+1].k || num(jsonPath(b, "s.value")) != order[i+1].s {
				t.Errorf("bucket_sort %d = %s %v, want %s %v", i, bucketKey(b), jsonPath(b, "s.value"), order[i+1].k, order[i+1].s)
			}
			cities := slices.Clone(byCountry[order[i+1].k])
			slices.SortFunc(cities, func(a, b dsCity) int {
				if a.Pop != b.Pop {
					return cmp.Compare(b.Pop, a.Pop)
				}
				return strings.Compare(a.ID, b.ID)
			})
			for j := 0; j < 2; j++ {
				h := jsonPath(b, fmt.Sprintf("top.hits.hits.%d", j))
				if jsonPath(h, "_id") != cities[j].ID || str(jsonPath(h, "_source")) != str(map[string]string{"name": cities[j].Name}) {
					t.Errorf("top_hits %s/%d = %s, want %s %s", bucketKey(b), j, str(h), cities[j].ID, cities[j].Name)
				}
			}
		}
		checkNum(t, "sum_bucket", jsonPath(body, "aggregations.sb.value"), total, 1e-9)
		checkNum(t, "avg_bucket", jsonPath(body, "aggregations.ab.value"), total/float64(len(sums)), 1e-9)
		checkNum(t, "max_bucket", jsonPath(body, "aggregations.xb.value"), mx, 1e-9)
		checkNum(t, "min_bucket", jsonPath(body, "aggregations.nb.value"), mn, 1e-9)
		if got := str(jsonPath(body, "aggregations.xb.keys")); got != str([]string{mxKey}) {
			t.Errorf("max_bucket keys = %s, want [%s]", got, mxKey)
		}
		if got := str(jsonPath(body, "aggregations.nb.keys")); got != str([]string{mnKey}) {
			t.Errorf("min_bucket keys = %s, want [%s]", got, mnKey)
		}
		checkNum(t, "stats_bucket.count", jsonPath(body, "aggregations.stb.count"), float64(len(sums)), 0)
		checkNum(t, "stats_bucket.sum", jsonPath(body, "aggregations.stb.sum"), total, 1e-9)
		checkNum(t, "stats_bucket.max", jsonPath(body, "aggregations.stb.max"), mx, 1e-9)
		hb, _ := jsonPath(body, "aggregations.h.buckets").([]any)
		if int64(len(hb)) != maxBin+1 {
			t.Fatalf("histogram buckets = %d, want %d", len(hb), maxBin+1)
		}
		var cum int64
		for i, b := range hb {
			c := hist[int64(i)]
			cum += c
			if num(jsonPath(b, "key")) != float64(i)*100000 || int64(num(jsonPath(b, "doc_count"))) != c || int64(num(jsonPath(b, "cs.value"))) != cum {
				t.Errorf("histogram bucket %d = %s, want key %d count %d cumulative %d", i, str(b), i*100000, c, cum)
			}
			if i == 0 {
				if jsonPath(b, "d") != nil {
					t.Errorf("derivative on the first bucket = %s", str(jsonPath(b, "d")))
				}
			} else if int64(num(jsonPath(b, "d.value"))) != c-hist[int64(i-1)] {
				t.Errorf("derivative %d = %v, want %d", i, jsonPath(b, "d.value"), c-hist[int64(i-1)])
			}
		}
	})
}

func head2(b []kc) []kc {
	if len(b) > 8 {
		return b[:8]
	}
	return b
}

// cityTermsShards checks terms doc counts, doc_count_error_upper_bound and
// sum_other_doc_count on the 3-shard index by simulating the shard-level
// top-N and the reduce of Elasticsearch (InternalTerms#reduce).
func (f *dsFixture) cityTermsShards(t *testing.T) {
	perShard := make([][]string, dsCityShards)
	for _, c := range f.cities {
		s := dsShard(c.ID, dsCityShards)
		perShard[s] = append(perShard[s], c.Country)
	}
	for _, tc := range []struct {
		name            string
		size, shardSize int
		param           string
	}{
		{"default shard_size", 5, 5*3/2 + 10, ""},
		{"shard_size equal to size", 5, 5, `,"shard_size":5`},
		{"size 12 shard_size 14", 12, 14, `,"shard_size":14`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			merged := map[string]int64{}
			var errBound, other int64
			for _, keys := range perShard {
				b := countKeys(keys)
				top := b[:min(tc.shardSize, len(b))]
				for _, x := range b[len(top):] {
					other += x.count
				}
				for _, x := range top {
					merged[x.key] += x.count
				}
				if len(top) == tc.shardSize {
					errBound += top[len(top)-1].count
				}
			}
			all := byCount(merged)
			for _, x := range all[tc.size:] {
				other += x.count
			}
			body := f.search(t, "cities", fmt.Sprintf(`{"size":0,"aggs":{"c":{"terms":{"field":"country","size":%d%s}}}}`, tc.size, tc.param))
			checkBuckets(t, "terms", jsonPath(body, "aggregations.c.buckets"), all[:tc.size])
			checkNum(t, "doc_count_error_upper_bound", jsonPath(body, "aggregations.c.doc_count_error_upper_bound"), float64(errBound), 0)
			checkNum(t, "sum_other_doc_count", jsonPath(body, "aggregations.c.sum_other_doc_count"), float64(other), 0)
			if errBound == 0 && tc.shardSize == tc.size {
				t.Errorf("the case cannot show a doc count error")
			}
		})
	}
}

// citySortAndAggs combines a sort on population with several aggregations
// on population (STACK.md: bluge loads a field's values once per use).
func (f *dsFixture) citySortAndAggs(t *testing.T) {
	cs := f.cities
	body := f.search(t, "cities", `{"size":3,"query":{"terms":{"country":["AR","BR"]}},"sort":[{"population":"desc"},{"id":"asc"}],"_source":false,"aggs":{
		"s":{"sum":{"field":"population"}},"a":{"avg":{"field":"population"}},"st":{"stats":{"field":"population"}},
		"vc":{"value_count":{"field":"population"}},"mx":{"max":{"field":"population"}},
		"byc":{"terms":{"field":"country"},"aggs":{"s":{"sum":{"field":"population"}},"mn":{"min":{"field":"population"}}}},
		"h":{"histogram":{"field":"population","interval":1000000,"min_doc_count":1},"aggs":{"s":{"sum":{"field":"population"}}}},
		"cs":{"sum":{"field":"coords"}},"csort":{"stats":{"field":"coords"}}}}`)
	var sel []dsCity
	var coords []float64
	sums, mins, counts := map[string]float64{}, map[string]float64{}, map[string]int64{}
	hist, hsum := map[int64]int64{}, map[int64]float64{}
	for _, c := range cs {
		if c.Country != "AR" && c.Country != "BR" {
			continue
		}
		sel = append(sel, c)
		coords = append(coords, c.Coords...)
		if _, ok := mins[c.Country]; !ok {
			mins[c.Country] = math.Inf(1)
		}
		sums[c.Country] += float64(c.Pop)
		mins[c.Country] = math.Min(mins[c.Country], float64(c.Pop))
		counts[c.Country]++
		hist[c.Pop/1000000]++
		hsum[c.Pop/1000000] += float64(c.Pop)
	}
	var pops []float64
	for _, c := range sel {
		pops = append(pops, float64(c.Pop))
	}
	s := statsOf(pops)
	slices.SortFunc(sel, func(a, b dsCity) int {
		if a.Pop != b.Pop {
			return cmp.Compare(b.Pop, a.Pop)
		}
		return strings.Compare(a.ID, b.ID)
	})
	if got, want := strings.Join(hitIDs(body), ","), sel[0].ID+","+sel[1].ID+","+sel[2].ID; got != want {
		t.Errorf("ids = %s, want %s", got, want)
	}
	checkNum(t, "sum", jsonPath(body, "aggregations.s.value"), s.sum, 1e-9)
	checkNum(t, "avg", jsonPath(body, "aggregations.a.value"), s.sum/float64(s.count), 1e-9)
	checkNum(t, "stats.count", jsonPath(body, "aggregations.st.count"), float64(s.count), 0)
	checkNum(t, "stats.sum", jsonPath(body, "aggregations.st.sum"), s.sum, 1e-9)
	checkNum(t, "value_count", jsonPath(body, "aggregations.vc.value"), float64(s.count), 0)
	checkNum(t, "max", jsonPath(body, "aggregations.mx.value"), s.max, 1e-9)
	for i, k := range []string{"BR", "AR"} { // BR has more cities
		b := jsonPath(body, fmt.Sprintf("aggregations.byc.buckets.%d", i))
		if bucketKey(b) != k {
			t.Fatalf("bucket %d = %s, want %s", i, str(b), k)
		}
		checkNum(t, k+".doc_count", jsonPath(b, "doc_count"), float64(counts[k]), 0)
		checkNum(t, k+".sum", jsonPath(b, "s.value"), sums[k], 1e-9)
		checkNum(t, k+".min", jsonPath(b, "mn.value"), mins[k], 1e-9)
	}
	hb, _ := jsonPath(body, "aggregations.h.buckets").([]any)
	if len(hb) != len(hist) {
		t.Errorf("histogram = %d buckets, want %d", len(hb), len(hist))
	}
	for _, b := range hb {
		k := int64(num(jsonPath(b, "key"))) / 1000000
		checkNum(t, fmt.Sprint("histogram ", k), jsonPath(b, "doc_count"), float64(hist[k]), 0)
		checkNum(t, fmt.Sprint("histogram sum ", k), jsonPath(b, "s.value"), hsum[k], 1e-9)
	}
	cst := statsOf(coords)
	checkNum(t, "coords sum", jsonPath(body, "aggregations.cs.value"), cst.sum, 1e-9)
	checkNum(t, "coords stats.count", jsonPath(body, "aggregations.csort.count"), float64(cst.count), 0)
	checkNum(t, "coords stats.sum", jsonPath(body, "aggregations.csort.sum"), cst.sum, 1e-9)
}

func (f *dsFixture) emailAggs(t *testing.T) {
	ms := f.mails
	body := f.search(t, "emails", `{"size":0,"aggs":{
		"m":{"date_histogram":{"field":"date","calendar_interval":"month","min_doc_count":1},"aggs":{"spam":{"filter":{"term":{"spam":true}}}}},
		"mtz":{"date_histogram":{"field":"date","calendar_interval":"1d","time_zone":"-05:00","min_doc_count":1,"format":"yyyy-MM-dd"}},
		"w":{"date_histogram":{"field":"date","fixed_interval":"7d","min_doc_count":1}},
		"dr":{"date_range":{"field":"date","format":"yyyy-MM","ranges":[{"to":"2002-07"},{"from":"2002-07","to":"2002-10"},{"from":"2002-10"}]}},
		"g":{"terms":{"field":"group"},"aggs":{"first":{"min":{"field":"date"}},"last":{"max":{"field":"date"}}}},
		"nodate":{"missing":{"field":"date"}},
		"spam":{"terms":{"field":"spam"}}}}`)
	month, day, week := map[int64]int64{}, map[string]int64{}, map[int64]int64{}
	monthSpam := map[int64]int64{}
	var dr [3]int64
	var groups, spam []string
	first, last := map[string]int64{}, map[string]int64{}
	var nodate int64
	tz := time.FixedZone("", -5*3600)
	b1, b2 := time.Date(2002, 7, 1, 0, 0, 0, 0, time.UTC), time.Date(2002, 10, 1, 0, 0, 0, 0, time.UTC)
	for _, e := range ms {
		groups = append(groups, e.Group)
		spam = append(spam, fmt.Sprint(e.Spam))
		if !e.HasDate {
			nodate++
			continue
		}
		d := e.Date
		mk := time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC).UnixMilli()
		month[mk]++
		if e.Spam {
			monthSpam[mk]++
		}
		day[d.In(tz).Format("2006-01-02")]++
		ms := d.UnixMilli()
		week[ms-((ms%(7*86400000))+7*86400000)%(7*86400000)]++
		switch {
		case d.Before(b1):
			dr[0]++
		case d.Before(b2):
			dr[1]++
		default:
			dr[2]++
		}
		if v, ok := first[e.Group]; !ok || ms < v {
			first[e.Group] = ms
		}
		if v, ok := last[e.Group]; !ok || ms > v {
			last[e.Group] = ms
		}
	}
	sortedKeys := func(m map[int64]int64) []kc {
		var ks []int64
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		var out []kc
		for _, k := range ks {
			out = append(out, kc{fmt.Sprintf("%g", float64(k)), m[k]})
		}
		return out
	}
	checkBuckets(t, "month", jsonPath(body, "aggregations.m.buckets"), sortedKeys(month))
	for _, b := range jsonPath(body, "aggregations.m.buckets").([]any) {
		checkNum(t, "month spam "+bucketKey(b), jsonPath(b, "spam.doc_count"), float64(monthSpam[int64(num(jsonPath(b, "key")))]), 0)
	}
	var dk []string
	for k := range day {
		dk = append(dk, k)
	}
	sort.Strings(dk)
	var gotDays, wantDays []string
	for _, b := range jsonPath(body, "aggregations.mtz.buckets").([]any) {
		gotDays = append(gotDays, fmt.Sprintf("%s:%d", jsonPath(b, "key_as_string"), int64(num(jsonPath(b, "doc_count")))))
	}
	for _, k := range dk {
		wantDays = append(wantDays, fmt.Sprintf("%s:%d", k, day[k]))
	}
	if strings.Join(gotDays, " ") != strings.Join(wantDays, " ") {
		t.Errorf("days in -05:00 =\n %s\nwant\n %s", strings.Join(head(gotDays, 20), " "), strings.Join(head(wantDays, 20), " "))
	}
	checkBuckets(t, "7d", jsonPath(body, "aggregations.w.buckets"), sortedKeys(week))
	checkBuckets(t, "date_range", jsonPath(body, "aggregations.dr.buckets"), []kc{{"*-2002-07", dr[0]}, {"2002-07-2002-10", dr[1]}, {"2002-10-*", dr[2]}})
	gw := countKeys(groups)
	checkBuckets(t, "groups", jsonPath(body, "aggregations.g.buckets"), gw)
	for i, g := range gw {
		b := jsonPath(body, fmt.Sprintf("aggregations.g.buckets.%d", i))
		checkNum(t, g.key+" first", jsonPath(b, "first.value"), float64(first[g.key]), 0)
		checkNum(t, g.key+" last", jsonPath(b, "last.value"), float64(last[g.key]), 0)
		if want := time.UnixMilli(last[g.key]).UTC().Format("2006-01-02T15:04:05.000Z"); jsonPath(b, "last.value_as_string") != want {
			t.Errorf("%s last.value_as_string = %v, want %s", g.key, jsonPath(b, "last.value_as_string"), want)
		}
	}
	checkNum(t, "missing date", jsonPath(body, "aggregations.nodate.doc_count"), float64(nodate), 0)
	var sp []kc
	for _, b := range countKeys(spam) {
		k := "0"
		if b.key == "true" {
			k = "1"
		}
		sp = append(sp, kc{k, b.count})
	}
	checkBuckets(t, "spam", jsonPath(body, "aggregations.spam.buckets"), sp)
}

// cityBadInput checks that bad search bodies on the loaded index fail
// with Elasticsearch's status, error type and reason, and change nothing.
func (f *dsFixture) cityBadInput(t *testing.T) {
	var clauses []string
	for i := 0; i < 1025; i++ {
		clauses = append(clauses, fmt.Sprintf(`{"term":{"id":"%d"}}`, i))
	}
	tests := []struct {
		name, index, body string
		status            int
		typ, rootType     string // typ "": not compared (too_many_buckets_exception, see below)
		reason            string // exact root_cause reason; "*" matches a number
	}{
		{"unknown query", "cities", `{"query":{"x":{}}}`, 400, "parsing_exception", "parsing_exception", "unknown query [x]"},
		{"unknown match parameter", "cities", `{"query":{"match":{"name":{"query":"a","bogus":1}}}}`, 400, "parsing_exception", "parsing_exception", "[match] query does not support [bogus]"},
		{"bool clause is a string", "cities", `{"query":{"bool":{"must":"x"}}}`, 400, "x_content_parse_exception", "x_content_parse_exception", "[bool] must doesn't support values of type: VALUE_STRING"},
		{"term with two fields", "cities", `{"query":{"term":{"country":"AT","id":"1"}}}`, 400, "parsing_exception", "parsing_exception", "[term] query doesn't support multiple fields, found [country] and [id]"},
		{"range on a long with text", "cities", `{"query":{"range":{"population":{"gte":"many"}}}}`, 400, "search_phase_execution_exception", "query_shard_exception", `failed to create query: For input string: "many"`},
		{"exploding regexp", "cities", `{"query":{"regexp":{"name.kw":{"value":".*a.{12}","max_determinized_states":1000}}}}`, 400, "search_phase_execution_exception", "too_complex_to_determinize_exception",
			"Determinizing automaton with * states and * transitions would result in more than 1000 states."},
		{"exploding regexp, default limit", "cities", `{"query":{"regexp":{"name.kw":".*a.{20}"}}}`, 400, "search_phase_execution_exception", "too_complex_to_determinize_exception",
			"Determinizing automaton with * states and * transitions would result in more than 10000 states."},
		{"terms aggregation on text", "cities", `{"size":0,"aggs":{"n":{"terms":{"field":"name"}}}}`, 400, "search_phase_execution_exception", "illegal_argument_exception",
			"Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [name] in order to load field data by uninverting the inverted index. Note that this can use significant memory."},
		{"too many buckets", "cities", `{"size":0,"aggs":{"h":{"histogram":{"field":"population","interval":1,"min_doc_count":0}}}}`, 400, "", "too_many_buckets_exception",
			"Trying to create too many buckets. Must be less than or equal to: [65535] but was [65536]. This limit can be set by changing the [search.max_buckets] cluster level setting."},
		{"extended_bounds outside hard_bounds", "cities", `{"size":0,"aggs":{"h":{"histogram":{"field":"population","interval":1000,"hard_bounds":{"min":0,"max":5000},"extended_bounds":{"min":0,"max":9000}}}}}`, 400, "search_phase_execution_exception", "illegal_argument_exception",
			"Extended bounds have to be inside hard bounds, hard bounds: [0.0--5000.0], extended bounds: [0.0--9000.0]"},
		{"date extended_bounds outside hard_bounds", "emails", `{"size":0,"aggs":{"h":{"date_histogram":{"field":"date","calendar_interval":"day","hard_bounds":{"min":"2010-01-01","max":"2020-01-01"},"extended_bounds":{"min":"2009-01-01","max":"2021-01-01"}}}}}`, 400, "search_phase_execution_exception", "illegal_argument_exception",
			"Extended bounds have to be inside hard bounds, hard bounds: [2010-01-01--2020-01-01], extended bounds: [2009-01-01--2021-01-01]"},
		{"too many clauses", "cities", `{"query":{"bool":{"should":[` + strings.Join(clauses, ",") + `]}}}`, 400, "search_phase_execution_exception", "too_many_clauses", "maxClauseCount is set to 1024"},
		{"max_result_window", "emails", `{"from":9995,"size":6}`, 400, "search_phase_execution_exception", "illegal_argument_exception",
			"Result window is too large, from + size must be less than or equal to: [10000] but was [10001]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting."},
		{"max_result_window raised by the index", "cities", `{"from":24990,"size":11}`, 400, "search_phase_execution_exception", "illegal_argument_exception",
			"Result window is too large, from + size must be less than or equal to: [25000] but was [25001]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.n.do("POST", "/"+tc.index+"/_search", "application/json", tc.body)
			if code != tc.status {
				t.Errorf("status = %d, want %d", code, tc.status)
			}
			// Shard-level failures are wrapped in a top-level
			// search_phase_execution_exception (checked in full); quarry
			// answers too_many_buckets_exception (raised while reducing)
			// directly, so only its root cause is compared.
			if got := jsonPath(body, "error.type"); tc.typ != "" && got != tc.typ {
				t.Errorf("error.type = %v, want %s\n%.600s", got, tc.typ, str(body))
			}
			if tc.typ == "search_phase_execution_exception" {
				checkAllShardsFailed(t, body)
			}
			if got := jsonPath(body, "error.root_cause.0.type"); got != tc.rootType {
				t.Errorf("root_cause type = %v, want %s\n%.600s", got, tc.rootType, str(body))
			}
			got, _ := jsonPath(body, "error.root_cause.0.reason").(string)
			if !regexp.MustCompile(`^` + strings.ReplaceAll(regexp.QuoteMeta(tc.reason), `\*`, `[0-9]+`) + `$`).MatchString(got) {
				t.Errorf("reason = %q\nwant     %q", got, tc.reason)
			}
		})
	}
	// nothing was written or broken: the index still answers its count
	if _, body := f.n.do("GET", "/cities/_count", "", ""); int(num(body["count"])) != len(f.cities) {
		t.Errorf("count after bad input = %v, want %d", body["count"], len(f.cities))
	}
}

// cityPipelineGaps checks the gap policies of derivative and the sibling
// pipelines on a histogram with empty buckets: as in Elasticsearch
// (BucketHelpers.resolveBucketValue) a bucket without documents is a gap for
// skip and insert_zeros even though its sum is 0, keep_values keeps that 0,
// and a derivative next to a gap is null.
func (f *dsFixture) cityPipelineGaps(t *testing.T) {
	const width = 100000
	counts, sums := map[int64]int64{}, map[int64]float64{}
	var maxBin int64
	for _, c := range f.cities {
		if c.Country != "AT" && c.Country != "CH" {
			continue
		}
		k := c.Pop / width
		counts[k]++
		sums[k] += float64(c.Pop)
		maxBin = max(maxBin, k)
	}
	body := f.search(t, "cities", `{"size":0,"query":{"terms":{"country":["AT","CH"]}},"aggs":{
		"h":{"histogram":{"field":"population","interval":100000},"aggs":{
			"s":{"sum":{"field":"population"}},
			"d":{"derivative":{"buckets_path":"s"}},
			"dz":{"derivative":{"buckets_path":"s","gap_policy":"insert_zeros"}},
			"dc":{"derivative":{"buckets_path":"_count"}},
			"cs":{"cumulative_sum":{"buckets_path":"s"}}}},
		"avg":{"avg_bucket":{"buckets_path":"h>s"}},
		"avgz":{"avg_bucket":{"buckets_path":"h>s","gap_policy":"insert_zeros"}},
		"min":{"min_bucket":{"buckets_path":"h>s"}},
		"mink":{"min_bucket":{"buckets_path":"h>s","gap_policy":"keep_values"}},
		"st":{"stats_bucket":{"buckets_path":"h>s"}},
		"stc":{"stats_bucket":{"buckets_path":"h>_count"}},
		"maxd":{"max_bucket":{"buckets_path":"h>d"}}}}`)
	hb, _ := jsonPath(body, "aggregations.h.buckets").([]any)
	if int64(len(hb)) != maxBin+1 {
		t.Fatalf("histogram = %d buckets, want %d", len(hb), maxBin+1)
	}
	var empty []string
	var nonEmpty, total, cum float64
	minSum, maxDeriv := math.Inf(1), math.Inf(-1)
	var minKeys, maxDerivKeys []string
	for k := int64(0); k <= maxBin; k++ {
		b := hb[k]
		key := fmt.Sprintf("%d.0", k*width)
		cum += sums[k]
		checkNum(t, key+" doc_count", jsonPath(b, "doc_count"), float64(counts[k]), 0)
		checkNum(t, key+" cumulative_sum", jsonPath(b, "cs.value"), cum, 1e-12)
		if counts[k] == 0 {
			empty = append(empty, key)
		} else {
			nonEmpty++
			total += sums[k]
			if sums[k] < minSum {
				minSum, minKeys = sums[k], nil
			}
			if sums[k] == minSum {
				minKeys = append(minKeys, key)
			}
		}
		if k == 0 {
			for _, p := range []string{"d", "dz", "dc"} {
				if v := jsonPath(b, p); v != nil {
					t.Errorf("%s on the first bucket = %s", p, str(v))
				}
			}
			continue
		}
		if counts[k] == 0 || counts[k-1] == 0 {
			if got := str(jsonPath(b, "d")); got != `{"value":null}` {
				t.Errorf("%s derivative next to a gap = %s, want {\"value\":null}", key, got)
			}
		} else {
			d := sums[k] - sums[k-1]
			checkNum(t, key+" derivative", jsonPath(b, "d.value"), d, 1e-12)
			if d > maxDeriv {
				maxDeriv, maxDerivKeys = d, nil
			}
			if d == maxDeriv {
				maxDerivKeys = append(maxDerivKeys, key)
			}
		}
		checkNum(t, key+" derivative insert_zeros", jsonPath(b, "dz.value"), sums[k]-sums[k-1], 1e-12)
		checkNum(t, key+" derivative _count", jsonPath(b, "dc.value"), float64(counts[k]-counts[k-1]), 0)
	}
	if len(empty) == 0 {
		t.Fatal("the case has no empty bucket")
	}
	checkNum(t, "avg_bucket skip", jsonPath(body, "aggregations.avg.value"), total/nonEmpty, 1e-12)
	checkNum(t, "avg_bucket insert_zeros", jsonPath(body, "aggregations.avgz.value"), total/float64(maxBin+1), 1e-12)
	checkNum(t, "min_bucket skip", jsonPath(body, "aggregations.min.value"), minSum, 0)
	if got := str(jsonPath(body, "aggregations.min.keys")); got != str(minKeys) {
		t.Errorf("min_bucket keys = %s, want %s", got, str(minKeys))
	}
	checkNum(t, "min_bucket keep_values", jsonPath(body, "aggregations.mink.value"), 0, 0)
	if got := str(jsonPath(body, "aggregations.mink.keys")); got != str(empty) {
		t.Errorf("min_bucket keep_values keys = %s, want %s", got, str(empty))
	}
	checkNum(t, "stats_bucket.count", jsonPath(body, "aggregations.st.count"), nonEmpty, 0)
	checkNum(t, "stats_bucket.sum", jsonPath(body, "aggregations.st.sum"), total, 1e-12)
	checkNum(t, "stats_bucket(_count).count", jsonPath(body, "aggregations.stc.count"), float64(maxBin+1), 0)
	checkNum(t, "stats_bucket(_count).min", jsonPath(body, "aggregations.stc.min"), 0, 0)
	checkNum(t, "max_bucket of a derivative", jsonPath(body, "aggregations.maxd.value"), maxDeriv, 1e-12)
	if got := str(jsonPath(body, "aggregations.maxd.keys")); got != str(maxDerivKeys) {
		t.Errorf("max_bucket of a derivative keys = %s, want %s", got, str(maxDerivKeys))
	}
}

// cityMaxBuckets checks that search.max_buckets is read from the cluster
// settings (transient over persistent) and that resetting it restores
// Elasticsearch's default of 65,535.
func (f *dsFixture) cityMaxBuckets(t *testing.T) {
	bins := map[int64]bool{}
	for _, c := range f.cities {
		if c.Country == "AT" {
			bins[c.Pop/100000] = true
		}
	}
	var maxBin int64
	for k := range bins {
		maxBin = max(maxBin, k)
	}
	if maxBin+1 <= 5 {
		t.Fatalf("the case needs more than 5 buckets, has %d", maxBin+1)
	}
	q := `{"size":0,"query":{"term":{"country":"AT"}},"aggs":{"h":{"histogram":{"field":"population","interval":100000}}}}`
	set := func(scope, v string) {
		t.Helper()
		if code, body := f.n.do("PUT", "/_cluster/settings", "application/json", `{"`+scope+`":{"search.max_buckets":`+v+`}}`); code != 200 {
			t.Fatalf("set %s search.max_buckets=%s: %d %s", scope, v, code, str(body))
		}
	}
	defer set("transient", "null")
	defer set("persistent", "null")
	for _, tc := range []struct {
		scope, value string
		limit        int
	}{{"persistent", "7", 7}, {"transient", "5", 5}} {
		set(tc.scope, tc.value)
		code, body := f.n.do("POST", "/cities/_search", "application/json", q)
		want := fmt.Sprintf("Trying to create too many buckets. Must be less than or equal to: [%d] but was [%d]. This limit can be set by changing the [search.max_buckets] cluster level setting.", tc.limit, tc.limit+1)
		if code != 400 || jsonPath(body, "error.root_cause.0.type") != "too_many_buckets_exception" || jsonPath(body, "error.root_cause.0.reason") != want {
			t.Errorf("%s limit %d: %d %.500s\nwant reason %s", tc.scope, tc.limit, code, str(body), want)
		}
		if got := num(jsonPath(body, "error.root_cause.0.max_buckets")); got != float64(tc.limit) {
			t.Errorf("max_buckets = %v, want %d", got, tc.limit)
		}
	}
	// 0 is a real limit, not "use the default": any multi-bucket
	// aggregation fails on its first bucket, while single-bucket (filter,
	// missing, global) and metric aggregations consume none in ES's reduce.
	// terms consume one bucket at a time, range all its ranges at once.
	var atCount int64
	for _, c := range f.cities {
		if c.Country == "AT" {
			atCount++
		}
	}
	set("transient", "0")
	for _, tc := range []struct {
		name, aggs   string
		limit, count int
	}{
		{"terms", `{"t":{"terms":{"field":"country"}}}`, 0, 1},
		{"histogram", `{"h":{"histogram":{"field":"population","interval":100000}}}`, 0, 1},
		{"terms under a filter", `{"f":{"filter":{"match_all":{}},"aggs":{"t":{"terms":{"field":"feature_code"}}}}}`, 0, 1},
		{"range", `{"r":{"range":{"field":"population","ranges":[{"to":10},{"from":10,"to":20},{"from":20}]}}}`, 0, 3},
	} {
		code, body := f.n.do("POST", "/cities/_search", "application/json", `{"size":0,"query":{"term":{"country":"AT"}},"aggs":`+tc.aggs+`}`)
		want := fmt.Sprintf("Trying to create too many buckets. Must be less than or equal to: [%d] but was [%d]. This limit can be set by changing the [search.max_buckets] cluster level setting.", tc.limit, tc.count)
		if code != 400 || jsonPath(body, "error.root_cause.0.type") != "too_many_buckets_exception" || jsonPath(body, "error.root_cause.0.reason") != want {
			t.Errorf("max_buckets 0, %s: %d %.500s\nwant reason %s", tc.name, code, str(body), want)
		}
	}
	body := f.search(t, "cities", `{"size":0,"query":{"term":{"country":"AT"}},"aggs":{"f":{"filter":{"match_all":{}},"aggs":{"m":{"missing":{"field":"admin_code"}},"c":{"value_count":{"field":"population"}}}},"g":{"global":{}}}}`)
	checkNum(t, "max_buckets 0: filter doc_count", jsonPath(body, "aggregations.f.doc_count"), float64(atCount), 0)
	checkNum(t, "max_buckets 0: value_count", jsonPath(body, "aggregations.f.c.value"), float64(atCount), 0)
	checkNum(t, "max_buckets 0: global doc_count", jsonPath(body, "aggregations.g.doc_count"), float64(len(f.cities)), 0)
	set("transient", "2")
	code, body := f.n.do("POST", "/cities/_search", "application/json", `{"size":0,"query":{"term":{"country":"AT"}},"aggs":{"t":{"terms":{"field":"feature_code"}}}}`)
	if want := "Trying to create too many buckets. Must be less than or equal to: [2] but was [3]. This limit can be set by changing the [search.max_buckets] cluster level setting."; code != 400 || jsonPath(body, "error.root_cause.0.reason") != want {
		t.Errorf("max_buckets 2, terms: %d %.500s\nwant reason %s", code, str(body), want)
	}
	set("transient", "null")
	set("persistent", "null")
	body = f.search(t, "cities", q)
	if hb, _ := jsonPath(body, "aggregations.h.buckets").([]any); int64(len(hb)) != maxBin+1 {
		t.Errorf("after reset: %d buckets, want %d", len(hb), maxBin+1)
	}
}

// cityNumericFormat checks the DecimalFormat "format" of numeric
// aggregations: ES renders *_as_string members (and formatted histogram,
// terms and range keys) next to the raw values.
func (f *dsFixture) cityNumericFormat(t *testing.T) {
	var pops []float64
	bins, terms := map[int64]int64{}, map[int64]int64{}
	var below int64
	for _, c := range f.cities {
		if c.Country != "AT" {
			continue
		}
		pops = append(pops, float64(c.Pop))
		bins[c.Pop/100000]++
		terms[c.Pop]++
		if c.Pop < 1000 {
			below++
		}
	}
	s := statsOf(pops)
	var oneID string
	var onePopV int64
	for _, c := range f.cities {
		if c.Country == "AT" {
			oneID, onePopV = c.ID, c.Pop
			break
		}
	}
	body := f.search(t, "cities", `{"size":0,"query":{"term":{"country":"AT"}},"aggs":{
		"s":{"sum":{"field":"population","format":"0.00"}},
		"a":{"avg":{"field":"population","format":"0.0"}},
		"st":{"stats":{"field":"population","format":"0"}},
		"h":{"histogram":{"field":"population","interval":100000,"min_doc_count":1,"format":"0"},"aggs":{
			"c":{"cumulative_sum":{"buckets_path":"_count","format":"000"}}}},
		"t":{"terms":{"field":"population","size":3,"shard_size":10000,"format":"00000000"}},
		"r":{"range":{"field":"population","format":"0.0","ranges":[{"to":1000}]}},
		"p":{"percentiles":{"field":"population","percents":[50],"keyed":false,"format":"0.0"}},
		"sb":{"sum_bucket":{"buckets_path":"h>_count","format":"0.0"}},
		"es":{"extended_stats":{"field":"population","format":"0.00","sigma":1.5}},
		"one":{"filter":{"ids":{"values":["`+oneID+`"]}},"aggs":{"es":{"extended_stats":{"field":"population","format":"0.0"}}}}}}`)
	ff := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	// extended_stats: every member gets its *_as_string, in ES's order
	// (the stats ones after sum, the extended ones after the bounds)
	n := float64(s.count)
	avg := s.sum / n
	varPop := s.sumSquares/n - avg*avg
	varSamp := varPop * n / (n - 1)
	sdPop, sdSamp := math.Sqrt(varPop), math.Sqrt(varSamp)
	esWant := map[string]string{
		"min_as_string": ff(s.min, 2), "max_as_string": ff(s.max, 2), "avg_as_string": ff(avg, 2), "sum_as_string": ff(s.sum, 2),
		"sum_of_squares_as_string": ff(s.sumSquares, 2), "variance_as_string": ff(varPop, 2),
		"variance_population_as_string": ff(varPop, 2), "variance_sampling_as_string": ff(varSamp, 2),
		"std_deviation_as_string": ff(sdPop, 2), "std_deviation_population_as_string": ff(sdPop, 2),
		"std_deviation_sampling_as_string":     ff(sdSamp, 2),
		"std_deviation_bounds_as_string.upper": ff(avg+1.5*sdPop, 2), "std_deviation_bounds_as_string.lower": ff(avg-1.5*sdPop, 2),
		"std_deviation_bounds_as_string.upper_population": ff(avg+1.5*sdPop, 2), "std_deviation_bounds_as_string.lower_population": ff(avg-1.5*sdPop, 2),
		"std_deviation_bounds_as_string.upper_sampling": ff(avg+1.5*sdSamp, 2), "std_deviation_bounds_as_string.lower_sampling": ff(avg-1.5*sdSamp, 2),
	}
	for path, w := range esWant {
		if got := jsonPath(body, "aggregations.es."+path); got != w {
			t.Errorf("extended_stats %s = %v, want %q", path, got, w)
		}
	}
	esMembers := func(raw []byte) []string {
		var m struct {
			Aggregations struct {
				Es json.RawMessage `json:"es"`
			} `json:"aggregations"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(m.Aggregations.Es))
		var keys []string
		if _, err := dec.Token(); err != nil { // {
			t.Fatal(err)
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k.(string))
		}
		return keys
	}
	_, rawES := f.n.raw("POST", "/cities/_search", "application/json", `{"size":0,"query":{"term":{"country":"AT"}},"aggs":{"es":{"extended_stats":{"field":"population","format":"0.00"}}}}`)
	if got, w := strings.Join(esMembers(rawES), ","), "count,min,max,avg,sum,min_as_string,max_as_string,avg_as_string,sum_as_string,"+
		"sum_of_squares,variance,variance_population,variance_sampling,std_deviation,std_deviation_population,std_deviation_sampling,std_deviation_bounds,"+
		"sum_of_squares_as_string,variance_as_string,variance_population_as_string,variance_sampling_as_string,"+
		"std_deviation_as_string,std_deviation_population_as_string,std_deviation_sampling_as_string,std_deviation_bounds_as_string"; got != w {
		t.Errorf("extended_stats members:\n got  %s\n want %s", got, w)
	}
	// one value: the sampling variance divides by zero (NaN, DecimalFormat "NaN")
	onePop := ff(float64(onePopV), 1)
	for path, w := range map[string]string{
		"min_as_string": onePop, "sum_as_string": onePop, "variance_as_string": "0.0", "std_deviation_as_string": "0.0",
		"variance_sampling_as_string": "NaN", "std_deviation_sampling_as_string": "NaN",
		"std_deviation_bounds_as_string.upper": onePop, "std_deviation_bounds_as_string.upper_sampling": "NaN",
	} {
		if got := jsonPath(body, "aggregations.one.es."+path); got != w {
			t.Errorf("one-value extended_stats %s = %v, want %q", path, got, w)
		}
	}
	want := map[string]string{
		"s.value_as_string":          ff(s.sum, 2),
		"a.value_as_string":          ff(s.sum/float64(s.count), 1),
		"st.min_as_string":           ff(s.min, 0),
		"st.max_as_string":           ff(s.max, 0),
		"st.sum_as_string":           ff(s.sum, 0),
		"r.buckets.0.key":            "*-1000.0",
		"r.buckets.0.to_as_string":   "1000.0",
		"sb.value_as_string":         ff(float64(s.count), 1),
		"p.values.0.value_as_string": ff(num(jsonPath(body, "aggregations.p.values.0.value")), 1),
	}
	for path, w := range want {
		if got := jsonPath(body, "aggregations."+path); got != w {
			t.Errorf("%s = %v, want %q", path, got, w)
		}
	}
	checkNum(t, "range doc_count", jsonPath(body, "aggregations.r.buckets.0.doc_count"), float64(below), 0)
	var keys []int64
	for k := range bins {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	hb, _ := jsonPath(body, "aggregations.h.buckets").([]any)
	if len(hb) != len(keys) {
		t.Fatalf("histogram = %d buckets, want %d", len(hb), len(keys))
	}
	var cum int64
	for i, k := range keys {
		cum += bins[k]
		b := hb[i]
		if got, w := jsonPath(b, "key_as_string"), fmt.Sprint(k*100000); got != w {
			t.Errorf("histogram key_as_string = %v, want %s", got, w)
		}
		if got, w := jsonPath(b, "c.value_as_string"), fmt.Sprintf("%03d", cum); got != w {
			t.Errorf("cumulative_sum value_as_string = %v, want %s", got, w)
		}
	}
	tw := byCount(func() map[string]int64 {
		m := map[string]int64{}
		for p, n := range terms {
			m[fmt.Sprintf("%08d", p)] = n
		}
		return m
	}())[:3]
	for i, w := range tw {
		b := jsonPath(body, fmt.Sprintf("aggregations.t.buckets.%d", i))
		p, _ := strconv.ParseInt(w.key, 10, 64)
		if jsonPath(b, "key_as_string") != w.key || num(jsonPath(b, "key")) != float64(p) || int64(num(jsonPath(b, "doc_count"))) != w.count {
			t.Errorf("terms bucket %d = %s, want key %d key_as_string %s doc_count %d", i, str(b), p, w.key, w.count)
		}
	}
}

// cityTermsOrderPaths orders terms buckets by sub-aggregation paths: a
// multi-value metric's key (st.avg), paths through a single-bucket filter
// (an empty max orders as -Infinity, as in ES) and a list of criteria.
func (f *dsFixture) cityTermsOrderPaths(t *testing.T) {
	type agg struct {
		n        int64
		sum      float64
		bigMax   float64
		hasBig   bool
		features map[string]bool
	}
	by := map[string]*agg{}
	for _, c := range f.cities {
		a := by[c.Country]
		if a == nil {
			a = &agg{features: map[string]bool{}}
			by[c.Country] = a
		}
		a.n++
		a.sum += float64(c.Pop)
		a.features[c.Feature] = true
		if c.Pop >= 100000 {
			a.bigMax, a.hasBig = math.Max(a.bigMax, float64(c.Pop)), true
		}
	}
	var keys []string
	for k := range by {
		keys = append(keys, k)
	}
	body := f.search(t, "cities", `{"size":0,"aggs":{
		"avg":{"terms":{"field":"country","size":500,"order":{"st.avg":"asc"}},"aggs":{"st":{"stats":{"field":"population"}}}},
		"big":{"terms":{"field":"country","size":500,"order":{"b>mx":"desc"}},"aggs":{"b":{"filter":{"range":{"population":{"gte":100000}}},"aggs":{"mx":{"max":{"field":"population"}}}}}},
		"bigAsc":{"terms":{"field":"country","size":500,"order":{"b>st.max":"asc"}},"aggs":{"b":{"filter":{"range":{"population":{"gte":100000}}},"aggs":{"st":{"stats":{"field":"population"}}}}}},
		"multi":{"terms":{"field":"country","size":500,"order":[{"fc":"desc"},{"_count":"asc"},{"_key":"desc"}]},"aggs":{"fc":{"cardinality":{"field":"feature_code"}}}}}}`)
	check := func(name string, less func(a, b string) int) {
		t.Helper()
		want := slices.Clone(keys)
		slices.SortStableFunc(want, less)
		var got []string
		for _, b := range jsonPath(body, "aggregations."+name+".buckets").([]any) {
			got = append(got, bucketKey(b))
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s order =\n %s\nwant\n %s", name, strings.Join(head(got, 30), ","), strings.Join(head(want, 30), ","))
		}
	}
	// ties fall back to the key ascending, as in ES
	check("avg", func(a, b string) int {
		if c := cmp.Compare(by[a].sum/float64(by[a].n), by[b].sum/float64(by[b].n)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	check("big", func(a, b string) int {
		x, y := by[a], by[b]
		switch {
		case x.hasBig != y.hasBig:
			if x.hasBig {
				return -1
			}
			return 1
		case x.bigMax != y.bigMax:
			return cmp.Compare(y.bigMax, x.bigMax)
		}
		return strings.Compare(a, b)
	})
	// an empty max orders as -Infinity (MaxAggregator's initial value), so
	// countries without a big city come first in ascending order
	check("bigAsc", func(a, b string) int {
		x, y := by[a].bigMax, by[b].bigMax
		if !by[a].hasBig {
			x = math.Inf(-1)
		}
		if !by[b].hasBig {
			y = math.Inf(-1)
		}
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	check("multi", func(a, b string) int {
		if c := cmp.Compare(len(by[b].features), len(by[a].features)); c != 0 {
			return c
		}
		if c := cmp.Compare(by[a].n, by[b].n); c != 0 {
			return c
		}
		return strings.Compare(b, a)
	})
}
