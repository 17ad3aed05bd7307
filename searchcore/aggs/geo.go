package aggs

import (
	"math"
	"sort"
	"strconv"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/numeric"
	"github.com/blugelabs/bluge/search"

	"github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/mapping"
)

// geoSource reads a geo_point field's doc values.
type geoSource struct{ field string }

func newGeoSource(cm *ctxMapping, p *params) (*geoSource, error) {
	field, err := p.str("field", "")
	if err != nil {
		return nil, err
	}
	if field == "" {
		return nil, eserr.IllegalArgument("Required one of fields [field, script], but none were specified.")
	}
	f := cm.lookup(field)
	if f == nil {
		return &geoSource{}, nil
	}
	if f.Type != mapping.TypeGeoPoint {
		if f.Type == mapping.TypeText {
			return nil, eserr.IllegalArgument("Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [%s] in order to load field data by uninverting the inverted index. Note that this can use significant memory.", field)
		}
		return nil, eserr.IllegalArgument("Field [%s] of type [%s] is not supported for aggregation [%s]", field, f.Type, p.typ)
	}
	return &geoSource{field: field}, nil
}

func (g *geoSource) fields() []string {
	if g.field == "" {
		return nil
	}
	return []string{g.field}
}

// points calls fn for each of the document's points.
func (g *geoSource) points(d *search.DocumentMatch, fn func(lon, lat float64)) {
	if g.field == "" {
		return
	}
	for _, t := range d.DocValues(g.field) {
		if shift, err := numeric.PrefixCoded(t).Shift(); err != nil || shift != 0 {
			continue
		}
		lon, lat, err := bluge.DecodeGeoLonLat(t)
		if err == nil {
			fn(lon, lat)
		}
	}
}

// geoMetricImpl is geo_bounds and geo_centroid.
type geoMetricImpl struct {
	typ  string
	src  *geoSource
	wrap bool
}

func (geoMetricImpl) isMetric() {}

func (m *geoMetricImpl) fields() []string { return m.src.fields() }
func (m *geoMetricImpl) typedKey() string { return m.typ }

func newGeoMetric(cm *ctxMapping, p *params) (impl, error) {
	src, err := newGeoSource(cm, p)
	if err != nil {
		return nil, err
	}
	m := &geoMetricImpl{typ: p.typ, src: src}
	if p.typ == "geo_bounds" {
		if m.wrap, err = p.boolean("wrap_longitude", true); err != nil {
			return nil, err
		}
	}
	return m, nil
}

type geoMetricColl struct {
	m                                    *geoMetricImpl
	top, bottom                          float64
	posLeft, posRight, negLeft, negRight float64
	count                                int64
	latSum, latC, lonSum, lonC           float64
}

func (m *geoMetricImpl) newColl(*node, *env) coll {
	inf := math.Inf(1)
	return &geoMetricColl{m: m, top: -inf, bottom: inf, posLeft: inf, posRight: -inf, negLeft: inf, negRight: -inf}
}

func (c *geoMetricColl) add(lon, lat float64) {
	c.count++
	c.top = math.Max(c.top, lat)
	c.bottom = math.Min(c.bottom, lat)
	if lon >= 0 {
		c.posLeft = math.Min(c.posLeft, lon)
		c.posRight = math.Max(c.posRight, lon)
	} else {
		c.negLeft = math.Min(c.negLeft, lon)
		c.negRight = math.Max(c.negRight, lon)
	}
	c.latSum, c.latC = kahan(c.latSum, c.latC, lat)
	c.lonSum, c.lonC = kahan(c.lonSum, c.lonC, lon)
}

func (c *geoMetricColl) collect(d *search.DocumentMatch) { c.m.src.points(d, c.add) }

func (c *geoMetricColl) merge(o coll) {
	x := o.(*geoMetricColl)
	c.count += x.count
	c.top, c.bottom = math.Max(c.top, x.top), math.Min(c.bottom, x.bottom)
	c.posLeft, c.posRight = math.Min(c.posLeft, x.posLeft), math.Max(c.posRight, x.posRight)
	c.negLeft, c.negRight = math.Min(c.negLeft, x.negLeft), math.Max(c.negRight, x.negRight)
	c.latSum, c.latC = kahan(c.latSum, c.latC, x.latSum)
	c.lonSum, c.lonC = kahan(c.lonSum, c.lonC, x.lonSum)
}

