package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quarry-search/quarry/clients/clusterclient"
)

// childEnv makes the test binary run the server instead of the tests.
const childEnv = "QUARRYTEST_CHILD_ARGS"

func TestMain(m *testing.M) {
	if args := os.Getenv(childEnv); args != "" {
		if err := run(strings.Split(args, "\x1f"), os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startChild runs a quarry node in a child process and waits until healthy.
func startChild(t *testing.T, dataDir string, port int) *exec.Cmd {
	t.Helper()
	args := []string{"serve", "-E", fmt.Sprintf("http.port=%d", port), "-E", "path.data=" + dataDir, "-E", "log.level=warn", "-E", "ext.security.enabled=false"}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(args, "\x1f"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/_cluster/health", port))
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return cmd
			}
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("node did not become healthy: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestAcknowledgedWritesSurviveKill9 loads documents from several clients,
// kills the server with SIGKILL mid-load, restarts it on the same data and
// checks that every acknowledged document is there.
func TestAcknowledgedWritesSurviveKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real server processes")
	}
	dir := t.TempDir()
	port := freePort(t)
	child := startChild(t, dir, port)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	client, err := clusterclient.NewClientWithResponses(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := client.IndicesCreateWithBodyWithResponse(ctx, "durable", &clusterclient.IndicesCreateParams{}, "application/json",
		strings.NewReader(`{"settings":{"number_of_shards":2,"refresh_interval":"200ms"}}`))
	if err != nil || res.StatusCode() != 200 {
		t.Fatalf("create index: %v %s", err, res.Body)
	}

	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for batch := 0; ; batch++ {
				select {
				case <-stop:
					return
				default:
				}
				var body bytes.Buffer
				var ids []string
				size := 1 + (batch%5)*40 // mix of tiny and larger bulks
				for i := 0; i < size; i++ {
					id := fmt.Sprintf("w%d-b%d-%d", w, batch, i)
					ids = append(ids, id)
					fmt.Fprintf(&body, "{\"index\":{\"_index\":\"durable\",\"_id\":%q}}\n{\"worker\":%d,\"batch\":%d,\"text\":\"document number %d\"}\n", id, w, batch, i)
				}
				res, err := client.BulkWithBodyWithResponse(ctx, &clusterclient.BulkParams{}, "application/x-ndjson", &body)
				if err != nil {
					return // the server is gone
				}
				var out struct {
					Errors bool `json:"errors"`
				}
				if res.StatusCode() != 200 || json.Unmarshal(res.Body, &out) != nil || out.Errors {
					t.Errorf("bulk: %d %s", res.StatusCode(), res.Body)
					return
				}
				mu.Lock()
				acked = append(acked, ids...)
				mu.Unlock()
			}
		}(w)
	}
	// Let the load run, then pull the plug.
	time.Sleep(1500 * time.Millisecond)
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = child.Process.Wait()
	close(stop)
	wg.Wait()
	mu.Lock()
	want := append([]string(nil), acked...)
	mu.Unlock()
	if len(want) < 100 {
		t.Fatalf("only %d documents acknowledged before the kill; load too slow to be meaningful", len(want))
	}

	// Restart on the same data and check every acknowledged document.
	child = startChild(t, dir, port)
	defer func() {
		_ = child.Process.Signal(syscall.SIGTERM)
		_, _ = child.Process.Wait()
	}()
	if res, err := http.Post(url+"/durable/_refresh", "application/json", nil); err != nil || res.StatusCode != 200 {
		t.Fatalf("refresh after restart: %v", err)
	}
	missing := 0
	for start := 0; start < len(want); start += 1000 {
		end := min(start+1000, len(want))
		q, _ := json.Marshal(map[string]any{"query": map[string]any{"ids": map[string]any{"values": want[start:end]}}})
		res, err := client.CountIndexWithBodyWithResponse(ctx, "durable", &clusterclient.CountIndexParams{}, "application/json", bytes.NewReader(q))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Count int `json:"count"`
		}
		_ = json.Unmarshal(res.Body, &out)
		missing += (end - start) - out.Count
	}
	if missing != 0 {
		t.Fatalf("%d of %d acknowledged documents missing after kill -9 and restart", missing, len(want))
	}
	// Realtime GET of the last acknowledged document works too.
	last := want[len(want)-1]
	r, err := http.Get(url + "/durable/_doc/" + last)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 200 {
		t.Errorf("GET %s after restart = %d %s", last, r.StatusCode, b)
	}
	t.Logf("%d acknowledged documents all present after kill -9", len(want))
}

func TestSettingsSources(t *testing.T) {
	dir := t.TempDir()
	cfg := dir + "/quarry.yml"
	if err := os.WriteFile(cfg, []byte("cluster.name: from-file\nhttp:\n  port: 9300\nlog.level: debug\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := loadSettings(cfg, []string{"http.port=9400"}, []string{"QUARRY_LOG_LEVEL=warn", "PATH=/bin"})
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"cluster.name": "from-file", "http.port": "9400", "log.level": "warn", "path.data": "./data", "network.host": "127.0.0.1"} {
		if got := s.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	bad := []struct {
		name      string
		overrides []string
		env       []string
		want      string
	}{
		{"unknown -E", []string{"foo.bar=1"}, nil, "unknown setting [foo.bar]"},
		{"bad port", []string{"http.port=99999"}, nil, "invalid value [99999] for setting [http.port]"},
		{"unknown env", nil, []string{"QUARRY_NOPE=1"}, "unknown setting in environment variable [QUARRY_NOPE]"},
		{"not key=value", []string{"http.port"}, nil, "must be in the form key=value"},
	}
	for _, tc := range bad {
		_, err := loadSettings("", tc.overrides, tc.env)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}
