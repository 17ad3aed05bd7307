package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// server is a running quarry process.
type server struct {
	cmd    *exec.Cmd
	base   string
	data   string
	stderr *bytes.Buffer
	client *http.Client
	done   chan error
}

// freePort returns a TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startServer starts the quarry binary on dataDir and waits until
// _cluster/health answers 200; it returns the time that took. Security is
// disabled explicitly: the benchmark measures the engine, not authentication.
func startServer(bin, dataDir string, extra []string) (*server, time.Duration, error) {
	port, err := freePort()
	if err != nil {
		return nil, 0, err
	}
	args := []string{"serve",
		"-E", "path.data=" + dataDir,
		"-E", "http.port=" + strconv.Itoa(port),
		"-E", "ext.security.enabled=false",
		"-E", "log.level=warn",
	}
	for _, e := range extra {
		args = append(args, "-E", e)
	}
	s := &server{
		base:   fmt.Sprintf("http://127.0.0.1:%d", port),
		data:   dataDir,
		stderr: &bytes.Buffer{},
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 10 * time.Minute},
		done:   make(chan error, 1),
	}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stderr = s.stderr
	start := time.Now()
	if err := s.cmd.Start(); err != nil {
		return nil, 0, err
	}
	go func() { s.done <- s.cmd.Wait() }()
	deadline := start.Add(2 * time.Minute)
	probe := &http.Client{Timeout: time.Second}
	for {
		res, err := probe.Get(s.base + "/_cluster/health")
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s, time.Since(start), nil
			}
		}
		select {
		case err := <-s.done:
			return nil, 0, fmt.Errorf("quarry exited (%v): %s", err, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			_ = s.cmd.Process.Kill()
			<-s.done
			return nil, 0, fmt.Errorf("quarry not healthy after 2m: %s", s.stderr.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// stop shuts the server down cleanly (SIGTERM) and waits for it to exit.
func (s *server) stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		if err != nil {
			return fmt.Errorf("quarry exited with %v: %s", err, s.stderr.String())
		}
		return nil
	case <-time.After(2 * time.Minute):
		_ = s.cmd.Process.Kill()
		<-s.done
		return fmt.Errorf("quarry did not stop within 2m")
	}
}

// memory returns the current (VmRSS) and peak (VmHWM) resident set sizes
// of the server process in bytes.
func (s *server) memory() (rss, peak int64, err error) {
	return procMemory(s.cmd.Process.Pid)
}

// procMemory reads VmRSS and VmHWM of a process from /proc.
func procMemory(pid int) (rss, peak int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(fields[0], 10, 64)
		switch k {
		case "VmRSS":
			rss = n << 10
		case "VmHWM":
			peak = n << 10
		}
	}
	return rss, peak, sc.Err()
}

// cpuTime returns the user+system CPU time the server process has used:
// unlike wall-clock figures it does not grow with the machine's load.
func (s *server) cpuTime() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// Fields after the parenthesised command name; utime and stime are the
	// 14th and 15th fields of the line, in clock ticks (USER_HZ = 100).
	_, rest, ok := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc stat line %q", b)
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}

// waitIdle waits until the server has used under 5% of a core for half a
// second (after a load, its segment merges go on in the background), or
// until max has passed, and returns how long it waited.
func (s *server) waitIdle(ctx context.Context, max time.Duration) (time.Duration, error) {
	const window = 500 * time.Millisecond
	start := time.Now()
	prev, err := s.cpuTime()
	if err != nil {
		return 0, err
	}
	for time.Since(start) < max {
		select {
		case <-ctx.Done():
			return time.Since(start), ctx.Err()
		case <-time.After(window):
		}
		cur, err := s.cpuTime()
		if err != nil {
			return time.Since(start), err
		}
		if cur-prev < window/20 {
			break
		}
		prev = cur
	}
	return time.Since(start), nil
}

// diskUsage returns the bytes a folder occupies on disk (allocated blocks,
// like du), so sparse pre-allocated files count for what they use.
func diskUsage(dir string) (int64, error) {
	var total int64
	// A live index removes files (merged segments, old snapshots) while
	// the walk runs: a file gone between listing and stat counts nothing.
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			total += st.Blocks * 512
		} else {
			total += info.Size()
		}
		return nil
	})
	return total, err
}

// call sends one request and decodes a JSON answer into out (when non-nil).
// Any status but 200 is an error.
func (s *server) call(ctx context.Context, method, path, contentType string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, truncate(raw, 300))
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
