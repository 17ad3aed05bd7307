package appsearch

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/quarry-search/quarry/searchcore/eserr"
)

// KeyType is the kind of an App Search key.
type KeyType string

// The three key types and their prefixes: search-… (search endpoints
// only), private-… (every engine endpoint, read/write flags, engine
// scoping) and admin-… (credentials only).
const (
	KeySearch  KeyType = "search"
	KeyPrivate KeyType = "private"
	KeyAdmin   KeyType = "admin"
)

// keySecretLength is the number of random characters after the prefix.
const keySecretLength = 24

// Key is a stored key. The secret is kept only as a SHA-256 hash (keys are
// 24 random characters of [a-z0-9], ~124 bits, so a fast hash suffices).
type Key struct {
	ID               string    `json:"id"`
	Name             string    `json:"name"`
	Type             KeyType   `json:"type"`
	Hash             string    `json:"hash"`
	Last4            string    `json:"last4"`
	Read             bool      `json:"read"`
	Write            bool      `json:"write"`
	AccessAllEngines bool      `json:"access_all_engines"`
	Engines          []string  `json:"engines,omitempty"`
	CreatedAt        time.Time `json:"created_at"`
}

// KeySpec is a create or replace request.
type KeySpec struct {
	Name             string
	Type             string
	Read             *bool
	Write            *bool
	AccessAllEngines *bool
	Engines          []string
}

// KeyView is the API form of a key. Key holds the secret only in the answer
// to its creation; afterwards it is masked ("private-********************a1b2").
type KeyView struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	Type             KeyType  `json:"type"`
	Key              string   `json:"key"`
	Read             *bool    `json:"read,omitempty"`
	Write            *bool    `json:"write,omitempty"`
	AccessAllEngines *bool    `json:"access_all_engines,omitempty"`
	Engines          []string `json:"engines,omitempty"`
}

// View renders k; secret is the clear key (empty: masked).
func (k *Key) View(secret string) KeyView {
	v := KeyView{ID: k.ID, Name: k.Name, Type: k.Type, Key: secret}
	if secret == "" {
		v.Key = string(k.Type) + "-" + strings.Repeat("*", keySecretLength-4) + k.Last4
	}
	if k.Type == KeyAdmin {
		return v
	}
	if k.Type == KeyPrivate {
		r, w := k.Read, k.Write
		v.Read, v.Write = &r, &w
	}
	all := k.AccessAllEngines
	v.AccessAllEngines = &all
	if !all {
		v.Engines = append([]string{}, k.Engines...)
	}
	return v
}

