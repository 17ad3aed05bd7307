package security

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// RefreshTokenLifetime is how long a refresh token can be used (once).
const RefreshTokenLifetime = 24 * time.Hour

// TokenRequest is the body of the get token API.
type TokenRequest struct {
	GrantType      string `json:"grant_type"`
	Username       string `json:"username"`
	Password       string `json:"password"`
	RefreshToken   string `json:"refresh_token"`
	Scope          string `json:"scope"`
	KerberosTicket string `json:"kerberos_ticket"`
}

// TokenResult is the answer of the get token API.
type TokenResult struct {
	AccessToken    string
	ExpiresIn      time.Duration
	RefreshToken   string
	Scope          string
	Authentication *Authentication
}

// tokenRecord is a stored access or refresh token.
type tokenRecord struct {
	Secret      secretHash `json:"secret"`
	User        User       `json:"user"`
	Realm       Realm      `json:"realm"`
	Created     time.Time  `json:"created"`
	Expires     time.Time  `json:"expires"`
	Invalidated bool       `json:"invalidated"`
	// Refresh tokens: Used once refreshed; Access names the access token
	// issued with it (its lookup key).
	Used   bool   `json:"used,omitempty"`
	Access string `json:"access,omitempty"`
}

func invalidGrant(detail string) *eserr.Error {
	return eserr.Errorf(eserr.Invalid, "security_exception", "invalid_grant").With("error_description", detail)
}

// CreateToken runs the get token API for the caller (needed by the
// client_credentials grant).
func (s *Service) CreateToken(ctx context.Context, caller *Authentication, req TokenRequest) (*TokenResult, error) {
	switch req.GrantType {
	case "password":
		var msgs []string
		if req.Username == "" {
			msgs = append(msgs, "username is missing")
		}
		if req.Password == "" {
			msgs = append(msgs, "password is missing")
		}
		if len(msgs) > 0 {
			return nil, eserr.ValidationError(msgs...)
		}
		a, err := s.authenticateBasic(ctx, basicValue(req.Username, req.Password), "/_security/oauth2/token", false)
		if err != nil {
			return nil, authError(Challenges, "failed to authenticate user [%s]", req.Username)
		}
		return s.issueTokens(ctx, a, true)
	case "client_credentials":
		if caller.Type != TypeRealm {
			return nil, eserr.IllegalArgument("client_credentials grant requires a user authenticated by a realm, not by [%s]", caller.Type)
		}
		return s.issueTokens(ctx, caller, false)
	case "refresh_token":
		if req.RefreshToken == "" {
			return nil, eserr.ValidationError("refresh_token is missing")
		}
		return s.refresh(ctx, req.RefreshToken)
	case "_kerberos":
		return nil, eserr.IllegalArgument("grant_type [_kerberos] is not supported: no kerberos realm is configured on this node")
	case "":
		return nil, eserr.ValidationError("grant_type is missing")
	}
	return nil, eserr.ValidationError(fmt.Sprintf("grant_type [%s] is not supported", req.GrantType))
}

func basicValue(user, password string) string {
	return encodeStd(user + ":" + password)
}

// pruneInterval is how often expired tokens are removed from the store.
const pruneInterval = time.Hour

