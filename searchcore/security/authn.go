package security

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Authentication types reported by _authenticate.
const (
	TypeRealm  = "realm"
	TypeToken  = "token"
	TypeAPIKey = "api_key"
)

// Realm names a realm (name and type).
type Realm struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Authentication is an authenticated principal.
type Authentication struct {
	User                User
	AuthenticationRealm Realm
	LookupRealm         Realm
	Type                string
	// APIKeyID and APIKeyName are set for API key authentication.
	APIKeyID   string
	APIKeyName string
	// ServiceAccount is the account ("elastic/fleet-server") and TokenName
	// the credential for service account authentication.
	ServiceAccount string
	TokenName      string
	TokenSource    string
	// Warnings are deprecation warnings the response should carry.
	Warnings []string

	// roles are the effective role descriptors; limitedBy, when not nil,
	// bounds them (an API key's owner's roles at creation).
	roles     []*RoleDescriptor
	roleNames []string
	limitedBy []*RoleDescriptor
	superuser bool
}

// Superuser reports whether the principal holds the superuser role or the
// cluster privilege all (also through an API key's limitation).
func (a *Authentication) Superuser() bool { return a.superuser }

// Credentials is what a request presents: the Authorization header value,
// the client address (for the brute-force guard) and the request URI (for
// error messages).
type Credentials struct {
	Header string
	Source string
	URI    string
}

// Challenges are the WWW-Authenticate values of a 401 answer.
var Challenges = []string{`Basic realm="security" charset="UTF-8"`, `Bearer realm="security"`, `ApiKey`}

// authError is a 401 security_exception carrying the challenges in its
// "header" member (rendered as response headers too).
func authError(challenges []string, format string, args ...any) *eserr.Error {
	return eserr.Errorf(eserr.Unauthorized, "security_exception", format, args...).
		With("header", map[string][]string{"WWW-Authenticate": challenges})
}

func unsuccessful(detail string) *eserr.Error {
	e := eserr.Errorf(eserr.Unauthorized, "security_exception", "unable to authenticate with provided credentials and anonymous access is not allowed for this request")
	return e.With("additional_unsuccessful_credentials", detail).With("header", map[string][]string{"WWW-Authenticate": Challenges})
}

// Authenticate resolves credentials through service accounts, the token
// service, API keys and then the realm chain (reserved, file, native).
// Failures are 401 security_exception errors; a source over the failure
// budget gets 429 unless its credentials are known good.
func (s *Service) Authenticate(ctx context.Context, c Credentials) (*Authentication, error) {
	scheme, value, _ := strings.Cut(strings.TrimSpace(c.Header), " ")
	value = strings.TrimSpace(value)
	var (
		a   *Authentication
		err error
	)
	// The guard needs a source; callers without one (App Search's admin
	// check) are not rate-limited here.
	limited := c.Source != "" && s.guard.limited(c.Source, s.now())
	switch strings.ToLower(scheme) {
	case "basic":
		a, err = s.authenticateBasic(ctx, value, c.URI, limited)
	case "bearer":
		a, err = s.authenticateBearer(ctx, value)
	case "apikey":
		a, err = s.authenticateAPIKey(ctx, value)
	default:
		return nil, authError(Challenges, "missing authentication credentials for REST request [%s]", c.URI)
	}
	if err != nil {
		if e, ok := eserr.AsError(err); ok && e.Code == eserr.Unauthorized && c.Source != "" {
			s.guard.fail(c.Source, s.now())
			if limited {
				return nil, tooManyFailures(c.Source, s.guard.retryAfter(c.Source, s.now()))
			}
		}
		return nil, err
	}
	return a, nil
}

// tooManyFailures is the brute-force guard's answer (429).
func tooManyFailures(source string, retry time.Duration) *eserr.Error {
	secs := int(retry.Seconds() + 0.999)
	if secs < 1 {
		secs = 1
	}
	return eserr.Errorf(eserr.TooManyRequests, "security_exception", "too many failed authentication attempts from [%s]; retry in [%ds]", source, secs).
		With("header", map[string][]string{"Retry-After": {fmt.Sprint(secs)}})
}

// AuthenticateSuperuser reports whether an Authorization header value
// authenticates (by any method) a principal holding the superuser role or
// the cluster privilege all. Authentication failures are (false, nil);
// failures count against source in the brute-force guard, and a source over
// its budget gets the guard's 429 error (unless its credentials are good).
// Other errors are internal failures. App Search uses it for its admin
// checks.
func (s *Service) AuthenticateSuperuser(ctx context.Context, authorizationHeader, source string) (bool, error) {
	a, err := s.Authenticate(ctx, Credentials{Header: authorizationHeader, Source: source, URI: "/api/as/v1/"})
	if err != nil {
		if e, ok := eserr.AsError(err); ok && e.Code != eserr.Internal && e.Code != eserr.TooManyRequests {
			return false, nil
		}
		return false, err
	}
	return a.Superuser(), nil
}

