package handlers_test

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestCloseOpenIndex(t *testing.T) {
	dir := t.TempDir()
	n := openTestNode(t, dir)
	for _, ix := range []string{"logs_a", "logs_b"} {
		n.do("PUT", "/"+ix+"/_doc/1?refresh=true", "application/json", `{"msg":"hello"}`)
	}
	code, body := n.do("POST", "/logs_a/_close", "", "")
	if code != 200 || str(body) != `{"acknowledged":true,"indices":{"logs_a":{"closed":true}},"shards_acknowledged":true}` {
		t.Fatalf("close = %d %s", code, str(body))
	}
	// Closing it again closes nothing.
	if _, body = n.do("POST", "/logs_a/_close", "", ""); str(body) != `{"acknowledged":true,"indices":{},"shards_acknowledged":false}` {
		t.Errorf("second close = %s", str(body))
	}
	closedErr := `{"index":"logs_a","index_uuid":`
	check := func(n *testNode) {
		t.Helper()
		tests := []struct {
			method, path, body string
			code               int
			wantType           string
			total              string
		}{
			{"POST", "/logs_a/_search", "", 400, "index_closed_exception", ""},
			{"POST", "/logs_a/_search?ignore_unavailable=true", "", 200, "", "0"},
			{"POST", "/logs_*/_search", "", 200, "", "1"},
			{"POST", "/logs_a*/_search?allow_no_indices=false", "", 404, "index_not_found_exception", ""},
			{"POST", "/logs_*/_search?expand_wildcards=open,closed", "", 400, "index_closed_exception", ""},
			{"POST", "/logs_*/_search?expand_wildcards=all&ignore_unavailable=true", "", 200, "", "1"},
			{"PUT", "/logs_a/_doc/2", `{"msg":"x"}`, 400, "index_closed_exception", ""},
			{"GET", "/logs_a/_doc/1", "", 400, "index_closed_exception", ""},
			{"PUT", "/logs_a", "", 400, "resource_already_exists_exception", ""},
		}
		for _, tc := range tests {
			ct := ""
			if tc.body != "" {
				ct = "application/json"
			}
			code, body := n.do(tc.method, tc.path, ct, tc.body)
			if code != tc.code {
				t.Errorf("%s %s = %d, want %d: %s", tc.method, tc.path, code, tc.code, str(body))
				continue
			}
			if tc.wantType != "" && str(jsonPath(body, "error.type")) != `"`+tc.wantType+`"` {
				t.Errorf("%s %s: error %s, want %s", tc.method, tc.path, str(body["error"]), tc.wantType)
			}
			if tc.wantType == "index_closed_exception" {
				if got := str(jsonPath(body, "error.root_cause.0")); !strings.Contains(got, closedErr) || !strings.Contains(got, `"reason":"closed"`) {
					t.Errorf("%s %s: root cause %s", tc.method, tc.path, got)
				}
			}
			if tc.total != "" && str(jsonPath(body, "hits.total.value")) != tc.total {
				t.Errorf("%s %s: total %s, want %s", tc.method, tc.path, str(jsonPath(body, "hits.total.value")), tc.total)
			}
		}
	}
	check(n)
	// The closed state survives a restart.
	n.Close()
	n = openTestNode(t, dir)
	check(n)
	// Wildcards in _open expand to closed indices.
	if code, body = n.do("POST", "/logs_*/_open", "", ""); code != 200 || str(body) != `{"acknowledged":true,"shards_acknowledged":true}` {
		t.Fatalf("open = %d %s", code, str(body))
	}
	code, body = n.do("GET", "/logs_a/_doc/1", "", "")
	if code != 200 || str(jsonPath(body, "_source.msg")) != `"hello"` {
		t.Errorf("get after open = %d %s", code, str(body))
	}
	n.do("PUT", "/logs_a/_doc/2?refresh=true", "application/json", `{"msg":"again"}`)
	if _, body = n.do("POST", "/logs_*/_search", "", ""); str(jsonPath(body, "hits.total.value")) != "3" {
		t.Errorf("search after open: %s", str(jsonPath(body, "hits.total")))
	}
	// A closed index can be deleted, by name or wildcard.
	n.do("POST", "/logs_b/_close", "", "")
	if code, _ = n.do("DELETE", "/logs_*", "", ""); code != 200 {
		t.Fatalf("delete = %d", code)
	}
	if code, _ = n.do("POST", "/logs_b/_open", "", ""); code != 404 {
		t.Errorf("open after delete = %d, want 404", code)
	}
}

func TestDateMathIndexNames(t *testing.T) {
	n := newTestNode(t)
	now := time.Now().UTC()
	month := now.Format("2006.01") + ".01"
	day := now.Format("2006.01.02")
	enc := url.PathEscape("<logs-{now/M}>")
	code, body := n.do("PUT", "/"+enc, "", "")
	if code != 200 || str(body["index"]) != `"logs-`+month+`"` {
		t.Fatalf("create = %d %s", code, str(body))
	}
	if code, _ = n.do("PUT", "/"+url.PathEscape("<logs-{now/d{yyyy.MM.dd|UTC}}>")+"/_doc/1?refresh=true", "application/json", `{"a":1}`); code != 201 {
		t.Fatalf("index into date-math name = %d", code)
	}
	if _, ok := n.Engine.Index("logs-" + day); !ok {
		t.Errorf("index logs-%s was not created", day)
	}
	code, body = n.do("POST", "/"+url.PathEscape("<logs-{now/d}>,<logs-{now/M}>")+"/_search", "", "")
	if code != 200 || str(jsonPath(body, "hits.total.value")) != "1" {
		t.Errorf("search = %d %s", code, str(body))
	}
	code, body = n.do("POST", "/"+url.PathEscape("<nothing-{now/M{yyyy}}>")+"/_search", "", "")
	if code != 404 || str(jsonPath(body, "error.reason")) != `"no such index [nothing-`+now.Format("2006")+`]"` {
		t.Errorf("missing = %d %s", code, str(body))
	}
	for _, bad := range []string{"<a-{now/M>", "<a-}>", "<{now/M{}}>", "<a-{now+1q}>"} {
		code, body = n.do("POST", "/"+url.PathEscape(bad)+"/_search", "", "")
		if code != 400 {
			t.Errorf("%s = %d %s", bad, code, str(body))
		}
	}
}