// pruneExpired removes access and refresh tokens that expired (at most
// once per pruneInterval; called when tokens are issued).
func (s *Service) pruneExpired(ctx context.Context, now time.Time) error {
	s.pruneMu.Lock()
	if now.Sub(s.lastPrune) < pruneInterval {
		s.pruneMu.Unlock()
		return nil
	}
	s.lastPrune = now
	s.pruneMu.Unlock()
	for _, prefix := range []string{keyToken, keyRefresh} {
		var expired []string
		err := s.store.ListMeta(ctx, prefix, func(key string, value []byte) error {
			var rec tokenRecord
			if jsonUnmarshal(value, &rec) == nil && !now.Before(rec.Expires) {
				expired = append(expired, key)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range expired {
			if err := s.store.DeleteMeta(ctx, k); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Service) issueTokens(ctx context.Context, a *Authentication, withRefresh bool) (*TokenResult, error) {
	now := s.now()
	if err := s.pruneExpired(ctx, now); err != nil {
		return nil, err
	}
	access, err := s.randomString(32)
	if err != nil {
		return nil, err
	}
	sh, err := s.newSecretHash(access)
	if err != nil {
		return nil, err
	}
	realm := a.AuthenticationRealm
	rec := &tokenRecord{Secret: sh, User: a.User, Realm: realm, Created: now, Expires: now.Add(s.cfg.TokenTimeout)}
	if err := s.putJSON(ctx, keyToken+lookupKey(access), rec); err != nil {
		return nil, err
	}
	res := &TokenResult{AccessToken: access, ExpiresIn: s.cfg.TokenTimeout, Scope: "full", Authentication: a}
	if withRefresh {
		refresh, err := s.randomString(32)
		if err != nil {
			return nil, err
		}
		rsh, err := s.newSecretHash(refresh)
		if err != nil {
			return nil, err
		}
		rrec := &tokenRecord{Secret: rsh, User: a.User, Realm: realm, Created: now, Expires: now.Add(RefreshTokenLifetime), Access: lookupKey(access)}
		if err := s.putJSON(ctx, keyRefresh+lookupKey(refresh), rrec); err != nil {
			return nil, err
		}
		res.RefreshToken = refresh
	}
	return res, nil
}

func (s *Service) refresh(ctx context.Context, refresh string) (*TokenResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rec tokenRecord
	key := keyRefresh + lookupKey(refresh)
	err := s.getJSON(ctx, key, &rec)
	if errors.Is(err, searchcore.ErrNotFound) || (err == nil && !rec.Secret.matches(refresh)) {
		return nil, invalidGrant("could not refresh the requested token")
	}
	if err != nil {
		return nil, err
	}
	switch {
	case rec.Invalidated:
		return nil, invalidGrant("token has been invalidated")
	case rec.Used:
		return nil, invalidGrant("token has already been refreshed")
	case !s.now().Before(rec.Expires):
		return nil, invalidGrant("refresh token is expired")
	}
	rec.Used = true
	if err := s.putJSON(ctx, key, &rec); err != nil {
		return nil, err
	}
	a := &Authentication{User: rec.User, AuthenticationRealm: rec.Realm, LookupRealm: rec.Realm, Type: TypeToken}
	if err := s.resolveRoles(ctx, a, rec.User.Roles); err != nil {
		return nil, err
	}
	return s.issueTokens(ctx, a, true)
}

// tokenExpired is the token service's 401 for an expired or invalidated
// access token.
func tokenExpired() *eserr.Error {
	return authError([]string{`Bearer realm="security", error="invalid_token", error_description="The access token expired"`}, "token expired")
}

func (s *Service) authenticateAccessToken(ctx context.Context, value string) (*Authentication, error) {
	var rec tokenRecord
	err := s.getJSON(ctx, keyToken+lookupKey(value), &rec)
	if errors.Is(err, searchcore.ErrNotFound) || (err == nil && !rec.Secret.matches(value)) {
		return nil, unsuccessful("token: unable to find the bearer token")
	}
	if err != nil {
		return nil, err
	}
	if rec.Invalidated || !s.now().Before(rec.Expires) {
		return nil, tokenExpired()
	}
	// The token carries the user as of its creation, but a deleted or
	// disabled user loses access at once.
	cur, _, err := s.lookupPrincipal(ctx, rec.User.Username)
	if err != nil || !cur.Enabled {
		return nil, unsuccessful("token: the token's user is no longer enabled")
	}
	a := &Authentication{User: cur.User, AuthenticationRealm: rec.Realm, LookupRealm: rec.Realm, Type: TypeToken}
	if err := s.resolveRoles(ctx, a, cur.Roles); err != nil {
		return nil, err
	}
	return a, nil
}

// InvalidateTokensRequest selects tokens to invalidate: one access token,
// one refresh token, or every token of a realm and/or user.
type InvalidateTokensRequest struct {
	Token        string `json:"token"`
	RefreshToken string `json:"refresh_token"`
	RealmName    string `json:"realm_name"`
	Username     string `json:"username"`
}

// InvalidateResult counts invalidated tokens.
type InvalidateResult struct {
	Invalidated           int
	PreviouslyInvalidated int
}

// InvalidateTokens invalidates access and refresh tokens; found reports
// whether any token matched.
func (s *Service) InvalidateTokens(ctx context.Context, req InvalidateTokensRequest) (res InvalidateResult, found bool, err error) {
	set := 0
	for _, v := range []string{req.Token, req.RefreshToken} {
		if v != "" {
			set++
		}
	}
	if set > 1 || (set == 1 && (req.RealmName != "" || req.Username != "")) {
		return res, false, eserr.ValidationError("only one of [token, refresh_token] may be sent, and not together with [realm_name] or [username]")
	}
	if set == 0 && req.RealmName == "" && req.Username == "" {
		return res, false, eserr.ValidationError("one of [token, refresh_token, realm_name, username] must be specified")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	mark := func(key string, rec *tokenRecord) error {
		found = true
		if rec.Invalidated {
			res.PreviouslyInvalidated++
			return nil
		}
		rec.Invalidated = true
		res.Invalidated++
		return s.putJSON(ctx, key, rec)
	}
	single := func(prefix, value string) error {
		var rec tokenRecord
		key := prefix + lookupKey(value)
		err := s.getJSON(ctx, key, &rec)
		if errors.Is(err, searchcore.ErrNotFound) || (err == nil && !rec.Secret.matches(value)) {
			return nil
		}
		if err != nil {
			return err
		}
		return mark(key, &rec)
	}
	switch {
	case req.Token != "":
		err = single(keyToken, req.Token)
	case req.RefreshToken != "":
		err = single(keyRefresh, req.RefreshToken)
	default:
		for _, prefix := range []string{keyToken, keyRefresh} {
			var matched []string
			recs := map[string]*tokenRecord{}
			err = s.store.ListMeta(ctx, prefix, func(key string, value []byte) error {
				var rec tokenRecord
				if err := jsonUnmarshal(value, &rec); err != nil {
					return err
				}
				if (req.Username == "" || rec.User.Username == req.Username) && (req.RealmName == "" || rec.Realm.Name == req.RealmName) {
					matched = append(matched, key)
					recs[key] = &rec
				}
				return nil
			})
			for _, k := range matched {
				if err == nil {
					err = mark(k, recs[k])
				}
			}
			if err != nil {
				break
			}
		}
	}
	return res, found, err
}

// parseBearer distinguishes a service account token from anything else.
func (s *Service) authenticateBearer(ctx context.Context, value string) (*Authentication, error) {
	if value == "" {
		return nil, unsuccessful("token: the bearer token is empty")
	}
	if st, ok := parseServiceToken(value); ok {
		a, err := s.authenticateServiceToken(ctx, st)
		if err == nil {
			return a, nil
		}
		if e, ok := eserr.AsError(err); !ok || e.Code != eserr.Unauthorized {
			return nil, err
		}
		// Not a known service token: the token service is next.
		if a, terr := s.authenticateAccessToken(ctx, value); terr == nil {
			return a, nil
		}
		return nil, err
	}
	return s.authenticateAccessToken(ctx, strings.TrimSpace(value))
}
