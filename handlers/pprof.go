package handlers

import (
	"bytes"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
)

// defaultProfileSeconds is the recording time of the CPU profile and the
// execution trace when the request names none (as net/http/pprof).
const defaultProfileSeconds = 30

// QuarryPprof serves the Go runtime profiles of the node when the
// ext.pprof.enabled setting is on (Options.Pprof). It will require the
// superuser once security enforces privileges.
func (s *Server) QuarryPprof(c echo.Context, profile cluster.QuarryPprofParamsProfile, params cluster.QuarryPprofParams) error {
	if !s.opts.Pprof {
		return searchcore.Errorf(searchcore.NotFound, "resource_not_found_exception",
			"profiling is disabled: start the node with [ext.pprof.enabled] set to [true]")
	}
	debug := 0
	if params.Debug != nil {
		debug = *params.Debug
	}
	seconds := defaultProfileSeconds
	if params.Seconds != nil {
		seconds = *params.Seconds
	}
	res := c.Response()
	switch profile {
	case cluster.QuarryPprofParamsProfileCmdline:
		return c.Blob(http.StatusOK, "text/plain; charset=utf-8", []byte(strings.Join(os.Args, "\x00")))
	case cluster.QuarryPprofParamsProfileProfile, cluster.QuarryPprofParamsProfileTrace:
		if debug != 0 {
			return searchcore.IllegalArgument("[debug] is only supported by snapshot profiles, not by [%s]", profile)
		}
		// Record into a buffer so a failure to start is still an error
		// response rather than a truncated 200.
		var buf bytes.Buffer
		start, stop, what := pprof.StartCPUProfile, pprof.StopCPUProfile, "a CPU profile"
		if profile == cluster.QuarryPprofParamsProfileTrace {
			start, stop, what = trace.Start, trace.Stop, "an execution trace"
		}
		if err := start(&buf); err != nil {
			return searchcore.Errorf(searchcore.Conflict, "illegal_state_exception", "%s is already being recorded", what)
		}
		t := time.NewTimer(time.Duration(seconds) * time.Second)
		select {
		case <-t.C:
		case <-c.Request().Context().Done():
			t.Stop()
		}
		stop()
		res.Header().Set("Content-Disposition", `attachment; filename="`+string(profile)+`"`)
		return c.Blob(http.StatusOK, "application/octet-stream", buf.Bytes())
	}
	p := pprof.Lookup(string(profile))
	if p == nil {
		// The spec's enum lists only profiles the runtime always has.
		return searchcore.IllegalArgument("unknown profile [%s]", profile)
	}
	if profile == cluster.QuarryPprofParamsProfileHeap && params.Gc != nil && *params.Gc != 0 {
		runtime.GC()
	}
	var buf bytes.Buffer
	if err := p.WriteTo(&buf, debug); err != nil {
		return searchcore.Internalf(err, "failed to write profile [%s]", profile)
	}
	if debug != 0 {
		return c.Blob(http.StatusOK, "text/plain; charset=utf-8", buf.Bytes())
	}
	res.Header().Set("Content-Disposition", `attachment; filename="`+string(profile)+`"`)
	return c.Blob(http.StatusOK, "application/octet-stream", buf.Bytes())
}
