package security

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// CreateAPIKeyRequest is the body of the create API key API.
type CreateAPIKeyRequest struct {
	Name            string
	Expiration      time.Duration
	RoleDescriptors map[string]*RoleDescriptor
	Metadata        map[string]any
}

// ParseCreateAPIKey parses and validates a create API key body.
func ParseCreateAPIKey(body []byte) (*CreateAPIKeyRequest, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, eserr.ParsingError("request body is required and must be an object")
	}
	req := &CreateAPIKeyRequest{}
	for _, k := range sortedKeys(m) {
		v := m[k]
		switch k {
		case "name":
			if json.Unmarshal(v, &req.Name) != nil {
				return nil, eserr.ParsingError("[api_key_request] failed to parse field [name]")
			}
		case "expiration":
			var s string
			if jsonKind(v) == "VALUE_NULL" {
				continue
			}
			if json.Unmarshal(v, &s) != nil {
				return nil, eserr.ParsingError("[api_key_request] failed to parse field [expiration]")
			}
			d, err := ParseTimeValue(s, "expiration")
			if err != nil {
				return nil, err
			}
			req.Expiration = d
		case "role_descriptors":
			var rds map[string]json.RawMessage
			if jsonKind(v) != "START_OBJECT" || json.Unmarshal(v, &rds) != nil {
				return nil, eserr.ParsingError("[api_key_request] failed to parse field [role_descriptors]")
			}
			req.RoleDescriptors = map[string]*RoleDescriptor{}
			for name, raw := range rds {
				rd, err := ParseRoleDescriptor(name, raw)
				if err != nil {
					return nil, err
				}
				if err := rd.Validate(); err != nil {
					return nil, err
				}
				req.RoleDescriptors[name] = rd
			}
		case "metadata":
			if jsonKind(v) != "START_OBJECT" || json.Unmarshal(v, &req.Metadata) != nil {
				return nil, eserr.ParsingError("[api_key_request] failed to parse field [metadata]")
			}
		default:
			return nil, eserr.ParsingError("[api_key_request] unknown field [%s]", k)
		}
	}
	var msgs []string
	switch {
	case req.Name == "":
		msgs = append(msgs, "api key name is required")
	case len(req.Name) > 256:
		msgs = append(msgs, "api key name may not be more than 256 characters long")
	case strings.HasPrefix(req.Name, "_"):
		msgs = append(msgs, "api key name may not begin with an underscore")
	}
	if len(msgs) > 0 {
		return nil, eserr.ValidationError(msgs...)
	}
	return req, nil
}

// ParseTimeValue parses an Elasticsearch time value (1d, 12h, 30m, 10s,
// 500ms, 1micros, 1nanos) for the named setting.
func ParseTimeValue(s, setting string) (time.Duration, error) {
	units := []struct {
		suf string
		d   time.Duration
	}{{"nanos", time.Nanosecond}, {"micros", time.Microsecond}, {"ms", time.Millisecond}, {"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}, {"d", 24 * time.Hour}}
	t := strings.TrimSpace(strings.ToLower(s))
	for _, u := range units {
		if num, ok := strings.CutSuffix(t, u.suf); ok && num != "" {
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil || n < 0 {
				break
			}
			return time.Duration(n) * u.d, nil
		}
	}
	return 0, eserr.Errorf(eserr.Invalid, "parse_exception", "failed to parse setting [%s] with value [%s] as a time value: unit is missing or unrecognized", setting, s)
}

// apiKeyRecord is a stored API key.
type apiKeyRecord struct {
	ID              string                     `json:"id"`
	Name            string                     `json:"name"`
	Secret          secretHash                 `json:"secret"`
	Creation        int64                      `json:"creation"`
	Expiration      int64                      `json:"expiration,omitempty"`
	Invalidated     bool                       `json:"invalidated"`
	Username        string                     `json:"username"`
	Realm           string                     `json:"realm"`
	RoleDescriptors map[string]*RoleDescriptor `json:"role_descriptors"`
	LimitedBy       []*RoleDescriptor          `json:"limited_by"`
	Metadata        map[string]any             `json:"metadata"`
}

// APIKey is the public view of an API key.
type APIKey struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Creation    int64          `json:"creation"`
	Expiration  *int64         `json:"expiration,omitempty"`
	Invalidated bool           `json:"invalidated"`
	Username    string         `json:"username"`
	Realm       string         `json:"realm"`
	Metadata    map[string]any `json:"metadata"`
}

// CreatedAPIKey is the create API key answer (the key is shown only then).
type CreatedAPIKey struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Expiration *int64 `json:"expiration,omitempty"`
	APIKey     string `json:"api_key"`
	Encoded    string `json:"encoded"`
}

