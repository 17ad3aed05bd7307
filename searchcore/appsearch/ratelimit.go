package appsearch

import (
	"math"
	"sync"
	"time"
)

// RateLimits configure the hourly request budget of each key per endpoint
// class (search, query_suggestion, documents, ...).
type RateLimits struct {
	// Default is the budget of endpoint classes without their own (0 uses
	// DefaultRateLimits.Default; negative disables rate limiting).
	Default int
	// Endpoints override the budget per endpoint class.
	Endpoints map[string]int
	// Window is the accounting period (default one hour).
	Window time.Duration
}

// DefaultRateLimits follow the hosted product's headers (12000 searches and
// 2400 query suggestions per hour) and allow 10000 other requests.
var DefaultRateLimits = RateLimits{
	Default:   10000,
	Endpoints: map[string]int{"search": 12000, "query_suggestion": 2400},
	Window:    time.Hour,
}

// RateLimiter counts requests per caller and endpoint class in fixed
// windows that start with the caller's first request.
type RateLimiter struct {
	cfg RateLimits
	now func() time.Time

	mu      sync.Mutex
	windows map[[2]string]*rateWindow
}

type rateWindow struct {
	start time.Time
	count int
}

// NewRateLimiter returns a limiter; now is the clock.
func NewRateLimiter(cfg RateLimits, now func() time.Time) *RateLimiter {
	if cfg.Default == 0 {
		cfg.Default = DefaultRateLimits.Default
	}
	if cfg.Endpoints == nil {
		cfg.Endpoints = DefaultRateLimits.Endpoints
	}
	if cfg.Window <= 0 {
		cfg.Window = time.Hour
	}
	if now == nil {
		now = time.Now
	}
	return &RateLimiter{cfg: cfg, now: now, windows: map[[2]string]*rateWindow{}}
}

// Limit returns the budget of an endpoint class (negative: unlimited).
func (l *RateLimiter) Limit(endpoint string) int {
	if n, ok := l.cfg.Endpoints[endpoint]; ok {
		return n
	}
	return l.cfg.Default
}

// RateDecision is the outcome of one request.
type RateDecision struct {
	Allowed bool
	// Limited is false when the endpoint has no budget (no headers then).
	Limited   bool
	Limit     int
	Remaining int
	// RetryAfter is how long until the window resets (when refused).
	RetryAfter time.Duration
}

// RetryAfterSeconds rounds RetryAfter up to whole seconds (at least 1).
func (d RateDecision) RetryAfterSeconds() int {
	s := int(math.Ceil(d.RetryAfter.Seconds()))
	if s < 1 {
		s = 1
	}
	return s
}

// Allow counts one request of caller on an endpoint class.
func (l *RateLimiter) Allow(caller, endpoint string) RateDecision {
	limit := l.Limit(endpoint)
	if limit < 0 {
		return RateDecision{Allowed: true}
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	k := [2]string{caller, endpoint}
	w := l.windows[k]
	if w == nil || now.Sub(w.start) >= l.cfg.Window {
		w = &rateWindow{start: now}
		l.windows[k] = w
	}
	d := RateDecision{Limited: true, Limit: limit}
	if w.count >= limit {
		d.RetryAfter = w.start.Add(l.cfg.Window).Sub(now)
		return d
	}
	w.count++
	d.Allowed = true
	d.Remaining = limit - w.count
	return d
}
