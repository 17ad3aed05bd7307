// Command quarry runs a Quarry node: an Elasticsearch 7.x wire-compatible
// search service with its data embedded (badger + bluge).
//
//	quarry [serve] [--config quarry.yml] [-E key=value ...]
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/quarry-search/quarry/handlers"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/appsearch"
	"github.com/quarry-search/quarry/searchcore/security"
	"github.com/quarry-search/quarry/store"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "quarry:", err)
		os.Exit(1)
	}
}

// repeated is a flag that may be given several times (-E a=b -E c=d).
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// run parses the command line and runs the chosen subcommand.
func run(args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stderr)
	case "service-tokens":
		return serviceTokens(args, stdout, stderr)
	case "certutil":
		return certutil(args, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, handlers.Version)
		return nil
	default:
		return fmt.Errorf("unknown command %q (commands: serve, service-tokens, certutil, version)", cmd)
	}
}

func serve(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "", "YAML settings file (Elasticsearch-style keys)")
	var overrides repeated
	fs.Var(&overrides, "E", "setting override key=value (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	settings, err := loadSettings(*config, overrides, os.Environ())
	if err != nil {
		return err
	}
	log, closeLog, err := newLogger(settings, stderr)
	if err != nil {
		return err
	}
	defer closeLog()
	for _, msg := range settings.Deprecations() {
		log.Warn(msg, "logger", "deprecation")
	}

	applyMemoryLimit(settings, os.Getenv("GOMEMLIMIT") != "")

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	node, err := startNode(ctx, settings, log, stderr)
	if err != nil {
		return err
	}
	// Return the start-up garbage (spec parsing) to the OS: idle RSS.
	go debug.FreeOSMemory()
	log.Info("started", "address", node.addr, "cluster", settings.Get("cluster.name"), "data", settings.Get("path.data"))
	select {
	case <-ctx.Done():
		log.Info("stopping")
	case err := <-node.serveErr:
		log.Error("http server failed", "err", err)
	}
	return node.close(settings.Duration("shutdown.timeout"))
}

// pointsCacheBytes is ext.search.points_cache.size as the engine takes it:
// a negative size disables the points.
func pointsCacheBytes(s Settings) int64 {
	if n := s.Bytes("ext.search.points_cache.size"); n > 0 {
		return n
	}
	return -1
}

// applyMemoryLimit sets the Go runtime's soft memory limit from
// ext.memory.soft_limit, unless GOMEMLIMIT is set (the runtime applied it)
// or the setting is 0. The garbage collector then works harder as the heap
// nears the limit instead of letting it double: bulk loads peak at a
// fraction of the RSS. It returns the limit applied (0: none).
func applyMemoryLimit(s Settings, fromEnv bool) int64 {
	n := s.Bytes("ext.memory.soft_limit")
	if fromEnv || n <= 0 {
		return 0
	}
	debug.SetMemoryLimit(n)
	return n
}

// node is a running server with everything it owns.
type node struct {
	addr string
	http *http.Server
	// asAddr and asHTTP are the appsearch.port listener (nil when unset).
	asAddr   string
	asHTTP   *http.Server
	engine   *searchcore.Engine
	db       *store.DB
	serveErr chan error
	log      *slog.Logger
}