// CreateAPIKey creates a key owned by owner; its permissions are its role
// descriptors (the owner's when none) limited by the owner's roles.
func (s *Service) CreateAPIKey(ctx context.Context, owner *Authentication, req *CreateAPIKeyRequest) (*CreatedAPIKey, error) {
	if owner.APIKeyID != "" {
		empty := len(req.RoleDescriptors) == 1
		for _, rd := range req.RoleDescriptors {
			empty = empty && len(rd.Cluster) == 0 && len(rd.Indices) == 0 && len(rd.Applications) == 0 && len(rd.RunAs) == 0
		}
		if !empty {
			return nil, eserr.IllegalArgument("creating derived api keys requires an explicit role descriptor that is empty (has no privileges)")
		}
	}
	id, err := s.randomString(15)
	if err != nil {
		return nil, err
	}
	key, err := s.randomString(16)
	if err != nil {
		return nil, err
	}
	sh, err := s.newSecretHash(key)
	if err != nil {
		return nil, err
	}
	now := s.now()
	rec := &apiKeyRecord{
		ID: id, Name: req.Name, Secret: sh, Creation: now.UnixMilli(),
		Username: owner.User.Username, Realm: owner.AuthenticationRealm.Name,
		RoleDescriptors: req.RoleDescriptors, LimitedBy: owner.roles, Metadata: req.Metadata,
	}
	if owner.limitedBy != nil {
		rec.LimitedBy = owner.limitedBy
	}
	if rec.RoleDescriptors == nil {
		rec.RoleDescriptors = map[string]*RoleDescriptor{}
	}
	if rec.Metadata == nil {
		rec.Metadata = map[string]any{}
	}
	out := &CreatedAPIKey{ID: id, Name: req.Name, APIKey: key, Encoded: base64.StdEncoding.EncodeToString([]byte(id + ":" + key))}
	if req.Expiration > 0 {
		rec.Expiration = now.Add(req.Expiration).UnixMilli()
		exp := rec.Expiration
		out.Expiration = &exp
	}
	if err := s.putJSON(ctx, keyAPIKey+id, rec); err != nil {
		return nil, err
	}
	return out, nil
}

// GrantAPIKeyRequest is the body of the grant API key API.
type GrantAPIKeyRequest struct {
	GrantType   string          `json:"grant_type"`
	Username    string          `json:"username"`
	Password    string          `json:"password"`
	AccessToken string          `json:"access_token"`
	APIKey      json.RawMessage `json:"api_key"`
}

// GrantAPIKey creates an API key on behalf of the user the grant names
// (password or access_token).
func (s *Service) GrantAPIKey(ctx context.Context, req GrantAPIKeyRequest) (*CreatedAPIKey, error) {
	var owner *Authentication
	var err error
	switch req.GrantType {
	case "password":
		if req.Username == "" || req.Password == "" {
			return nil, eserr.ValidationError("[username] and [password] are required for grant_type [password]")
		}
		owner, err = s.authenticateBasic(ctx, basicValue(req.Username, req.Password), "/_security/api_key/grant", false)
	case "access_token":
		if req.AccessToken == "" {
			return nil, eserr.ValidationError("[access_token] is required for grant_type [access_token]")
		}
		owner, err = s.authenticateAccessToken(ctx, req.AccessToken)
	default:
		return nil, eserr.ValidationError(fmt.Sprintf("grant_type [%s] is not supported; use [password] or [access_token]", req.GrantType))
	}
	if err != nil {
		return nil, err
	}
	if len(req.APIKey) == 0 {
		return nil, eserr.ValidationError("[api_key] is required")
	}
	ck, err := ParseCreateAPIKey(req.APIKey)
	if err != nil {
		return nil, err
	}
	return s.CreateAPIKey(ctx, owner, ck)
}

func (s *Service) authenticateAPIKey(ctx context.Context, value string) (*Authentication, error) {
	raw, err := base64.StdEncoding.DecodeString(value)
	if err != nil {
		return nil, unsuccessful("API key: invalid ApiKey value")
	}
	id, key, ok := strings.Cut(string(raw), ":")
	if !ok || id == "" {
		return nil, unsuccessful("API key: invalid ApiKey value")
	}
	var rec apiKeyRecord
	err = s.getJSON(ctx, keyAPIKey+id, &rec)
	if errors.Is(err, searchcore.ErrNotFound) {
		return nil, unsuccessful(fmt.Sprintf("API key: unable to find apikey with id %s", id))
	}
	if err != nil {
		return nil, err
	}
	switch {
	case !rec.Secret.matches(key):
		return nil, unsuccessful(fmt.Sprintf("API key: invalid credentials for API key [%s]", id))
	case rec.Invalidated:
		return nil, unsuccessful("API key: api key has been invalidated")
	case rec.Expiration > 0 && s.now().UnixMilli() >= rec.Expiration:
		return nil, unsuccessful("API key: api key is expired")
	}
	realm := Realm{Name: "_es_api_key", Type: "_es_api_key"}
	a := &Authentication{
		User:                User{Username: rec.Username, Roles: []string{}, Metadata: map[string]any{}, Enabled: true},
		AuthenticationRealm: realm, LookupRealm: realm, Type: TypeAPIKey,
		APIKeyID: rec.ID, APIKeyName: rec.Name,
	}
	limited := rec.LimitedBy
	if limited == nil {
		limited = []*RoleDescriptor{}
	}
	if len(rec.RoleDescriptors) == 0 {
		a.roles = limited
	} else {
		for _, n := range sortedKeys(rec.RoleDescriptors) {
			a.roles = append(a.roles, rec.RoleDescriptors[n])
		}
		a.limitedBy = limited
	}
	a.superuser = a.permits(hasClusterAll)
	return a, nil
}

