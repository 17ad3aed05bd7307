package handlers

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"runtime/metrics"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/searchcore"
)

// requestStats are the request-level figures _nodes/stats reports under
// http, thread_pool and breakers, measured by the server as it runs.
type requestStats struct {
	httpOpen, httpTotal atomic.Int64
	pools               map[string]*poolStats
	inFlight, parent    breaker
}

// poolStats measures one class of requests. Quarry runs every request on
// its own goroutine (no queue), so threads and active are the requests
// being handled now and largest the most handled at once.
type poolStats struct {
	active, largest, completed, rejected atomic.Int64
}

// breaker is a circuit breaker over a measured size: in_flight_requests
// sums the declared body sizes of the requests being handled, parent reads
// the Go heap in use.
type breaker struct {
	name      string
	estimated atomic.Int64
	tripped   atomic.Int64
	// limitBytes is the breaker's limit (a fraction of memoryBase).
	limitBytes int64
}

// threadPoolNames are the request classes, as Elasticsearch names its pools.
var threadPoolNames = []string{"get", "management", "search", "write"}

// newRequestStats sizes the breakers like Elasticsearch's defaults:
// in_flight_requests 100% and parent 95% of memory (see memoryBase).
func newRequestStats(memory int64) *requestStats {
	st := &requestStats{pools: map[string]*poolStats{}}
	for _, n := range threadPoolNames {
		st.pools[n] = &poolStats{}
	}
	base := memoryBase(memory)
	st.inFlight = breaker{name: "in_flight_requests", limitBytes: base}
	st.parent = breaker{name: "parent", limitBytes: int64(float64(base) * 0.95)}
	return st
}

// connState counts HTTP connections (http.Server.ConnState).
func (st *requestStats) connState(_ net.Conn, cs http.ConnState) {
	switch cs {
	case http.StateNew:
		st.httpOpen.Add(1)
		st.httpTotal.Add(1)
	case http.StateClosed, http.StateHijacked:
		st.httpOpen.Add(-1)
	}
}

// memoryBase is what the breakers' limits are fractions of: the given
// size, else the machine's memory. Go's memory limit (GOMEMLIMIT,
// ext.memory.soft_limit) is a soft garbage-collection target the heap may
// exceed, so it is not used: a breaker must not reject requests a node
// can serve.
func memoryBase(configured int64) int64 {
	if configured > 0 {
		return configured
	}
	if m := readMemInfo(); m.total > 0 {
		return m.total
	}
	return math.MaxInt64
}

func (b *breaker) limit() int64 { return b.limitBytes }

// error counts a trip and renders Elasticsearch's circuit_breaking_exception;
// extra ends the reason (the parent breaker's real usage).
func (b *breaker) error(wanted, limit int64, extra string) error {
	b.tripped.Add(1)
	return searchcore.Errorf(searchcore.TooManyRequests, "circuit_breaking_exception",
		"[%s] Data too large, data for [<http_request>] would be [%d/%s], which is larger than the limit of [%d/%s]%s",
		b.name, wanted, humanBytes(wanted), limit, humanBytes(limit), extra).
		With("bytes_wanted", wanted).With("bytes_limit", limit).With("durability", "TRANSIENT")
}

// heapInUse reads the bytes of live and not yet swept heap objects.
func heapInUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// poolOf classifies a request by its route like Elasticsearch's thread
// pools: searches, document writes, realtime gets, and the rest
// (cluster, node and index management).
func poolOf(method, route string) string {
	switch {
	case strings.Contains(route, "_search") || strings.Contains(route, "_msearch") || strings.Contains(route, "_count") ||
		strings.Contains(route, "_pit") || strings.Contains(route, "/_render/"):
		return "search"
	case strings.Contains(route, "_bulk") || strings.Contains(route, "/_update/") || strings.Contains(route, "/_create/") ||
		(strings.Contains(route, "/_doc") && method != http.MethodGet && method != http.MethodHead):
		return "write"
	case strings.Contains(route, "/_doc/") || strings.Contains(route, "/_source/") || strings.Contains(route, "_mget"):
		return "get"
	}
	return "management"
}

// track measures each request (pool counters) and applies the
// in_flight_requests and parent breakers before handling it.
func (st *requestStats) track(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		pool := st.pools[poolOf(r.Method, c.Path())]
		size := r.ContentLength
		if size < 0 {
			size = 0
		}
		if heap, limit := heapInUse(), st.parent.limit(); heap+size > limit {
			pool.rejected.Add(1)
			return st.parent.error(heap+size, limit, fmt.Sprintf(", real usage: [%d/%s], new bytes reserved: [%d/%s]", heap, humanBytes(heap), size, humanBytes(size)))
		}
		if now, limit := st.inFlight.estimated.Add(size), st.inFlight.limit(); now > limit {
			st.inFlight.estimated.Add(-size)
			pool.rejected.Add(1)
			return st.inFlight.error(now, limit, "")
		}
		defer st.inFlight.estimated.Add(-size)
		active := pool.active.Add(1)
		for {
			largest := pool.largest.Load()
			if active <= largest || pool.largest.CompareAndSwap(largest, active) {
				break
			}
		}
		defer func() {
			pool.active.Add(-1)
			pool.completed.Add(1)
		}()
		return next(c)
	}
}

func (st *requestStats) httpJSON() orderedJSON {
	return orderedJSON{{"current_open", st.httpOpen.Load()}, {"total_opened", st.httpTotal.Load()}}
}

func (st *requestStats) threadPoolJSON() orderedJSON {
	names := append([]string(nil), threadPoolNames...)
	sort.Strings(names)
	o := orderedJSON{}
	for _, n := range names {
		p := st.pools[n]
		active := p.active.Load()
		o = append(o, kvPair{n, orderedJSON{
			{"threads", active}, {"queue", 0}, {"active", active},
			{"rejected", p.rejected.Load()}, {"largest", p.largest.Load()}, {"completed", p.completed.Load()},
		}})
	}
	return o
}

// threadPoolInfoJSON describes the pools for nodes info: requests run
// directly on their own goroutine, Elasticsearch's "direct" pool type.
func threadPoolInfoJSON() orderedJSON {
	o := orderedJSON{}
	for _, n := range threadPoolNames {
		o = append(o, kvPair{n, orderedJSON{{"type", "direct"}}})
	}
	return o
}

func (st *requestStats) breakersJSON(human bool) orderedJSON {
	one := func(b *breaker, estimated int64) orderedJSON {
		limit := b.limit()
		o := orderedJSON{{"limit_size_in_bytes", limit}}
		if human {
			o = append(o, kvPair{"limit_size", humanBytes(limit)})
		}
		o = append(o, kvPair{"estimated_size_in_bytes", estimated})
		if human {
			o = append(o, kvPair{"estimated_size", humanBytes(estimated)})
		}
		return append(o, kvPair{"overhead", 1.0}, kvPair{"tripped", b.tripped.Load()})
	}
	return orderedJSON{
		{"in_flight_requests", one(&st.inFlight, st.inFlight.estimated.Load())},
		{"parent", one(&st.parent, heapInUse())},
	}
}
