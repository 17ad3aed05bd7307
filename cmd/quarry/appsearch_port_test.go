package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAppSearchPort: -E appsearch.port adds a listener serving only the
// App Search API; the main port serves both.
func TestAppSearchPort(t *testing.T) {
	free := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	}
	s, err := loadSettings("", []string{"http.port=" + free(), "appsearch.port=" + free(), "path.data=" + t.TempDir(), "appsearch.revision=earlier", "ext.security.enabled=false"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := startNode(context.Background(), s, slog.New(slog.DiscardHandler), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer n.close(5 * time.Second)
	get := func(addr, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
		req.SetBasicAuth("elastic", "changeme")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	post := func(addr, path, body string) int {
		req, _ := http.NewRequest("POST", "http://"+addr+path, strings.NewReader(body))
		req.SetBasicAuth("elastic", "changeme")
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := post(n.asAddr, "/api/as/v1/engines", `{"name":"e"}`); code != 200 {
		t.Fatalf("create engine on the app search port = %d", code)
	}
	for _, tc := range []struct {
		addr, path string
		code       int
		want       string
	}{
		{n.asAddr, "/api/as/v1/engines/e", 200, `{"name":"e","type":"default","language":null,"document_count":0,"index_create_settings_override":{}}`},
		{n.addr, "/api/as/v1/engines/e", 200, `{"name":"e","type":"default","language":null,"document_count":0,"index_create_settings_override":{}}`},
		{n.asAddr, "/_cluster/health", 400, ""},
		{n.addr, "/_cluster/health", 200, ""},
	} {
		code, body := get(tc.addr, tc.path)
		if code != tc.code || tc.want != "" && body != tc.want {
			t.Errorf("GET %s%s = %d %s, want %d %s", tc.addr, tc.path, code, body, tc.code, tc.want)
		}
	}
}