func (c *geoMetricColl) result(*node, *reducer) (result, error) { return c, nil }

// box is InternalGeoBounds.resolveBoundingBox: left/right crossing the
// dateline when that gives the narrower box.
func (c *geoMetricColl) box() (left, right float64) {
	switch {
	case math.IsInf(c.posLeft, 1):
		return c.negLeft, c.negRight
	case math.IsInf(c.negLeft, 1):
		return c.posLeft, c.posRight
	case c.m.wrap:
		unwrapped := c.posRight - c.negLeft
		wrapped := (180 - c.posLeft) - (-180 - c.negRight)
		if unwrapped <= wrapped {
			return c.negLeft, c.posRight
		}
		return c.posLeft, c.negRight
	}
	return c.negLeft, c.posRight
}

func (c *geoMetricColl) metric(name string) (float64, bool) {
	if c.count == 0 {
		return 0, false
	}
	l, r := c.box()
	switch name {
	case "top":
		return c.top, c.m.typ == "geo_bounds"
	case "bottom":
		return c.bottom, c.m.typ == "geo_bounds"
	case "left":
		return l, c.m.typ == "geo_bounds"
	case "right":
		return r, c.m.typ == "geo_bounds"
	case "lat":
		return c.latSum / float64(c.count), c.m.typ == "geo_centroid"
	case "lon":
		return c.lonSum / float64(c.count), c.m.typ == "geo_centroid"
	case "count":
		return float64(c.count), true
	}
	return 0, false
}

func (c *geoMetricColl) write(w *jw, _ *node, _ *reducer) {
	point := func(k string, lat, lon float64) {
		w.key(k)
		w.begin('{')
		w.kv("lat", lat)
		w.kv("lon", lon)
		w.end('}')
	}
	if c.m.typ == "geo_centroid" {
		if c.count > 0 {
			point("location", c.latSum/float64(c.count), c.lonSum/float64(c.count))
		}
		w.kv("count", c.count)
		return
	}
	if c.count == 0 {
		return
	}
	l, r := c.box()
	w.key("bounds")
	w.begin('{')
	point("top_left", c.top, l)
	point("bottom_right", c.bottom, r)
	w.end('}')
}

// gridImpl is geohash_grid and geotile_grid.
type gridImpl struct {
	typ       string
	src       *geoSource
	precision int
	size      int
	shardSize int
}

func (m *gridImpl) fields() []string { return m.src.fields() }
func (m *gridImpl) typedKey() string { return m.typ }

func newGrid(cm *ctxMapping, p *params) (impl, error) {
	src, err := newGeoSource(cm, p)
	if err != nil {
		return nil, err
	}
	m := &gridImpl{typ: p.typ, src: src}
	def, maxP := 5, 12
	if p.typ == "geotile_grid" {
		def, maxP = 7, 29
	}
	if m.precision, err = p.integer("precision", def); err != nil {
		return nil, err
	}
	if p.typ == "geohash_grid" && (m.precision < 1 || m.precision > maxP) {
		return nil, eserr.IllegalArgument("Invalid geohash aggregation precision of %d. Must be between 1 and 12.", m.precision)
	}
	if p.typ == "geotile_grid" && (m.precision < 0 || m.precision > maxP) {
		return nil, eserr.IllegalArgument("Invalid geotile_grid precision of %d. Must be between 0 and 29.", m.precision)
	}
	if m.size, err = p.integer("size", 10000); err != nil {
		return nil, err
	}
	if m.size <= 0 {
		return nil, eserr.IllegalArgument("[size] must be greater than 0. Found [%d] in [%s]", m.size, p.agg)
	}
	if m.shardSize, err = p.integer("shard_size", 0); err != nil {
		return nil, err
	}
	p.raw("bounds")
	if p.m["bounds"] != nil {
		return nil, eserr.IllegalArgument("[bounds] is not supported for aggregation [%s]", p.agg)
	}
	return m, nil
}

const geohashChars = "0123456789bcdefghjkmnpqrstuvwxyz"

