package security

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// Store is the durable key/value persistence the security service needs
// (implemented by the badger store's metadata methods).
type Store interface {
	// PutMeta durably stores value under key.
	PutMeta(ctx context.Context, key string, value []byte) error
	// GetMeta returns the value under key. Returns searchcore.ErrNotFound if absent.
	GetMeta(ctx context.Context, key string) ([]byte, error)
	// DeleteMeta removes key; deleting a missing key is not an error.
	DeleteMeta(ctx context.Context, key string) error
	// ListMeta calls fn for every key with the prefix, in key order.
	ListMeta(ctx context.Context, prefix string, fn func(key string, value []byte) error) error
}

// Key prefixes of the security objects in the Store.
const (
	keyUser         = "security/user/"
	keyRole         = "security/role/"
	keyToken        = "security/token/"
	keyRefresh      = "security/refresh/"
	keyAPIKey       = "security/api_key/"
	keyServiceToken = "security/service_token/"
)

// Config configures the security service.
type Config struct {
	// Store persists users, roles, tokens, API keys and service tokens.
	Store Store
	// Now is the clock (time.Now when nil); tests inject a fake one.
	Now func() time.Time
	// Rand is the source of secrets (crypto/rand when nil).
	Rand io.Reader
	// BootstrapPassword is the elastic user's password set at first start
	// (ELASTIC_PASSWORD); a random one is generated when empty.
	BootstrapPassword string
	// TokenTimeout is the access token lifetime: default 20m, at most 1h.
	TokenTimeout time.Duration
	// ServiceTokensFile, UsersFile and UsersRolesFile are the file-based
	// stores (service_tokens, users, users_roles); empty disables each.
	ServiceTokensFile string
	UsersFile         string
	UsersRolesFile    string
	// FailureBurst failed authentications are allowed per source before
	// the brute-force guard rejects unknown credentials; one more is
	// allowed every FailureRefill (defaults 20 and 3s).
	FailureBurst  int
	FailureRefill time.Duration
	// BcryptCost is the password hashing cost (bcrypt.DefaultCost when 0).
	BcryptCost int
}

// MaxTokenTimeout is the longest configurable access token lifetime.
const MaxTokenTimeout = time.Hour

// Service authenticates requests and authorizes actions. It is safe for
// concurrent use.
type Service struct {
	store Store
	now   func() time.Time
	rand  io.Reader
	cfg   Config
	roles map[string]*RoleDescriptor
	sa    map[string]*RoleDescriptor
	mu    sync.Mutex // serializes read-modify-write of records
	cache *credentialCache
	guard *failureGuard
	files *fileStores
	cost  int
	// lastPrune is when expired tokens were last removed.
	pruneMu   sync.Mutex
	lastPrune time.Time
}

