package security

import (
	"context"
	"encoding/base64"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// memStore is an in-memory Store.
type memStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memStore) PutMeta(_ context.Context, k string, v []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[k] = append([]byte(nil), v...)
	return nil
}

func (s *memStore) GetMeta(_ context.Context, k string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[k]
	if !ok {
		return nil, searchcore.ErrNotFound
	}
	return v, nil
}

func (s *memStore) DeleteMeta(_ context.Context, k string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, k)
	return nil
}

func (s *memStore) ListMeta(_ context.Context, prefix string, fn func(string, []byte) error) error {
	s.mu.Lock()
	var keys []string
	for k := range s.m {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	vals := make([][]byte, len(keys))
	for i, k := range keys {
		vals[i] = s.m[k]
	}
	s.mu.Unlock()
	for i, k := range keys {
		if err := fn(k, vals[i]); err != nil {
			return err
		}
	}
	return nil
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newTestService(t *testing.T) (*Service, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)}
	s, gen, err := Open(context.Background(), Config{Store: &memStore{m: map[string][]byte{}}, Now: c.now, BootstrapPassword: "elastic-pw", BcryptCost: bcrypt.MinCost, FailureBurst: 3, FailureRefill: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if gen != "" {
		t.Fatalf("generated a password although ELASTIC_PASSWORD was given")
	}
	return s, c
}

func basicHeader(u, p string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(u+":"+p))
}

// TestBearerResolvesToFirstService stores one bearer value both as a
// service account token and as an access token: the service account wins,
// and once it is deleted the token service answers.
func TestBearerResolvesToFirstService(t *testing.T) {
	ctx := context.Background()
	s, c := newTestService(t)
	if _, err := s.PutUser(ctx, "alice", &PutUserRequest{Password: ptr("alice-pw"), Roles: []string{"viewer"}}); err != nil {
		t.Fatal(err)
	}
	_, value, err := s.CreateServiceToken(ctx, "elastic", "fleet-server", "both")
	if err != nil {
		t.Fatal(err)
	}
	alice, err := s.Authenticate(ctx, Credentials{Header: basicHeader("alice", "alice-pw")})
	if err != nil {
		t.Fatal(err)
	}
	sh, _ := s.newSecretHash(value)
	rec := &tokenRecord{Secret: sh, User: alice.User, Realm: alice.AuthenticationRealm, Created: c.t, Expires: c.t.Add(time.Hour)}
	if err := s.putJSON(ctx, keyToken+lookupKey(value), rec); err != nil {
		t.Fatal(err)
	}
	a, err := s.Authenticate(ctx, Credentials{Header: "Bearer " + value})
	if err != nil || a.ServiceAccount != "elastic/fleet-server" || a.TokenSource != TokenSourceIndex {
		t.Fatalf("first service: %+v, %v", a, err)
	}
	if _, err := s.DeleteServiceToken(ctx, "elastic", "fleet-server", "both"); err != nil {
		t.Fatal(err)
	}
	a, err = s.Authenticate(ctx, Credentials{Header: "Bearer " + value})
	if err != nil || a.User.Username != "alice" || a.Type != TypeToken {
		t.Fatalf("after deletion: %+v, %v", a, err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestBruteForceGuard(t *testing.T) {
	ctx := context.Background()
	s, c := newTestService(t)
	good := Credentials{Header: basicHeader("elastic", "elastic-pw"), Source: "10.0.0.1"}
	bad := Credentials{Header: basicHeader("elastic", "wrong-pw"), Source: "10.0.0.1"}
	// A known-good client authenticates once before the attack.
	if _, err := s.Authenticate(ctx, good); err != nil {
		t.Fatal(err)
	}
	codes := []eserr.Code{}
	for i := 0; i < 5; i++ {
		_, err := s.Authenticate(ctx, bad)
		e, _ := eserr.AsError(err)
		codes = append(codes, e.Code)
	}
	want := []eserr.Code{eserr.Unauthorized, eserr.Unauthorized, eserr.Unauthorized, eserr.TooManyRequests, eserr.TooManyRequests}
	for i := range want {
		if codes[i] != want[i] {
			t.Fatalf("failure codes = %v, want %v", codes, want)
		}
	}
	_, err := s.Authenticate(ctx, bad)
	e, _ := eserr.AsError(err)
	if e.Reason != "too many failed authentication attempts from [10.0.0.1]; retry in [60s]" {
		t.Errorf("429 reason = %q", e.Reason)
	}
	// The good client is not locked out; another source is not limited.
	if _, err := s.Authenticate(ctx, good); err != nil {
		t.Errorf("good client locked out: %v", err)
	}
	if _, err := s.Authenticate(ctx, Credentials{Header: bad.Header, Source: "10.0.0.2"}); err == nil {
		t.Error("wrong password accepted")
	} else if e, _ := eserr.AsError(err); e.Code != eserr.Unauthorized {
		t.Errorf("other source code = %v", e.Code)
	}
	// The budget refills with time.
	c.t = c.t.Add(2 * time.Minute)
	if _, err := s.Authenticate(ctx, bad); err == nil {
		t.Error("wrong password accepted")
	} else if e, _ := eserr.AsError(err); e.Code != eserr.Unauthorized {
		t.Errorf("after refill code = %v, want 401", e.Code)
	}
}

func TestRefreshTokenUsableOnce(t *testing.T) {
	ctx := context.Background()
	s, c := newTestService(t)
	res, err := s.CreateToken(ctx, nil, TokenRequest{GrantType: "password", Username: "elastic", Password: "elastic-pw"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExpiresIn != 20*time.Minute || res.RefreshToken == "" {
		t.Fatalf("token = %+v", res)
	}
	next, err := s.CreateToken(ctx, nil, TokenRequest{GrantType: "refresh_token", RefreshToken: res.RefreshToken})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.CreateToken(ctx, nil, TokenRequest{GrantType: "refresh_token", RefreshToken: res.RefreshToken})
	if e, _ := eserr.AsError(err); e == nil || e.Reason != "invalid_grant" || e.Meta[0].Value != "token has already been refreshed" {
		t.Errorf("second refresh: %v", err)
	}
	c.t = c.t.Add(RefreshTokenLifetime)
	_, err = s.CreateToken(ctx, nil, TokenRequest{GrantType: "refresh_token", RefreshToken: next.RefreshToken})
	if e, _ := eserr.AsError(err); e == nil || e.Meta[0].Value != "refresh token is expired" {
		t.Errorf("expired refresh: %v", err)
	}
}

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"logs-*", "logs-a", true}, {"logs-*", "log", false}, {"a?c", "abc", true},
		{"cluster:monitor/*", "cluster:monitor/health", true}, {"*-b", "a-b-b", true}, {"a*b*c", "axxbyyc", true}, {"a*b*c", "axxbyy", false},
	}
	for _, tc := range cases {
		if got := globMatch(tc.p, tc.s); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tc.p, tc.s, got, tc.want)
		}
	}
}

// TestSecretsStoredOnlyAsHashes: passwords, access and refresh tokens, API
// keys and service account tokens appear nowhere in the store (keys or
// values), in any encoding a client sees; each is stored as a salted hash.
func TestSecretsStoredOnlyAsHashes(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestService(t)
	if _, err := s.PutUser(ctx, "alice", &PutUserRequest{Password: ptr("alice-secret-pw"), Roles: []string{"superuser"}}); err != nil {
		t.Fatal(err)
	}
	alice, err := s.Authenticate(ctx, Credentials{Header: basicHeader("alice", "alice-secret-pw")})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.CreateToken(ctx, alice, TokenRequest{GrantType: "password", Username: "alice", Password: "alice-secret-pw"})
	if err != nil {
		t.Fatal(err)
	}
	key, err := s.CreateAPIKey(ctx, alice, &CreateAPIKeyRequest{Name: "k"})
	if err != nil {
		t.Fatal(err)
	}
	_, value, err := s.CreateServiceToken(ctx, "elastic", "fleet-server", "t1")
	if err != nil {
		t.Fatal(err)
	}
	// The value is ES's: version bytes 0,1,0,1, then
	// "<namespace>/<service>/<name>:<secret>", URL-safe base64 unpadded.
	raw, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil {
		t.Fatalf("service token value %q: %v", value, err)
	}
	_, svcSecret, ok := strings.Cut(string(raw), ":")
	if !ok || !strings.HasPrefix(string(raw), "\x00\x01\x00\x01elastic/fleet-server/t1:") {
		t.Fatalf("service token value decodes to %q", raw)
	}
	secrets := map[string]string{
		"elastic password": "elastic-pw", "alice password": "alice-secret-pw",
		"access token": tok.AccessToken, "refresh token": tok.RefreshToken,
		"api key": key.APIKey, "encoded api key": key.Encoded,
		"service token": value, "service token secret": svcSecret,
	}
	for name, secret := range secrets {
		if len(secret) < 8 {
			t.Fatalf("%s %q is too short to search for", name, secret)
		}
	}
	records := 0
	err = s.store.ListMeta(ctx, "", func(k string, v []byte) error {
		records++
		for name, secret := range secrets {
			if strings.Contains(k, secret) || strings.Contains(string(v), secret) {
				t.Errorf("the %s is stored in plain text under %s", name, k)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if records < 5 {
		t.Errorf("only %d records: the secrets were not stored", records)
	}
	// And each still authenticates (the hashes are what is compared).
	for _, h := range []string{"Bearer " + tok.AccessToken, "ApiKey " + key.Encoded, "Bearer " + value} {
		if _, err := s.Authenticate(ctx, Credentials{Header: h}); err != nil {
			t.Errorf("%s: %v", h[:6], err)
		}
	}
}
