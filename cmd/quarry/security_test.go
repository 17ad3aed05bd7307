package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// startTestNode starts a node in-process with -E style overrides.
func startTestNode(t *testing.T, overrides ...string) (*node, string) {
	t.Helper()
	base := []string{"http.port=0", "path.data=" + t.TempDir(), "log.level=warn"}
	settings, err := loadSettings("", append(base, overrides...), nil)
	if err != nil {
		t.Fatal(err)
	}
	var console bytes.Buffer
	n, err := startNode(context.Background(), settings, quietLogger(), &console)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.close(5 * time.Second) })
	return n, console.String()
}

func basicAuth(user, pw string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pw))
}

func get(t *testing.T, c *http.Client, url, auth string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return res.StatusCode, out
}

func TestGeneratedElasticPasswordPrintedOnce(t *testing.T) {
	t.Setenv("ELASTIC_PASSWORD", "")
	data := t.TempDir()
	settings, err := loadSettings("", []string{"http.port=0", "path.data=" + data, "path.conf=" + t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var console bytes.Buffer
	n, err := startNode(context.Background(), settings, quietLogger(), &console)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(console.String(), "\n")
	pw := ""
	for i, l := range lines {
		if strings.Contains(l, "password of the [elastic] superuser") && i+2 < len(lines) {
			pw = strings.TrimSpace(lines[i+2])
		}
	}
	if len(pw) < 16 {
		t.Fatalf("no generated password in console output %q", console.String())
	}
	code, out := get(t, http.DefaultClient, "http://"+n.addr+"/_security/_authenticate", basicAuth("elastic", pw))
	if code != 200 || out["username"] != "elastic" {
		t.Fatalf("authenticate with generated password = %d %v", code, out)
	}
	if code, _ := get(t, http.DefaultClient, "http://"+n.addr+"/_cluster/health", ""); code != 401 {
		t.Errorf("anonymous health = %d, want 401 (security is on by default)", code)
	}
	if err := n.close(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	console.Reset()
	n, err = startNode(context.Background(), settings, quietLogger(), &console)
	if err != nil {
		t.Fatal(err)
	}
	defer n.close(5 * time.Second)
	if console.Len() != 0 {
		t.Errorf("second start printed %q; the password is shown only once", console.String())
	}
}

func TestSecurityDisabledIsAnonymousSuperuser(t *testing.T) {
	n, _ := startTestNode(t, "ext.security.enabled=false")
	code, out := get(t, http.DefaultClient, "http://"+n.addr+"/_security/_authenticate", "")
	if code != 200 || out["username"] != "_anonymous" || fmt.Sprint(out["roles"]) != "[superuser]" {
		t.Errorf("authenticate = %d %v", code, out)
	}
}

func TestServiceTokensCommand(t *testing.T) {
	t.Setenv("ELASTIC_PASSWORD", "s3cret-pw")
	conf := t.TempDir()
	var out, errOut bytes.Buffer
	if err := run([]string{"service-tokens", "--path.conf", conf, "create", "elastic/fleet-server", "token1"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	prefix := "SERVICE_TOKEN elastic/fleet-server/token1 = "
	if !strings.HasPrefix(out.String(), prefix) {
		t.Fatalf("create output = %q", out.String())
	}
	value := strings.TrimSpace(strings.TrimPrefix(out.String(), prefix))
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"create", "elastic/fleet-server", "token1"}, "service token [elastic/fleet-server/token1] already exists"},
		{[]string{"create", "elastic/nope", "t"}, "service account [elastic/nope] does not exist (known: elastic/dashboard, elastic/fleet-server)"},
		{[]string{"create", "elastic/fleet-server", "_bad"}, "invalid token name [_bad]"},
		{[]string{"delete", "elastic/fleet-server", "missing"}, "service token [elastic/fleet-server/missing] does not exist"},
	}
	for _, tc := range cases {
		err := run(append([]string{"service-tokens", "--path.conf", conf}, tc.args...), io.Discard, io.Discard)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want prefix %q", tc.args, err, tc.want)
		}
	}
	out.Reset()
	if err := run([]string{"service-tokens", "--path.conf", conf, "list"}, &out, io.Discard); err != nil || out.String() != "elastic/fleet-server/token1\n" {
		t.Fatalf("list = %q, %v", out.String(), err)
	}
	if b, _ := os.ReadFile(filepath.Join(conf, "service_tokens")); strings.Contains(string(b), value) || !strings.Contains(string(b), "{SSHA256}") {
		t.Errorf("service_tokens must hold only a salted hash: %q", b)
	}
	n, _ := startTestNode(t, "path.conf="+conf)
	url := "http://" + n.addr + "/_security/_authenticate"
	code, got := get(t, http.DefaultClient, url, "Bearer "+value)
	if code != 200 || got["username"] != "elastic/fleet-server" || fmt.Sprint(got["token"]) != "map[name:token1 type:_service_account_file]" {
		t.Fatalf("authenticate with file token = %d %v", code, got)
	}
	if err := run([]string{"service-tokens", "--path.conf", conf, "delete", "elastic/fleet-server", "token1"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	// The server re-reads the file when it changes.
	time.Sleep(10 * time.Millisecond)
	if code, got := get(t, http.DefaultClient, url, "Bearer "+value); code != 401 {
		t.Errorf("deleted file token = %d %v, want 401", code, got)
	}
}

func TestCertutilAndHTTPS(t *testing.T) {
	t.Setenv("ELASTIC_PASSWORD", "s3cret-pw")
	dir := t.TempDir()
	steps := [][]string{
		{"certutil", "ca", "--out", dir},
		{"certutil", "cert", "--ca-cert", filepath.Join(dir, "ca.crt"), "--ca-key", filepath.Join(dir, "ca.key"), "--name", "node", "--dns", "localhost", "--ip", "127.0.0.1", "--out", dir},
		{"certutil", "cert", "--ca-cert", filepath.Join(dir, "ca.crt"), "--ca-key", filepath.Join(dir, "ca.key"), "--name", "client", "--out", dir},
	}
	for _, s := range steps {
		if err := run(s, io.Discard, io.Discard); err != nil {
			t.Fatalf("%v: %v", s, err)
		}
	}
	if err := run([]string{"certutil", "cert", "--ca-cert", filepath.Join(dir, "node.crt"), "--ca-key", filepath.Join(dir, "node.key"), "--name", "x", "--out", dir}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "is not a CA certificate") {
		t.Errorf("signing with a non-CA: %v", err)
	}
	n, _ := startTestNode(t,
		"ext.security.http.ssl.enabled=true",
		"ext.security.http.ssl.certificate="+filepath.Join(dir, "node.crt"),
		"ext.security.http.ssl.key="+filepath.Join(dir, "node.key"),
		"ext.security.http.ssl.certificate_authorities="+filepath.Join(dir, "ca.crt"),
		"ext.security.http.ssl.client_authentication=required",
	)
	caPEM, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	clientCert, err := tls.LoadX509KeyPair(filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key"))
	if err != nil {
		t.Fatal(err)
	}
	withCert := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{clientCert}}}}
	url := "https://" + n.addr + "/_cluster/health"
	if code, out := get(t, withCert, url, basicAuth("elastic", "s3cret-pw")); code != 200 || out["status"] == nil {
		t.Errorf("HTTPS health = %d %v", code, out)
	}
	noCert := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequest("GET", url, nil)
	if res, err := noCert.Do(req); err == nil {
		res.Body.Close()
		t.Errorf("client_authentication=required accepted a client without certificate (%d)", res.StatusCode)
	}
	if _, err := http.Get("http://" + n.addr + "/"); err == nil {
		// Plain HTTP to a TLS listener gets a TLS alert or a 400, never data.
		t.Log("plain HTTP answered (expected an error response from the TLS listener)")
	}
}

func TestTLSSettingsErrors(t *testing.T) {
	cases := []struct {
		overrides []string
		want      string
	}{
		{[]string{"ext.security.http.ssl.enabled=true"}, "[ext.security.http.ssl.enabled] is true but [ext.security.http.ssl.certificate] and [ext.security.http.ssl.key] are not both set"},
		{[]string{"ext.security.authc.token.timeout=2h"}, "invalid value [2h] for setting [ext.security.authc.token.timeout] (from -E): must be between 1s and 1h"},
		{[]string{"ext.security.http.ssl.client_authentication=maybe"}, "invalid value [maybe] for setting [ext.security.http.ssl.client_authentication] (from -E): must be one of none, optional, required"},
	}
	for _, tc := range cases {
		settings, err := loadSettings("", append([]string{"http.port=0", "path.data=" + t.TempDir()}, tc.overrides...), nil)
		if err == nil {
			var n *node
			n, err = startNode(context.Background(), settings, quietLogger(), io.Discard)
			if err == nil {
				_ = n.close(time.Second)
			}
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v: err = %v\nwant %s", tc.overrides, err, tc.want)
		}
	}
}

func TestProductionMode(t *testing.T) {
	for host, want := range map[string]bool{"127.0.0.1": false, "localhost": false, "::1": false, "0.0.0.0": true, "10.1.2.3": true, "example.org": true} {
		if got := isProduction(host); got != want {
			t.Errorf("isProduction(%q) = %v, want %v", host, got, want)
		}
	}
}
