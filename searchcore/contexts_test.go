package searchcore

import (
	"testing"
	"time"
)

// fakeClock is a settable time source.
type fakeClock struct{ t time.Time }

func (f *fakeClock) now() time.Time { return f.t }

// The context registry's state machine with a fake clock: open, use
// (extending keep_alive), expiry (lazy and by the reaper), clear, limit.
func TestContextRegistryStates(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	r := newContextRegistry(clock.now, 2)
	open := func(kind contextKind, keep time.Duration) *searchContext {
		t.Helper()
		if kind == kindScroll {
			if err := r.reserveScroll(r.maxScroll); err != nil {
				t.Fatalf("reserve: %v", err)
			}
		}
		c := &searchContext{kind: kind, scroll: &scrollState{}}
		r.add(c, keep)
		return c
	}
	stats := func() SearchContextStats {
		e := &Engine{contexts: r}
		return e.SearchContextStats()
	}
	missing := func(err error, id string) bool {
		e, ok := AsError(err)
		return ok && e.Type == "search_context_missing_exception" && e.Code == NotFound && e.Reason == "No search context found for id ["+id+"]"
	}

	a := open(kindScroll, time.Minute)
	b := open(kindScroll, time.Minute)
	if err := r.reserveScroll(r.maxScroll); err == nil {
		t.Fatal("third scroll over a limit of 2 was accepted")
	} else if e, _ := AsError(err); e.Type != "too_many_scroll_contexts_exception" || e.Code != TooManyRequests {
		t.Fatalf("limit error = %v", err)
	}
	p := open(kindPIT, 10*time.Second)
	if s := stats(); s.ScrollCurrent != 2 || s.PointInTimeCurrent != 1 || s.OpenContexts != 3 {
		t.Fatalf("stats = %+v", s)
	}

	// use extends the keep alive: 50s + 50s is past the first minute
	clock.t = clock.t.Add(50 * time.Second)
	if _, _, err := r.use(a.id, kindScroll, time.Minute); err != nil {
		t.Fatalf("use a: %v", err)
	}
	// a pit id is not a scroll id
	if _, _, err := r.use(p.id, kindScroll, 0); !missing(err, p.id) {
		t.Fatalf("pit as scroll = %v", err)
	}
	clock.t = clock.t.Add(50 * time.Second)
	if _, _, err := r.use(a.id, kindScroll, 0); err != nil {
		t.Fatalf("use a after extension: %v", err)
	}
	// b expired (lazy free on use); the pit expired too (reaper)
	if _, _, err := r.use(b.id, kindScroll, time.Minute); !missing(err, b.id) {
		t.Fatalf("expired b = %v", err)
	}
	r.reap()
	if s := stats(); s.ScrollCurrent != 1 || s.ScrollTotal != 1 || s.ScrollTimeInMillis != 100000 ||
		s.PointInTimeCurrent != 0 || s.PointInTimeTotal != 1 {
		t.Fatalf("stats after expiry = %+v", s)
	}
	// clear: freed once, then missing
	if n := r.free(kindScroll, []string{a.id}); n != 1 {
		t.Fatalf("free a = %d", n)
	}
	if n := r.free(kindScroll, []string{a.id}); n != 0 {
		t.Fatalf("free a again = %d", n)
	}
	if _, _, err := r.use(a.id, kindScroll, time.Minute); !missing(err, a.id) {
		t.Fatalf("cleared a = %v", err)
	}
	// the limit frees up again
	c := open(kindScroll, time.Minute)
	open(kindScroll, time.Minute)
	if n := r.freeAll(kindScroll); n != 2 {
		t.Fatalf("free all = %d", n)
	}
	if _, _, err := r.use(c.id, kindScroll, 0); !missing(err, c.id) {
		t.Fatalf("after free all = %v", err)
	}
	if _, _, err := r.use("bogus", kindScroll, 0); err == nil || err.Error() == "" {
		t.Fatal("malformed id accepted")
	} else if e, _ := AsError(err); e.Reason != "Cannot parse scroll id" || e.Code != Invalid {
		t.Fatalf("malformed = %v", err)
	}
}

func TestFormatTimeValue(t *testing.T) {
	for d, want := range map[time.Duration]string{
		24 * time.Hour: "1d", 2 * time.Hour: "2h", 3 * time.Minute: "3m", 90 * time.Second: "90s",
		1500 * time.Millisecond: "1500ms", 0: "0s",
	} {
		if got := FormatTimeValue(d); got != want {
			t.Errorf("FormatTimeValue(%v) = %s, want %s", d, got, want)
		}
	}
}