// Open starts the service. At first start (no elastic user record) it
// stores the elastic user with BootstrapPassword, or a generated password
// which it returns (the caller prints it once); otherwise generated is "".
func Open(ctx context.Context, cfg Config) (svc *Service, generated string, err error) {
	if cfg.Store == nil {
		return nil, "", errors.New("security: no store")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.TokenTimeout == 0 {
		cfg.TokenTimeout = 20 * time.Minute
	}
	if cfg.TokenTimeout < time.Second || cfg.TokenTimeout > MaxTokenTimeout {
		return nil, "", fmt.Errorf("security: [ext.security.authc.token.timeout] must be between 1s and 1h, got %s", cfg.TokenTimeout)
	}
	if cfg.FailureBurst <= 0 {
		cfg.FailureBurst = 20
	}
	if cfg.FailureRefill <= 0 {
		cfg.FailureRefill = 3 * time.Second
	}
	if cfg.BcryptCost == 0 {
		cfg.BcryptCost = bcrypt.DefaultCost
	}
	s := &Service{
		store: cfg.Store, now: cfg.Now, rand: cfg.Rand, cfg: cfg,
		roles: builtinRoles(), sa: serviceAccounts(),
		cache: newCredentialCache(),
		guard: newFailureGuard(cfg.FailureBurst, cfg.FailureRefill),
		files: &fileStores{serviceTokens: cfg.ServiceTokensFile, users: cfg.UsersFile, usersRoles: cfg.UsersRolesFile},
		cost:  cfg.BcryptCost,
	}
	_, err = s.loadUser(ctx, "elastic")
	switch {
	case err == nil:
		return s, "", nil
	case !errors.Is(err, searchcore.ErrNotFound):
		return nil, "", err
	}
	pw := cfg.BootstrapPassword
	if pw == "" {
		pw, err = s.randomString(15)
		if err != nil {
			return nil, "", err
		}
		generated = pw
	} else if len(pw) < minPasswordLength {
		return nil, "", fmt.Errorf("security: ELASTIC_PASSWORD must be at least %d characters long", minPasswordLength)
	}
	hash, err := s.hashPassword(pw)
	if err != nil {
		return nil, "", err
	}
	rec := &userRecord{User: User{Username: "elastic", Roles: []string{"superuser"}, Enabled: true}, PasswordHash: hash, Reserved: true}
	if err := s.putUserRecord(ctx, rec); err != nil {
		return nil, "", err
	}
	return s, generated, nil
}

// randomString returns n random bytes, base64url-encoded.
func (s *Service) randomString(n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(s.rand, b); err != nil {
		return "", fmt.Errorf("security: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func (s *Service) hashPassword(pw string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(pw), s.cost)
	if err != nil {
		return "", eserr.ValidationError(err.Error())
	}
	return string(h), nil
}

// secretHash is the stored form of a high-entropy secret (token, API key,
// service token): a salted SHA-256, compared in constant time.
type secretHash struct {
	Salt string `json:"salt"`
	Hash string `json:"hash"`
}

func (s *Service) newSecretHash(secret string) (secretHash, error) {
	salt, err := s.randomString(16)
	if err != nil {
		return secretHash{}, err
	}
	return secretHash{Salt: salt, Hash: saltedSHA256(salt, secret)}, nil
}

func saltedSHA256(salt, secret string) string {
	sum := sha256.Sum256([]byte(salt + "\x00" + secret))
	return base64.RawStdEncoding.EncodeToString(sum[:])
}

func (h secretHash) matches(secret string) bool {
	got := saltedSHA256(h.Salt, secret)
	return subtle.ConstantTimeCompare([]byte(got), []byte(h.Hash)) == 1
}

// lookupKey is the unsalted digest used to find a record by its secret
// (access and refresh tokens); the record also holds a salted hash.
func lookupKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func (s *Service) getJSON(ctx context.Context, key string, v any) error {
	b, err := s.store.GetMeta(ctx, key)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("security: decode %s: %w", key, err)
	}
	return nil
}

func (s *Service) putJSON(ctx context.Context, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.store.PutMeta(ctx, key, b)
}

// Role returns a role by name (built-in roles included).
func (s *Service) Role(ctx context.Context, name string) (*RoleDescriptor, bool, error) {
	if r, ok := s.roles[name]; ok {
		return r, true, nil
	}
	var r RoleDescriptor
	err := s.getJSON(ctx, keyRole+name, &r)
	if errors.Is(err, searchcore.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	r.normalize()
	r.TransientMetadata = map[string]any{"enabled": true}
	return &r, true, nil
}

// Roles returns the named roles (every role when names is empty), sorted.
func (s *Service) Roles(ctx context.Context, names []string) (map[string]*RoleDescriptor, error) {
	out := map[string]*RoleDescriptor{}
	if len(names) == 0 {
		for n, r := range s.roles {
			out[n] = r
		}
		err := s.store.ListMeta(ctx, keyRole, func(key string, value []byte) error {
			var r RoleDescriptor
			if err := json.Unmarshal(value, &r); err != nil {
				return err
			}
			r.normalize()
			r.TransientMetadata = map[string]any{"enabled": true}
			out[key[len(keyRole):]] = &r
			return nil
		})
		return out, err
	}
	for _, n := range names {
		r, ok, err := s.Role(ctx, n)
		if err != nil {
			return nil, err
		}
		if ok {
			out[n] = r
		}
	}
	return out, nil
}

// PutRole creates or replaces a role and reports whether it was created.
func (s *Service) PutRole(ctx context.Context, name string, r *RoleDescriptor) (bool, error) {
	if err := ValidateRoleName(name); err != nil {
		return false, err
	}
	if _, ok := s.roles[name]; ok {
		return false, eserr.IllegalArgument("role [%s] is reserved and cannot be modified.", name)
	}
	if err := r.Validate(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.store.GetMeta(ctx, keyRole+name)
	created := errors.Is(err, searchcore.ErrNotFound)
	if err != nil && !created {
		return false, err
	}
	stored := *r
	stored.TransientMetadata = nil
	return created, s.putJSON(ctx, keyRole+name, &stored)
}

// DeleteRole removes a role and reports whether it existed.
func (s *Service) DeleteRole(ctx context.Context, name string) (bool, error) {
	if _, ok := s.roles[name]; ok {
		return false, eserr.IllegalArgument("role [%s] is reserved and cannot be deleted", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.store.GetMeta(ctx, keyRole+name)
	if errors.Is(err, searchcore.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, s.store.DeleteMeta(ctx, keyRole+name)
}

// RoleDeprecation returns the deprecation warning of a deprecated built-in
// role, or "".
func RoleDeprecation(name string) string {
	if repl, ok := deprecatedRoles[name]; ok {
		return fmt.Sprintf("The role [%s] is deprecated and will be removed in a future version of Elasticsearch. Please use the [%s] role instead.", name, repl)
	}
	return ""
}

// UserDeprecation returns the deprecation warning of a deprecated reserved
// user, or "".
func UserDeprecation(name string) string {
	if repl, ok := deprecatedUsers[name]; ok {
		return fmt.Sprintf("The user [%s] is deprecated and will be removed in a future version of Elasticsearch. Please use the [%s] user instead.", name, repl)
	}
	return ""
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