func (s *Service) authenticateBasic(ctx context.Context, value, uri string, limited bool) (*Authentication, error) {
	raw, err := base64.StdEncoding.DecodeString(value)
	if err != nil {
		return nil, authError(Challenges, "invalid basic authentication header encoding")
	}
	user, password, ok := strings.Cut(string(raw), ":")
	if !ok {
		return nil, authError(Challenges, "invalid basic authentication header value")
	}
	fail := authError(Challenges, "unable to authenticate user [%s] for REST request [%s]", user, uri)
	rec, realm, err := s.lookupPrincipal(ctx, user)
	if errors.Is(err, searchcore.ErrNotFound) {
		return nil, fail
	}
	if err != nil {
		return nil, err
	}
	if !rec.Enabled || rec.PasswordHash == "" {
		return nil, fail
	}
	if !s.cache.check(user, rec.PasswordHash, password) {
		if limited {
			// Over the failure budget only known-good credentials pass;
			// nothing else costs a bcrypt comparison.
			return nil, fail
		}
		if bcrypt.CompareHashAndPassword([]byte(rec.PasswordHash), []byte(password)) != nil {
			return nil, fail
		}
		s.cache.remember(user, rec.PasswordHash, password)
	}
	a := &Authentication{User: rec.User, AuthenticationRealm: realm, LookupRealm: realm, Type: TypeRealm}
	if w := UserDeprecation(user); w != "" {
		a.Warnings = append(a.Warnings, w)
	}
	if err := s.resolveRoles(ctx, a, rec.Roles); err != nil {
		return nil, err
	}
	return a, nil
}

// lookupPrincipal finds a user along the realm chain: reserved, file,
// native.
func (s *Service) lookupPrincipal(ctx context.Context, name string) (*userRecord, Realm, error) {
	if _, ok := reservedRoles(name); ok {
		rec, err := s.reservedUser(ctx, name)
		return rec, Realm{Name: realmReserved, Type: realmReserved}, err
	}
	if rec, ok := s.files.user(name); ok {
		return rec, Realm{Name: realmFile, Type: typeFile}, nil
	}
	rec, err := s.loadUser(ctx, name)
	return rec, Realm{Name: realmNative, Type: typeNative}, err
}

// resolveRoles loads the role descriptors of the named roles (unknown
// roles grant nothing, like Elasticsearch).
func (s *Service) resolveRoles(ctx context.Context, a *Authentication, names []string) error {
	a.roleNames = names
	for _, n := range names {
		r, ok, err := s.Role(ctx, n)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if w := RoleDeprecation(n); w != "" {
			a.Warnings = append(a.Warnings, w)
		}
		a.roles = append(a.roles, r)
	}
	a.superuser = a.permits(hasClusterAll)
	return nil
}

func hasClusterAll(roles []*RoleDescriptor) bool {
	for _, r := range roles {
		for _, c := range r.Cluster {
			if c == "all" {
				return true
			}
		}
	}
	return false
}

// credentialCache remembers verified passwords (as salted SHA-256 bound to
// the stored bcrypt hash) so that each request does not pay for bcrypt.
type credentialCache struct {
	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	bcryptHash string
	salted     secretHash
}

func newCredentialCache() *credentialCache {
	return &credentialCache{entries: map[string]cacheEntry{}}
}

func (c *credentialCache) check(user, bcryptHash, password string) bool {
	c.mu.Lock()
	e, ok := c.entries[user]
	c.mu.Unlock()
	return ok && e.bcryptHash == bcryptHash && e.salted.matches(password)
}

func (c *credentialCache) remember(user, bcryptHash, password string) {
	salt := lookupKey(bcryptHash + user)
	c.mu.Lock()
	c.entries[user] = cacheEntry{bcryptHash: bcryptHash, salted: secretHash{Salt: salt, Hash: saltedSHA256(salt, password)}}
	c.mu.Unlock()
}

func (c *credentialCache) forget(user string) {
	c.mu.Lock()
	delete(c.entries, user)
	c.mu.Unlock()
}

func bcryptCost(hash string) (int, error) {
	return bcrypt.Cost([]byte(hash))
}

// failureGuard is a per-source token bucket of failed authentications.
type failureGuard struct {
	mu      sync.Mutex
	burst   float64
	refill  time.Duration
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newFailureGuard(burst int, refill time.Duration) *failureGuard {
	return &failureGuard{burst: float64(burst), refill: refill, buckets: map[string]*bucket{}}
}

func (g *failureGuard) current(source string, now time.Time) *bucket {
	b, ok := g.buckets[source]
	if !ok {
		b = &bucket{tokens: g.burst, at: now}
		g.buckets[source] = b
	}
	if el := now.Sub(b.at); el > 0 {
		b.tokens += float64(el) / float64(g.refill)
		if b.tokens > g.burst {
			b.tokens = g.burst
		}
		b.at = now
	}
	return b
}

// limited reports whether the source has used up its failure budget.
func (g *failureGuard) limited(source string, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	b := g.current(source, now)
	if b.tokens >= g.burst {
		// Full buckets carry no information: drop them to bound memory.
		delete(g.buckets, source)
	}
	return b.tokens < 1
}

// maxGuardSources bounds the guard's memory: past it, sources whose budget
// has refilled are forgotten.
const maxGuardSources = 10000

func (g *failureGuard) fail(source string, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.buckets) >= maxGuardSources {
		for k, b := range g.buckets {
			if b.tokens+float64(now.Sub(b.at))/float64(g.refill) >= g.burst {
				delete(g.buckets, k)
			}
		}
	}
	b := g.current(source, now)
	if b.tokens > 0 {
		b.tokens--
	}
}

func (g *failureGuard) retryAfter(source string, now time.Time) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	b := g.current(source, now)
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) * float64(g.refill))
}
