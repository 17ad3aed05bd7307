package security

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// serviceTokenMagic prefixes a service token value before base64 (the
// Elasticsearch format: version and type bytes).
var serviceTokenMagic = []byte{0, 1, 0, 1}

// Token sources reported for service account credentials.
const (
	TokenSourceIndex = "_service_account_index"
	TokenSourceFile  = "_service_account_file"
)

type serviceToken struct {
	namespace, service, name, secret string
}

func (t serviceToken) account() string   { return t.namespace + "/" + t.service }
func (t serviceToken) qualified() string { return t.account() + "/" + t.name }

// value encodes the bearer value handed to the client.
func (t serviceToken) value() string {
	raw := append(append([]byte(nil), serviceTokenMagic...), []byte(t.qualified()+":"+t.secret)...)
	return base64.RawStdEncoding.EncodeToString(raw)
}

func encodeStd(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// parseServiceToken decodes a bearer value in the service token format.
func parseServiceToken(v string) (serviceToken, bool) {
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "="))
	if err != nil || len(raw) <= len(serviceTokenMagic) || string(raw[:4]) != string(serviceTokenMagic) {
		return serviceToken{}, false
	}
	id, secret, ok := strings.Cut(string(raw[4:]), ":")
	parts := strings.Split(id, "/")
	if !ok || len(parts) != 3 || secret == "" {
		return serviceToken{}, false
	}
	return serviceToken{namespace: parts[0], service: parts[1], name: parts[2], secret: secret}, true
}

// ValidateServiceTokenName checks a token name: 1 to 256 characters of
// a-z A-Z 0-9 - _, not starting with an underscore.
func ValidateServiceTokenName(name string) error {
	ok := len(name) >= 1 && len(name) <= 256 && !strings.HasPrefix(name, "_")
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			ok = false
		}
	}
	if !ok {
		return eserr.ValidationError("service account token name must have at least 1 character and at most 256 characters that are alphanumeric (A-Z, a-z, 0-9) or hyphen (-) or underscore (_). It must not begin with an underscore (_).")
	}
	return nil
}

// ServiceAccounts returns the built-in service accounts whose namespace
// and service match (empty matches all), by "namespace/service".
func (s *Service) ServiceAccounts(namespace, service string) map[string]*RoleDescriptor {
	out := map[string]*RoleDescriptor{}
	for id, rd := range s.sa {
		ns, svc, _ := strings.Cut(id, "/")
		if (namespace == "" || namespace == ns) && (service == "" || service == svc) {
			out[id] = rd
		}
	}
	return out
}

func (s *Service) checkAccount(namespace, service string) (string, error) {
	id := namespace + "/" + service
	if _, ok := s.sa[id]; !ok {
		return "", eserr.Errorf(eserr.NotFound, "resource_not_found_exception", "service account [%s] does not exist", id)
	}
	return id, nil
}

type serviceTokenRecord struct {
	Secret  secretHash `json:"secret"`
	Created time.Time  `json:"created"`
}