// geohash encodes a point at the given precision.
func geohash(lon, lat float64, precision int) string {
	latR, lonR := [2]float64{-90, 90}, [2]float64{-180, 180}
	out := make([]byte, precision)
	even := true
	bit, ch := 0, 0
	for i := 0; i < precision; {
		if even {
			mid := (lonR[0] + lonR[1]) / 2
			if lon >= mid {
				ch = ch<<1 | 1
				lonR[0] = mid
			} else {
				ch <<= 1
				lonR[1] = mid
			}
		} else {
			mid := (latR[0] + latR[1]) / 2
			if lat >= mid {
				ch = ch<<1 | 1
				latR[0] = mid
			} else {
				ch <<= 1
				latR[1] = mid
			}
		}
		even = !even
		if bit++; bit == 5 {
			out[i] = geohashChars[ch]
			i++
			bit, ch = 0, 0
		}
	}
	return string(out)
}

// geotile returns the "z/x/y" tile of a point (web mercator).
func geotile(lon, lat float64, z int) string {
	const maxLat = 85.05112878
	lat = math.Max(-maxLat, math.Min(maxLat, lat))
	tiles := math.Exp2(float64(z))
	x := math.Floor((lon + 180) / 360 * tiles)
	sin := math.Sin(lat * math.Pi / 180)
	y := math.Floor((0.5 - math.Log((1+sin)/(1-sin))/(4*math.Pi)) * tiles)
	x = math.Max(0, math.Min(tiles-1, x))
	y = math.Max(0, math.Min(tiles-1, y))
	return strconv.Itoa(z) + "/" + strconv.FormatInt(int64(x), 10) + "/" + strconv.FormatInt(int64(y), 10)
}

func snap7(v float64) float64 { return math.Round(v*1e7) / 1e7 }

type gridColl struct {
	m  *gridImpl
	n  *node
	e  *env
	bs map[string]*tbucket
}

func (m *gridImpl) newColl(n *node, e *env) coll {
	return &gridColl{m: m, n: n, e: e, bs: map[string]*tbucket{}}
}

func (c *gridColl) collect(d *search.DocumentMatch) {
	var seen [4]string
	k := 0
	c.m.src.points(d, func(lon, lat float64) {
		// bluge's morton encoding truncates (decoded values lie up to one
		// step, 360/2^32 degrees of longitude and 180/2^32 of latitude,
		// below the indexed ones); snapping the middle of that interval
		// back to 7 decimals keeps points that lie exactly on a cell border
		// in the cell ES (whose encoding is exact on those borders) puts them.
		lon, lat = snap7(lon+180.0/(1<<32-1)), snap7(lat+90.0/(1<<32-1))
		var key string
		if c.m.typ == "geohash_grid" {
			key = geohash(lon, lat, c.m.precision)
		} else {
			key = geotile(lon, lat, c.m.precision)
		}
		for i := 0; i < k && i < len(seen); i++ {
			if seen[i] == key {
				return
			}
		}
		if k < len(seen) {
			seen[k] = key
		}
		k++
		b := c.bs[key]
		if b == nil {
			b = &tbucket{subs: newColls(c.n.subs, c.e)}
			c.bs[key] = b
		}
		b.count++
		collectAll(b.subs, d)
	})
}

func (c *gridColl) merge(o coll) {
	for k, b := range o.(*gridColl).bs {
		if a := c.bs[k]; a != nil {
			a.count += b.count
			mergeAll(a.subs, b.subs)
		} else {
			c.bs[k] = b
		}
	}
}

func (c *gridColl) result(n *node, r *reducer) (result, error) {
	var all []*bucket
	for k, b := range c.bs {
		all = append(all, &bucket{key: k, docCount: b.count, colls: b.subs})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].docCount != all[j].docCount {
			return all[i].docCount > all[j].docCount
		}
		return all[i].key.(string) < all[j].key.(string)
	})
	if len(all) > c.m.size {
		all = all[:c.m.size]
	}
	if err := r.addEach(len(all)); err != nil {
		return nil, err
	}
	for _, b := range all {
		subs, err := r.subResults(n.subs, b.colls)
		if err != nil {
			return nil, err
		}
		b.subs = subs
	}
	res := &gridResult{buckets: all}
	return res, r.parentPipelines(n, res)
}

type gridResult struct{ buckets []*bucket }

func (g *gridResult) bucketList() []*bucket         { return g.buckets }
func (g *gridResult) setBuckets(bs []*bucket)       { g.buckets = bs }
func (g *gridResult) metric(string) (float64, bool) { return 0, false }

func (g *gridResult) write(w *jw, n *node, r *reducer) {
	writeBuckets(w, n, r, g.buckets, false)
}
