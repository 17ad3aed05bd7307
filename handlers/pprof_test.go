package handlers_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quarry-search/quarry/clients/clusterclient"
)

// TestPprofDisabledByDefault: without ext.pprof.enabled every profile is a
// 404 resource_not_found_exception naming the setting.
func TestPprofDisabledByDefault(t *testing.T) {
	n := newTestNode(t)
	for _, p := range []string{"heap", "profile?seconds=1", "cmdline", "goroutine?debug=1"} {
		code, body := n.do("GET", "/_quarry/pprof/"+p, "", "")
		if code != 404 {
			t.Fatalf("%s: status %d, want 404", p, code)
		}
		if got := jsonPath(body, "error.type"); got != "resource_not_found_exception" {
			t.Errorf("%s: type %q", p, got)
		}
		if got := jsonPath(body, "error.reason"); got != "profiling is disabled: start the node with [ext.pprof.enabled] set to [true]" {
			t.Errorf("%s: reason %q", p, got)
		}
	}
}

// gunzipped reports whether b is a gzip stream (the pprof format) and
// returns its decompressed bytes.
func gunzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a gzip pprof profile (%d bytes): %v", len(b), err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPprofEnabled(t *testing.T) {
	n := openTestNodeWith(t, t.TempDir(), nodeOptions{Pprof: true})
	tests := []struct {
		path        string
		contentType string
		// check inspects the body.
		check func(t *testing.T, body []byte)
	}{
		{"/_quarry/pprof/heap?gc=1", "application/octet-stream", func(t *testing.T, b []byte) {
			if len(gunzipped(t, b)) == 0 {
				t.Error("empty heap profile")
			}
		}},
		{"/_quarry/pprof/allocs", "application/octet-stream", func(t *testing.T, b []byte) { gunzipped(t, b) }},
		{"/_quarry/pprof/profile?seconds=1", "application/octet-stream", func(t *testing.T, b []byte) { gunzipped(t, b) }},
		{"/_quarry/pprof/goroutine?debug=1", "text/plain; charset=utf-8", func(t *testing.T, b []byte) {
			if !strings.HasPrefix(string(b), "goroutine profile: total ") {
				t.Errorf("goroutine text profile starts %q", truncate(b, 60))
			}
		}},
		{"/_quarry/pprof/goroutine?debug=2", "text/plain; charset=utf-8", func(t *testing.T, b []byte) {
			if !strings.Contains(string(b), "goroutine ") || !strings.Contains(string(b), "[running]") {
				t.Errorf("goroutine dump lacks stacks: %q", truncate(b, 120))
			}
		}},
		{"/_quarry/pprof/cmdline", "text/plain; charset=utf-8", func(t *testing.T, b []byte) {
			if !strings.Contains(string(b), "handlers.test") {
				t.Errorf("cmdline %q does not name the test binary", b)
			}
		}},
		{"/_quarry/pprof/trace?seconds=1", "application/octet-stream", func(t *testing.T, b []byte) {
			if !bytes.HasPrefix(b, []byte("go 1.")) {
				t.Errorf("trace starts %q", truncate(b, 16))
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			req, _ := http.NewRequest("GET", n.URL+tc.path, nil)
			res, err := n.HTTP.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			if res.StatusCode != 200 {
				t.Fatalf("status %d: %s", res.StatusCode, b)
			}
			if got := res.Header.Get("Content-Type"); got != tc.contentType {
				t.Errorf("content type %q, want %q", got, tc.contentType)
			}
			tc.check(t, b)
		})
	}
}

func TestPprofErrors(t *testing.T) {
	n := openTestNodeWith(t, t.TempDir(), nodeOptions{Pprof: true})
	tests := []struct {
		path   string
		status int
		typ    string
		reason string
	}{
		{"/_quarry/pprof/profile?seconds=1&debug=1", 400, "illegal_argument_exception", "[debug] is only supported by snapshot profiles, not by [profile]"},
		{"/_quarry/pprof/heap?debug=3", 400, "illegal_argument_exception", ""},
		{"/_quarry/pprof/profile?seconds=0", 400, "illegal_argument_exception", ""},
		{"/_quarry/pprof/profile?seconds=301", 400, "illegal_argument_exception", ""},
		{"/_quarry/pprof/nonsense", 400, "illegal_argument_exception", ""},
	}
	for _, tc := range tests {
		code, body := n.do("GET", tc.path, "", "")
		if code != tc.status {
			t.Errorf("%s: status %d, want %d (%v)", tc.path, code, tc.status, body)
			continue
		}
		if got := jsonPath(body, "error.type"); got != tc.typ {
			t.Errorf("%s: type %q, want %q", tc.path, got, tc.typ)
		}
		if got := jsonPath(body, "error.reason"); tc.reason != "" && got != tc.reason {
			t.Errorf("%s: reason %q, want %q", tc.path, got, tc.reason)
		}
	}
}

// TestPprofConcurrentCPUProfile: a second CPU profile while one records is a
// 409 illegal_state_exception, through the generated client.
func TestPprofConcurrentCPUProfile(t *testing.T) {
	n := openTestNodeWith(t, t.TempDir(), nodeOptions{Pprof: true})
	first := make(chan int)
	go func() {
		res, err := n.HTTP.Get(n.URL + "/_quarry/pprof/profile?seconds=3")
		if err != nil {
			first <- 0
			return
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		first <- res.StatusCode
	}()
	// Let the first profile start recording (it records for 3 s).
	time.Sleep(time.Second)
	secs := 1
	second, err := n.Client.QuarryPprofWithResponse(t.Context(), clusterclient.QuarryPprofParamsProfileProfile, &clusterclient.QuarryPprofParams{Seconds: &secs})
	if err != nil {
		t.Fatal(err)
	}
	if second.StatusCode() != 409 {
		t.Fatalf("second CPU profile: status %d, want 409", second.StatusCode())
	}
	if !strings.Contains(string(second.Body), `"type":"illegal_state_exception","reason":"a CPU profile is already being recorded"`) {
		t.Errorf("second CPU profile body %s", second.Body)
	}
	if code := <-first; code != 200 {
		t.Errorf("first CPU profile: status %d", code)
	}
}