// CreateServiceToken creates an index-backed token; an empty name is
// generated. It returns the name and the bearer value (shown only once).
func (s *Service) CreateServiceToken(ctx context.Context, namespace, service, name string) (string, string, error) {
	account, err := s.checkAccount(namespace, service)
	if err != nil {
		return "", "", err
	}
	if name == "" {
		n, err := s.randomString(12)
		if err != nil {
			return "", "", err
		}
		name = "token_" + strings.NewReplacer("-", "x", "_", "y").Replace(n)
	}
	if err := ValidateServiceTokenName(name); err != nil {
		return "", "", err
	}
	secret, err := s.randomString(16)
	if err != nil {
		return "", "", err
	}
	t := serviceToken{namespace: namespace, service: service, name: name, secret: secret}
	sh, err := s.newSecretHash(secret)
	if err != nil {
		return "", "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := keyServiceToken + t.qualified()
	if _, err := s.store.GetMeta(ctx, key); err == nil {
		return "", "", eserr.Errorf(eserr.Conflict, "version_conflict_engine_exception", "[service_account_token][%s]: version conflict, document already exists (current version [1])", t.qualified())
	} else if !errors.Is(err, searchcore.ErrNotFound) {
		return "", "", err
	}
	if err := s.putJSON(ctx, key, &serviceTokenRecord{Secret: sh, Created: s.now()}); err != nil {
		return "", "", err
	}
	_ = account
	return name, t.value(), nil
}

// ServiceCredentials lists an account's token names: index-backed and
// file-backed.
func (s *Service) ServiceCredentials(ctx context.Context, namespace, service string) (index, file []string, err error) {
	account, err := s.checkAccount(namespace, service)
	if err != nil {
		return nil, nil, err
	}
	prefix := keyServiceToken + account + "/"
	err = s.store.ListMeta(ctx, prefix, func(key string, _ []byte) error {
		index = append(index, key[len(prefix):])
		return nil
	})
	return index, s.files.fileServiceTokenNames(account), err
}

// DeleteServiceToken removes an index-backed token and reports whether it
// existed.
func (s *Service) DeleteServiceToken(ctx context.Context, namespace, service, name string) (bool, error) {
	account, err := s.checkAccount(namespace, service)
	if err != nil {
		return false, err
	}
	key := keyServiceToken + account + "/" + name
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.store.GetMeta(ctx, key); errors.Is(err, searchcore.ErrNotFound) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return true, s.store.DeleteMeta(ctx, key)
}

func (s *Service) authenticateServiceToken(ctx context.Context, t serviceToken) (*Authentication, error) {
	fail := authError(Challenges, "failed to authenticate service account [%s] with token name [%s]", t.account(), t.name)
	rd, ok := s.sa[t.account()]
	if !ok {
		return nil, fail
	}
	source := ""
	var rec serviceTokenRecord
	err := s.getJSON(ctx, keyServiceToken+t.qualified(), &rec)
	switch {
	case err == nil && rec.Secret.matches(t.secret):
		source = TokenSourceIndex
	case err != nil && !errors.Is(err, searchcore.ErrNotFound):
		return nil, err
	default:
		if stored, ok := s.files.fileServiceToken(t.qualified()); ok && FileTokenMatches(stored, t.secret) {
			source = TokenSourceFile
		}
	}
	if source == "" {
		return nil, fail
	}
	realm := Realm{Name: "_service_account", Type: "_service_account"}
	fullName := "Service account - " + t.account()
	a := &Authentication{
		User:                User{Username: t.account(), Roles: []string{}, FullName: &fullName, Metadata: map[string]any{"_elastic_service_account": true}, Enabled: true},
		AuthenticationRealm: realm, LookupRealm: realm, Type: TypeToken,
		ServiceAccount: t.account(), TokenName: t.name, TokenSource: source,
		roles: []*RoleDescriptor{rd},
	}
	return a, nil
}

// FileTokenHash renders the file store's form of a service token secret:
// {SSHA256}<salt>$<hash>.
func FileTokenHash(salt, secret string) string {
	return "{SSHA256}" + salt + "$" + saltedSHA256(salt, secret)
}

// FileTokenMatches checks a secret against a file store entry.
func FileTokenMatches(stored, secret string) bool {
	rest, ok := strings.CutPrefix(stored, "{SSHA256}")
	if !ok {
		return false
	}
	salt, hash, ok := strings.Cut(rest, "$")
	return ok && secretHash{Salt: salt, Hash: hash}.matches(secret)
}

// NewFileServiceToken creates a token for the file store: it returns the
// qualified name, the store entry and the bearer value. Used by the
// service-tokens command.
func NewFileServiceToken(account, name string, random func(int) (string, error)) (qualified, entry, value string, err error) {
	ns, svc, ok := strings.Cut(account, "/")
	if !ok || ns == "" || svc == "" || strings.Contains(svc, "/") {
		return "", "", "", fmt.Errorf("service account [%s] must be of the form <namespace>/<service>", account)
	}
	if _, ok := serviceAccounts()[account]; !ok {
		return "", "", "", fmt.Errorf("service account [%s] does not exist (known: elastic/dashboard, elastic/fleet-server)", account)
	}
	if err := ValidateServiceTokenName(name); err != nil {
		return "", "", "", fmt.Errorf("invalid token name [%s]: %s", name, err.(*eserr.Error).Reason)
	}
	secret, err := random(16)
	if err != nil {
		return "", "", "", err
	}
	salt, err := random(16)
	if err != nil {
		return "", "", "", err
	}
	t := serviceToken{namespace: ns, service: svc, name: name, secret: secret}
	return t.qualified(), FileTokenHash(salt, secret), t.value(), nil
}
