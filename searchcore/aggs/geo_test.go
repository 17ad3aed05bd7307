package aggs_test

import (
	"math"
	"sort"
	"strconv"
	"testing"
)

func loc(d map[string]any) (lon, lat float64, ok bool) {
	m, ok := d["location"].(map[string]any)
	if !ok {
		return 0, 0, false
	}
	lat, _ = m["lat"].(float64)
	lon, _ = m["lon"].(float64)
	return lon, lat, true
}

// refGeohash computes a geohash from integer cell indexes (test-side).
func refGeohash(lon, lat float64, precision int) string {
	bits := precision * 5
	lonBits, latBits := (bits+1)/2, bits/2
	x := uint64(math.Floor((lon + 180) / 360 * math.Exp2(float64(lonBits))))
	y := uint64(math.Floor((lat + 90) / 180 * math.Exp2(float64(latBits))))
	var code uint64
	for i := 0; i < bits; i++ {
		var b uint64
		if i%2 == 0 {
			b = x >> (lonBits - 1 - i/2) & 1
		} else {
			b = y >> (latBits - 1 - i/2) & 1
		}
		code = code<<1 | b
	}
	const chars = "0123456789bcdefghjkmnpqrstuvwxyz"
	out := make([]byte, precision)
	for i := precision - 1; i >= 0; i-- {
		out[i] = chars[code&31]
		code >>= 5
	}
	return string(out)
}

func TestGeo(t *testing.T) {
	f := cities(t)
	top, bottom := math.Inf(-1), math.Inf(1)
	minLon, maxLon := math.Inf(1), math.Inf(-1)
	var latSum, lonSum float64
	var n int64
	hashes := map[string]int64{}
	tiles := map[string]int64{}
	for _, d := range f.docs {
		lon, lat, ok := loc(d)
		if !ok {
			continue
		}
		n++
		top, bottom = math.Max(top, lat), math.Min(bottom, lat)
		minLon, maxLon = math.Min(minLon, lon), math.Max(maxLon, lon)
		latSum += lat
		lonSum += lon
		hashes[refGeohash(lon, lat, 2)]++
		z := 3.0
		x := math.Floor((lon + 180) / 360 * math.Exp2(z))
		latR := lat * math.Pi / 180
		y := math.Floor((1 - math.Log(math.Tan(latR)+1/math.Cos(latR))/math.Pi) / 2 * math.Exp2(z))
		tiles["3/"+strconv.Itoa(int(x))+"/"+strconv.Itoa(int(y))]++
	}
	res := f.mustRun(t, `{"b":{"geo_bounds":{"field":"location","wrap_longitude":false}},
		"c":{"geo_centroid":{"field":"location"}},
		"g":{"geohash_grid":{"field":"location","precision":2,"size":5}},
		"t":{"geotile_grid":{"field":"location","precision":3}},
		"empty":{"terms":{"field":"country","include":["ZZ"]},"aggs":{"b":{"geo_bounds":{"field":"location"}}}}}`, opts{})
	near := func(what string, got any, want float64) {
		t.Helper()
		if g := num(t, got); math.Abs(g-want) > 1e-6 {
			t.Errorf("%s = %v, want %v", what, g, want)
		}
	}
	near("top", get(t, res, "b.bounds.top_left.lat"), top)
	near("left", get(t, res, "b.bounds.top_left.lon"), minLon)
	near("bottom", get(t, res, "b.bounds.bottom_right.lat"), bottom)
	near("right", get(t, res, "b.bounds.bottom_right.lon"), maxLon)
	near("centroid lat", get(t, res, "c.location.lat"), latSum/float64(n))
	near("centroid lon", get(t, res, "c.location.lon"), lonSum/float64(n))
	eqInt(t, "centroid count", get(t, res, "c.count"), n)
	type kc struct {
		k string
		c int64
	}
	top5 := func(m map[string]int64, size int) []kc {
		var out []kc
		for k, c := range m {
			out = append(out, kc{k, c})
		}
		sort.Slice(out, func(i, j int) bool {
			if out[i].c != out[j].c {
				return out[i].c > out[j].c
			}
			return out[i].k < out[j].k
		})
		if len(out) > size {
			out = out[:size]
		}
		return out
	}
	for i, w := range top5(hashes, 5) {
		b := get(t, res, "g.buckets."+strconv.Itoa(i))
		if get(t, b, "key") != w.k {
			t.Errorf("geohash %d = %v, want %s", i, get(t, b, "key"), w.k)
		}
		eqInt(t, "geohash count", get(t, b, "doc_count"), w.c)
	}
	want := top5(tiles, 10000)
	tb := get(t, res, "t.buckets").([]any)
	if len(tb) != len(want) {
		t.Fatalf("%d tiles, want %d", len(tb), len(want))
	}
	for i, w := range want {
		if get(t, tb[i], "key") != w.k {
			t.Errorf("tile %d = %v, want %s", i, get(t, tb[i], "key"), w.k)
		}
		eqInt(t, "tile count", get(t, tb[i], "doc_count"), w.c)
	}
}

func TestGeoBoundsWrap(t *testing.T) {
	f := cities(t)
	// Fiji-like spread: points on both sides of the dateline in one country
	// are rare in the first 20k docs, so check the rule on AU+NZ-free data:
	// with wrap_longitude the box never gets wider than without it.
	res := f.mustRun(t, `{"w":{"geo_bounds":{"field":"location"}},"nw":{"geo_bounds":{"field":"location","wrap_longitude":false}}}`, opts{})
	wl, wr := num(t, get(t, res, "w.bounds.top_left.lon")), num(t, get(t, res, "w.bounds.bottom_right.lon"))
	nl, nr := num(t, get(t, res, "nw.bounds.top_left.lon")), num(t, get(t, res, "nw.bounds.bottom_right.lon"))
	width := func(l, r float64) float64 {
		if l <= r {
			return r - l
		}
		return 360 - (l - r)
	}
	if width(wl, wr) > width(nl, nr) {
		t.Errorf("wrapped box [%v,%v] wider than unwrapped [%v,%v]", wl, wr, nl, nr)
	}
}