// APIKeyQuery selects API keys (get and invalidate).
type APIKeyQuery struct {
	IDs       []string
	Name      string
	Username  string
	RealmName string
	Owner     bool
}

// canManageAll reports whether a may see and invalidate every user's keys
// (manage_api_key rather than manage_own_api_key).
func (a *Authentication) canManageAll() bool {
	return a.permits(func(roles []*RoleDescriptor) bool {
		for _, r := range roles {
			for _, c := range r.Cluster {
				if c == "manage_api_key" || c == "manage_security" || c == "all" {
					return true
				}
			}
		}
		return false
	})
}

// ownKeysAllowed applies ES's ManageOwnApiKeyClusterPrivilege to a caller
// that may not manage every key: an API key may read or invalidate only
// itself (one id, its own); a user only with owner=true or by naming both
// its own username and realm. Anything else is unauthorized for action.
func ownKeysAllowed(caller *Authentication, q APIKeyQuery, action string) error {
	if caller.APIKeyID != "" && len(q.IDs) == 1 && q.IDs[0] == caller.APIKeyID {
		return nil
	}
	if caller.APIKeyID == "" {
		realm := caller.LookupRealm.Name
		if realm == "" {
			realm = caller.AuthenticationRealm.Name
		}
		if q.Owner || (q.Username != "" && q.RealmName != "" && q.Username == caller.User.Username && q.RealmName == realm) {
			return nil
		}
	}
	return caller.denied(action, nil, "cluster", []string{"manage_api_key", "manage_security", "all"})
}

func (s *Service) matchKeys(ctx context.Context, caller *Authentication, q APIKeyQuery, action string) ([]*apiKeyRecord, error) {
	own := q.Owner || !caller.canManageAll()
	if own && !caller.canManageAll() {
		if err := ownKeysAllowed(caller, q, action); err != nil {
			return nil, err
		}
	}
	if own && q.Username != "" && q.Username != caller.User.Username {
		return nil, caller.denied(action, nil, "cluster", []string{"manage_api_key", "manage_security", "all"})
	}
	ids := map[string]bool{}
	for _, id := range q.IDs {
		ids[id] = true
	}
	var out []*apiKeyRecord
	err := s.store.ListMeta(ctx, keyAPIKey, func(key string, value []byte) error {
		var rec apiKeyRecord
		if err := json.Unmarshal(value, &rec); err != nil {
			return err
		}
		switch {
		case len(ids) > 0 && !ids[rec.ID]:
		case q.Name != "" && !globMatch(q.Name, rec.Name):
		case q.Username != "" && rec.Username != q.Username:
		case q.RealmName != "" && rec.Realm != q.RealmName:
		case own && (rec.Username != caller.User.Username || (caller.APIKeyID == "" && rec.Realm != caller.AuthenticationRealm.Name)):
			if caller.APIKeyID != "" && rec.ID == caller.APIKeyID {
				out = append(out, &rec)
			}
		default:
			out = append(out, &rec)
		}
		return nil
	})
	return out, err
}

// APIKeys returns the keys the query selects that the caller may see.
func (s *Service) APIKeys(ctx context.Context, caller *Authentication, q APIKeyQuery) ([]APIKey, error) {
	recs, err := s.matchKeys(ctx, caller, q, "cluster:admin/xpack/security/api_key/get")
	if err != nil {
		return nil, err
	}
	out := make([]APIKey, 0, len(recs))
	for _, r := range recs {
		k := APIKey{ID: r.ID, Name: r.Name, Creation: r.Creation, Invalidated: r.Invalidated, Username: r.Username, Realm: r.Realm, Metadata: r.Metadata}
		if r.Expiration > 0 {
			exp := r.Expiration
			k.Expiration = &exp
		}
		if k.Metadata == nil {
			k.Metadata = map[string]any{}
		}
		out = append(out, k)
	}
	return out, nil
}

// InvalidateAPIKeys invalidates the selected keys and returns the ids
// invalidated now and those invalidated before.
func (s *Service) InvalidateAPIKeys(ctx context.Context, caller *Authentication, q APIKeyQuery) (invalidated, previously []string, err error) {
	if len(q.IDs) == 0 && q.Name == "" && q.Username == "" && q.RealmName == "" && !q.Owner {
		return nil, nil, eserr.ValidationError("One of [api key id(s), api key name, username, realm name] must be specified if [owner] flag is false")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.matchKeys(ctx, caller, q, "cluster:admin/xpack/security/api_key/invalidate")
	if err != nil {
		return nil, nil, err
	}
	invalidated, previously = []string{}, []string{}
	for _, r := range recs {
		if r.Invalidated {
			previously = append(previously, r.ID)
			continue
		}
		r.Invalidated = true
		if err := s.putJSON(ctx, keyAPIKey+r.ID, r); err != nil {
			return nil, nil, err
		}
		invalidated = append(invalidated, r.ID)
	}
	return invalidated, previously, nil
}
