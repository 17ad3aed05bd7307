package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/quarry-search/quarry/searchcore/security"
	"github.com/quarry-search/quarry/store"
)

// isProduction reports whether the HTTP bind address is not a loopback
// address (Elasticsearch's production mode).
func isProduction(host string) bool {
	if host == "" || host == "localhost" || host == "_local_" {
		return false
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip == nil || !ip.IsLoopback()
}

// openSecurity starts the security service over the store: the elastic
// password comes from ELASTIC_PASSWORD at first start, the file stores
// from path.conf.
func openSecurity(ctx context.Context, s Settings, db *store.DB) (*security.Service, string, error) {
	conf := s.Get("path.conf")
	sec, generated, err := security.Open(ctx, security.Config{
		Store:             db,
		BootstrapPassword: os.Getenv("ELASTIC_PASSWORD"),
		TokenTimeout:      s.Duration("ext.security.authc.token.timeout"),
		ServiceTokensFile: filepath.Join(conf, "service_tokens"),
		UsersFile:         filepath.Join(conf, "users"),
		UsersRolesFile:    filepath.Join(conf, "users_roles"),
	})
	if err != nil {
		return nil, "", fmt.Errorf("start security: %w", err)
	}
	return sec, generated, nil
}

// printGeneratedPassword shows the generated elastic password once, on the
// console only (never in the log).
func printGeneratedPassword(w io.Writer, pw string) {
	fmt.Fprintf(w, "\n------------------------------------------------------------------\n"+
		"Security is enabled. The password of the [elastic] superuser is:\n\n  %s\n\n"+
		"It is shown only now. Change it with PUT /_security/user/elastic/_password,\n"+
		"or set ELASTIC_PASSWORD before the first start.\n"+
		"------------------------------------------------------------------\n\n", pw)
}

// httpTLSConfig builds the HTTPS configuration from ext.security.http.ssl.*
// (nil when HTTPS is off).
func httpTLSConfig(s Settings) (*tls.Config, error) {
	if !s.Bool("ext.security.http.ssl.enabled") {
		return nil, nil
	}
	certFile, keyFile := s.Get("ext.security.http.ssl.certificate"), s.Get("ext.security.http.ssl.key")
	if certFile == "" || keyFile == "" {
		return nil, fmt.Errorf("[ext.security.http.ssl.enabled] is true but [ext.security.http.ssl.certificate] and [ext.security.http.ssl.key] are not both set")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("load HTTP certificate: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	mode := s.Get("ext.security.http.ssl.client_authentication")
	cas := s.Get("ext.security.http.ssl.certificate_authorities")
	if cas != "" {
		pool := x509.NewCertPool()
		for _, f := range strings.Split(cas, ",") {
			b, err := os.ReadFile(strings.TrimSpace(f))
			if err != nil {
				return nil, fmt.Errorf("read certificate authority: %w", err)
			}
			if !pool.AppendCertsFromPEM(b) {
				return nil, fmt.Errorf("certificate authority %s holds no PEM certificate", f)
			}
		}
		cfg.ClientCAs = pool
	}
	switch mode {
	case "optional":
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	case "required":
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	if mode != "none" && cfg.ClientCAs == nil {
		return nil, fmt.Errorf("[ext.security.http.ssl.client_authentication] is [%s] but [ext.security.http.ssl.certificate_authorities] is not set", mode)
	}
	return cfg, nil
}

// startupChecks are the production-mode checks (bound to a non-loopback
// address): failures stop the node, like Elasticsearch's bootstrap checks.
func startupChecks(s Settings, production bool, log *slog.Logger) error {
	if !production {
		return nil
	}
	var failed []string
	if !s.Bool("ext.security.enabled") {
		log.Warn("security is disabled on a node bound to a non-loopback address: every request is the anonymous superuser")
	}
	if s.Bool("ext.security.enabled") && !s.Bool("ext.security.http.ssl.enabled") {
		log.Warn("HTTP TLS is off in production mode: the service account APIs and tokens are blocked until [ext.security.http.ssl.enabled] is true")
	}
	if d := s.Duration("ext.security.authc.token.timeout"); d > security.MaxTokenTimeout {
		failed = append(failed, "[ext.security.authc.token.timeout] must be at most 1h")
	}
	dir := s.Get("path.data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		failed = append(failed, fmt.Sprintf("[path.data] %s is not writable: %v", dir, err))
	} else if f, err := os.CreateTemp(dir, ".write-check-*"); err != nil {
		failed = append(failed, fmt.Sprintf("[path.data] %s is not writable: %v", dir, err))
	} else {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}
	if len(failed) > 0 {
		return fmt.Errorf("production mode start-up checks failed (the node is bound to a non-loopback address): %s", strings.Join(failed, "; "))
	}
	return nil
}