// startNode opens the store and the engine and starts serving HTTP.
// console receives the generated elastic password (printed once, never
// logged).
func startNode(ctx context.Context, settings Settings, log *slog.Logger, console io.Writer) (*node, error) {
	host := settings.Get("http.host")
	if host == "" {
		host = settings.Get("network.host")
	}
	production := isProduction(host)
	tlsConfig, err := httpTLSConfig(settings)
	if err != nil {
		return nil, err
	}
	if err := startupChecks(settings, production, log); err != nil {
		return nil, err
	}
	// Parse the OpenAPI document while the store and the engine open.
	spec := handlers.LoadSpec()
	dataPath := settings.Get("path.data")
	if err := os.MkdirAll(dataPath, 0o755); err != nil {
		return nil, fmt.Errorf("create path.data: %w", err)
	}
	db, err := store.Open(filepath.Join(dataPath, "store"), store.Options{Logger: log})
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	nodeName := settings.Get("node.name")
	if nodeName == "" {
		nodeName, _ = os.Hostname()
	}
	engine, err := searchcore.Open(ctx, searchcore.Config{
		DataPath:              dataPath,
		Storage:               db,
		Logger:                log,
		ClusterName:           settings.Get("cluster.name"),
		NodeName:              nodeName,
		AutoCreateIndex:       settings.Bool("action.auto_create_index"),
		MaxOpenScrollContexts: settings.Int("search.max_open_scroll_context"),
		Node:                  nodeConfig(settings),
		ScriptsPath:           settings.Get("path.scripts"),
		ScriptAllowedTypes:    settings.Get("script.allowed_types"),
		ScriptAllowedContexts: settings.Get("script.allowed_contexts"),
		PointsCacheBytes:      pointsCacheBytes(settings),
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open engine: %w", err)
	}
	as, err := appsearch.New(ctx, appsearch.Config{
		Core:            engine,
		Store:           db,
		DefaultRevision: appsearch.Revision(settings.Get("appsearch.revision")),
		RateLimits: appsearch.RateLimits{
			Default: settings.Int("appsearch.rate_limit"),
			Endpoints: map[string]int{
				"search":           settings.Int("appsearch.rate_limit.search"),
				"query_suggestion": settings.Int("appsearch.rate_limit.query_suggestion"),
			},
		},
	})
	if err != nil {
		_ = engine.Close()
		_ = db.Close()
		return nil, fmt.Errorf("open app search: %w", err)
	}
	opts := handlers.Options{
		Logger:           log,
		MaxContentLength: settings.Bytes("http.max_content_length"),
		AppSearch:        as,
		HTTPTLS:          tlsConfig != nil,
		Production:       production,
		Pprof:            settings.Bool("ext.pprof.enabled"),
		Spec:             spec,
	}
	if settings.Bool("ext.security.enabled") {
		sec, generated, err := openSecurity(ctx, settings, db)
		if err != nil {
			_ = engine.Close()
			_ = db.Close()
			return nil, err
		}
		if generated != "" {
			printGeneratedPassword(console, generated)
		}
		opts.Security = sec
	}
	opts.SuperuserAuth = superuserAuth(opts.Security)
	e, err := handlers.NewServer(engine, opts)
	if err != nil {
		_ = engine.Close()
		_ = db.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, settings.Get("http.port")))
	if err != nil {
		_ = engine.Close()
		_ = db.Close()
		return nil, fmt.Errorf("listen: %w", err)
	}
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
	}
	n := &node{
		addr:     ln.Addr().String(),
		http:     &http.Server{Handler: e, ReadHeaderTimeout: 30 * time.Second, ConnState: e.Server.ConnState},
		engine:   engine,
		db:       db,
		serveErr: make(chan error, 1),
		log:      log,
	}
	go func() {
		if err := n.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.serveErr <- err
		}
	}()
	if port := settings.Get("appsearch.port"); port != "" {
		opts.AppSearchOnly = true
		ase, err := handlers.NewServer(engine, opts)
		if err == nil {
			var asln net.Listener
			if asln, err = net.Listen("tcp", net.JoinHostPort(host, port)); err == nil {
				n.asAddr = asln.Addr().String()
				n.asHTTP = &http.Server{Handler: ase, ReadHeaderTimeout: 30 * time.Second}
				go func() {
					if err := n.asHTTP.Serve(asln); err != nil && !errors.Is(err, http.ErrServerClosed) {
						n.serveErr <- err
					}
				}()
			}
		}
		if err != nil {
			_ = n.close(time.Second)
			return nil, fmt.Errorf("app search listener: %w", err)
		}
		log.Info("app search listening", "address", n.asAddr)
	}
	return n, nil
}

// superuserAuth decides who is the cluster superuser on the App Search API.
// With security disabled the cluster authenticates nobody and every caller
// is the superuser, so any Basic credentials are accepted (a fresh node can
// create its first keys); with security enabled the security realm's check
// is wired here (until then Basic auth is refused).
func superuserAuth(sec *security.Service) handlers.SuperuserAuthFunc {
	if sec != nil {
		return sec.AuthenticateSuperuser
	}
	// Security off: every request is the anonymous superuser.
	return func(_ context.Context, header, _ string) (bool, error) {
		return strings.HasPrefix(header, "Basic "), nil
	}
}

// close stops accepting requests, finishes in-flight ones and flushes
// everything to disk.
func (n *node) close(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := n.http.Shutdown(ctx)
	if n.asHTTP != nil {
		if aerr := n.asHTTP.Shutdown(ctx); aerr != nil && err == nil {
			err = aerr
		}
	}
	if cerr := n.engine.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if cerr := n.db.Close(); cerr != nil && err == nil {
		err = cerr
	}
	n.log.Info("stopped")
	return err
}

func newLogger(s Settings, stderr io.Writer) (*slog.Logger, func(), error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(s.Get("log.level"))); err != nil {
		return nil, nil, err
	}
	out := stderr
	closeFn := func() {}
	if dir := s.Get("path.logs"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, err
		}
		f, err := os.OpenFile(filepath.Join(dir, s.Get("cluster.name")+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, nil, err
		}
		out = f
		closeFn = func() { _ = f.Close() }
	}
	opts := &slog.HandlerOptions{Level: level}
	if s.Get("log.format") == "json" {
		return slog.New(slog.NewJSONHandler(out, opts)), closeFn, nil
	}
	return slog.New(slog.NewTextHandler(out, opts)), closeFn, nil
}