var (
	keyNameRE   = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$`)
	keyFormatRE = regexp.MustCompile(`^(search|private|admin)-[a-z0-9]{24}$`)
)

const keyAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

func newSecret(t KeyType) string {
	var b [keySecretLength]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = keyAlphabet[int(b[i])%len(keyAlphabet)]
	}
	return string(t) + "-" + string(b[:])
}

func hashSecret(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// validateKey checks a key definition; cur is the key being replaced.
func (s *Service) validateKey(spec KeySpec, cur *Key) (*Key, error) {
	var msgs []string
	k := &Key{Name: spec.Name, Type: KeyType(spec.Type)}
	if cur != nil {
		k.Name = cur.Name
		if spec.Type == "" {
			k.Type = cur.Type
		}
	}
	switch {
	case k.Name == "":
		msgs = append(msgs, "Name is required")
	case !keyNameRE.MatchString(k.Name):
		msgs = append(msgs, "Name can only contain letters, numbers, hyphens and underscores (at most 64 characters)")
	}
	switch k.Type {
	case KeySearch, KeyPrivate, KeyAdmin:
	case "":
		msgs = append(msgs, "Type is required")
	default:
		msgs = append(msgs, "Type must be one of: search, private, admin")
	}
	if cur != nil && k.Type != cur.Type && k.Type != "" {
		msgs = append(msgs, "Type cannot be changed")
	}
	if k.Type == KeyPrivate {
		if spec.Read == nil || spec.Write == nil {
			msgs = append(msgs, "Private keys require read and write")
		} else {
			k.Read, k.Write = *spec.Read, *spec.Write
			if !k.Read && !k.Write {
				msgs = append(msgs, "Private keys need read or write access")
			}
		}
	}
	if k.Type == KeySearch {
		k.Read = true
	}
	if k.Type == KeySearch || k.Type == KeyPrivate {
		k.AccessAllEngines = spec.AccessAllEngines == nil && len(spec.Engines) == 0 || spec.AccessAllEngines != nil && *spec.AccessAllEngines
		if !k.AccessAllEngines {
			if len(spec.Engines) == 0 {
				msgs = append(msgs, "Engines are required when access_all_engines is false")
			}
			for _, n := range spec.Engines {
				if _, err := s.Engine(n); err != nil {
					msgs = append(msgs, fmt.Sprintf("Engine does not exist: %s", n))
				}
			}
			k.Engines = dedupe(spec.Engines)
		}
	} else if k.Type == KeyAdmin && (len(spec.Engines) > 0 || spec.Read != nil || spec.Write != nil) {
		msgs = append(msgs, "Admin keys cannot have read, write or engines")
	}
	if len(msgs) > 0 {
		return nil, Errors(eserr.Invalid, msgs...)
	}
	return k, nil
}

// CreateKey creates a key and returns it with its secret (shown once).
func (s *Service) CreateKey(ctx context.Context, spec KeySpec) (KeyView, error) {
	k, err := s.validateKey(spec, nil)
	if err != nil {
		return KeyView{}, err
	}
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	if _, ok := s.keys[k.Name]; ok {
		return KeyView{}, Errors(eserr.Invalid, "Name is already taken")
	}
	secret := newSecret(k.Type)
	var idb [12]byte
	_, _ = rand.Read(idb[:])
	k.ID = "quarry:" + hex.EncodeToString(idb[:]) + "|name:" + k.Name
	k.Hash = hashSecret(secret)
	k.Last4 = secret[len(secret)-4:]
	k.CreatedAt = s.now().UTC()
	if err := s.persistKey(ctx, k); err != nil {
		return KeyView{}, err
	}
	s.keys[k.Name] = k
	return k.View(secret), nil
}

// UpdateKey replaces a key's definition; its secret is kept.
func (s *Service) UpdateKey(ctx context.Context, name string, spec KeySpec) (KeyView, error) {
	cur, err := s.KeyByName(name)
	if err != nil {
		return KeyView{}, err
	}
	k, err := s.validateKey(spec, cur)
	if err != nil {
		return KeyView{}, err
	}
	k.ID, k.Hash, k.Last4, k.CreatedAt = cur.ID, cur.Hash, cur.Last4, cur.CreatedAt
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	if err := s.persistKey(ctx, k); err != nil {
		return KeyView{}, err
	}
	s.keys[k.Name] = k
	return k.View(""), nil
}

func keyNotFound(name string) error {
	return Errorf(eserr.NotFound, "Could not find credential with name: %s", name)
}

// KeyByName returns a key. Returns 404 when unknown.
func (s *Service) KeyByName(name string) (*Key, error) {
	s.keysMu.RLock()
	defer s.keysMu.RUnlock()
	k, ok := s.keys[name]
	if !ok {
		return nil, keyNotFound(name)
	}
	return k, nil
}

// Keys returns every key sorted by name.
func (s *Service) Keys() []*Key {
	s.keysMu.RLock()
	defer s.keysMu.RUnlock()
	out := make([]*Key, 0, len(s.keys))
	for _, k := range s.keys {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// DeleteKey deletes a key.
func (s *Service) DeleteKey(ctx context.Context, name string) error {
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	if _, ok := s.keys[name]; !ok {
		return keyNotFound(name)
	}
	if err := s.store.DeleteMeta(ctx, metaKeyPrefix+name); err != nil {
		return err
	}
	delete(s.keys, name)
	return nil
}

func (s *Service) persistKey(ctx context.Context, k *Key) error {
	b, err := json.Marshal(k)
	if err != nil {
		return err
	}
	return s.store.PutMeta(ctx, metaKeyPrefix+k.Name, b)
}

// Authenticate finds the key of a bearer token. A malformed or unknown key
// is a 400 {"error":"invalid authentication token"} (SPEC.md).
func (s *Service) Authenticate(token string) (*Principal, error) {
	if !keyFormatRE.MatchString(token) {
		return nil, AuthError(MsgInvalidToken)
	}
	h := hashSecret(token)
	s.keysMu.RLock()
	defer s.keysMu.RUnlock()
	for _, k := range s.keys {
		if subtle.ConstantTimeCompare([]byte(k.Hash), []byte(h)) == 1 {
			return &Principal{Key: k}, nil
		}
	}
	return nil, AuthError(MsgInvalidToken)
}

// Access is what an endpoint needs.
type Access int

// Access levels of the endpoints.
const (
	// AccessSearch: search, multi_search, query_suggestion, click (search
	// keys and private keys).
	AccessSearch Access = iota
	// AccessRead: reading engine data (private keys with read).
	AccessRead
	// AccessWrite: changing engine data (private keys with write).
	AccessWrite
	// AccessAdmin: the credentials API (admin keys).
	AccessAdmin
)

// Principal is an authenticated caller: a key, or the cluster superuser.
type Principal struct {
	Key       *Key
	Superuser bool
}

// SuperuserPrincipal is the cluster superuser (every endpoint).
func SuperuserPrincipal() *Principal { return &Principal{Superuser: true} }

// ID identifies the caller for rate limiting.
func (p *Principal) ID() string {
	if p.Superuser {
		return "superuser"
	}
	return p.Key.ID
}

// CanSee reports whether the caller may access an engine at all.
func (p *Principal) CanSee(engine string) bool {
	if p.Superuser {
		return true
	}
	k := p.Key
	if k.Type == KeyAdmin {
		return false
	}
	return k.AccessAllEngines || contains(k.Engines, engine)
}

// Authorize checks that the caller may use an endpoint needing access on
// engine ("" for endpoints outside engines). Returns 403 {"error"} for a
// key of the wrong kind and 404 Could not find engine. for an engine the
// key may not see.
func (p *Principal) Authorize(access Access, engine string) error {
	if p.Superuser {
		return nil
	}
	k := p.Key
	switch k.Type {
	case KeyAdmin:
		if access != AccessAdmin {
			return ForbiddenError("Admin keys can only use the credentials API")
		}
		return nil
	case KeySearch:
		if access != AccessSearch {
			return ForbiddenError("Search keys can only use the search endpoints")
		}
	case KeyPrivate:
		switch {
		case access == AccessAdmin:
			return ForbiddenError("The credentials API needs an admin key")
		case access == AccessWrite && !k.Write:
			return ForbiddenError("This key does not have write access")
		case access == AccessRead && !k.Read:
			return ForbiddenError("This key does not have read access")
		}
	}
	if engine == "" {
		if !k.AccessAllEngines && access == AccessWrite {
			return ForbiddenError("Keys scoped to engines cannot create engines")
		}
		return nil
	}
	if !p.CanSee(engine) {
		return EngineNotFound()
	}
	return nil
}
