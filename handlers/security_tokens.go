package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/security"
)

// decodeStrict decodes a JSON object body, rejecting unknown members with
// Elasticsearch's parsing error for the named request.
func decodeStrict(c echo.Context, what string, v any) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return searchcore.ParsingError("request body is required")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		msg := err.Error()
		if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
			return searchcore.ParsingError("[%s] unknown field [%s]", what, strings.Trim(f, `"`))
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return searchcore.Errorf(searchcore.Invalid, "x_content_parse_exception", "[%s] %s doesn't support values of type: %s", what, te.Field, jsonValueToken(te.Value))
		}
		return searchcore.ParsingError("[%s] failed to parse: %s", what, msg)
	}
	return nil
}

// jsonValueToken names a JSON value kind (as encoding/json reports it in
// an UnmarshalTypeError) the way Elasticsearch's parser names its tokens.
func jsonValueToken(kind string) string {
	switch kind {
	case "object":
		return "START_OBJECT"
	case "array":
		return "START_ARRAY"
	case "string":
		return "VALUE_STRING"
	case "bool":
		return "VALUE_BOOLEAN"
	}
	if strings.HasPrefix(kind, "number") {
		return "VALUE_NUMBER"
	}
	return strings.ToUpper(kind)
}

// SecurityGetToken answers POST /_security/oauth2/token.
func (s *Server) SecurityGetToken(c echo.Context, _ cluster.SecurityGetTokenParams) error {
	a, err := s.principal(c)
	if err != nil {
		return err
	}
	var req security.TokenRequest
	if err := decodeStrict(c, "token_request", &req); err != nil {
		return err
	}
	res, err := s.sec.CreateToken(c.Request().Context(), a, req)
	if err != nil {
		return err
	}
	out := orderedJSON{
		{"access_token", res.AccessToken},
		{"type", "Bearer"},
		{"expires_in", int(res.ExpiresIn.Seconds())},
		{"scope", res.Scope},
	}
	if res.RefreshToken != "" {
		out = append(out, kvPair{"refresh_token", res.RefreshToken})
	}
	out = append(out, kvPair{"authentication", res.Authentication.AuthenticatedPayload()})
	return writeJSON(c, http.StatusOK, out)
}

// SecurityInvalidateToken answers DELETE /_security/oauth2/token.
func (s *Server) SecurityInvalidateToken(c echo.Context, _ cluster.SecurityInvalidateTokenParams) error {
	if _, err := s.principal(c); err != nil {
		return err
	}
	var req security.InvalidateTokensRequest
	if err := decodeStrict(c, "invalidate_token_request", &req); err != nil {
		return err
	}
	res, found, err := s.sec.InvalidateTokens(c.Request().Context(), req)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if !found {
		status = http.StatusNotFound
	}
	return writeJSON(c, status, orderedJSON{
		{"invalidated_tokens", res.Invalidated},
		{"previously_invalidated_tokens", res.PreviouslyInvalidated},
		{"error_count", 0},
	})
}

func (s *Server) createAPIKey(c echo.Context) error {
	a, err := s.principal(c)
	if err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	req, err := security.ParseCreateAPIKey(body)
	if err != nil {
		return err
	}
	res, err := s.sec.CreateAPIKey(c.Request().Context(), a, req)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, res)
}

// SecurityCreateApiKey answers POST /_security/api_key.
func (s *Server) SecurityCreateApiKey(c echo.Context, _ cluster.SecurityCreateApiKeyParams) error {
	return s.createAPIKey(c)
}

// SecurityCreateApiKeyPut answers PUT /_security/api_key.
func (s *Server) SecurityCreateApiKeyPut(c echo.Context, _ cluster.SecurityCreateApiKeyPutParams) error {
	return s.createAPIKey(c)
}

// SecurityGrantApiKey answers POST /_security/api_key/grant.
func (s *Server) SecurityGrantApiKey(c echo.Context, _ cluster.SecurityGrantApiKeyParams) error {
	if _, err := s.principal(c); err != nil {
		return err
	}
	var req security.GrantAPIKeyRequest
	if err := decodeStrict(c, "grant_api_key_request", &req); err != nil {
		return err
	}
	res, err := s.sec.GrantAPIKey(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, res)
}

// SecurityGetApiKey answers GET /_security/api_key.
func (s *Server) SecurityGetApiKey(c echo.Context, p cluster.SecurityGetApiKeyParams) error {
	a, err := s.principal(c)
	if err != nil {
		return err
	}
	q := security.APIKeyQuery{Name: str(p.Name), Username: str(p.Username), RealmName: str(p.RealmName), Owner: boolParam(p.Owner, false)}
	if id := str(p.Id); id != "" {
		q.IDs = []string{id}
	}
	keys, err := s.sec.APIKeys(c.Request().Context(), a, q)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]any{"api_keys": keys})
}

// SecurityInvalidateApiKey answers DELETE /_security/api_key.
func (s *Server) SecurityInvalidateApiKey(c echo.Context, _ cluster.SecurityInvalidateApiKeyParams) error {
	a, err := s.principal(c)
	if err != nil {
		return err
	}
	var req struct {
		ID        string   `json:"id"`
		IDs       []string `json:"ids"`
		Name      string   `json:"name"`
		Username  string   `json:"username"`
		RealmName string   `json:"realm_name"`
		Owner     bool     `json:"owner"`
	}
	if err := decodeStrict(c, "invalidate_api_key_request", &req); err != nil {
		return err
	}
	q := security.APIKeyQuery{IDs: req.IDs, Name: req.Name, Username: req.Username, RealmName: req.RealmName, Owner: req.Owner}
	if req.ID != "" {
		q.IDs = append(q.IDs, req.ID)
	}
	inv, prev, err := s.sec.InvalidateAPIKeys(c.Request().Context(), a, q)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{
		{"invalidated_api_keys", inv},
		{"previously_invalidated_api_keys", prev},
		{"error_count", 0},
	})
}

// ---------------------------------------------------------------- service accounts

// serviceAccountGuard blocks the service account APIs in production mode
// without HTTP TLS (the spec's runtime check).
func (s *Server) serviceAccountGuard(c echo.Context) error {
	if _, err := s.principal(c); err != nil {
		return err
	}
	if s.opts.Production && !s.opts.HTTPTLS {
		return serviceAccountsNeedTLS()
	}
	return nil
}

func serviceAccountsNeedTLS() error {
	return searchcore.Errorf(searchcore.Invalid, "illegal_state_exception",
		"service account APIs and service account tokens require TLS on the HTTP interface in production mode (the node is bound to a non-loopback address): set [ext.security.http.ssl.enabled] to [true]")
}

func (s *Server) createServiceToken(c echo.Context, ns, svc, name string) error {
	if err := s.serviceAccountGuard(c); err != nil {
		return err
	}
	name, value, err := s.sec.CreateServiceToken(c.Request().Context(), ns, svc, name)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, orderedJSON{
		{"created", true},
		{"token", orderedJSON{{"name", name}, {"value", value}}},
	})
}

// SecurityCreateServiceToken answers POST .../credential/token/{token_name}.
func (s *Server) SecurityCreateServiceToken(c echo.Context, ns, svc, name string, _ cluster.SecurityCreateServiceTokenParams) error {
	return s.createServiceToken(c, ns, svc, name)
}

// SecurityCreateServiceTokenPut answers PUT .../credential/token/{token_name}.
func (s *Server) SecurityCreateServiceTokenPut(c echo.Context, ns, svc, name string, _ cluster.SecurityCreateServiceTokenPutParams) error {
	return s.createServiceToken(c, ns, svc, name)
}

// SecurityCreateServiceTokenGenerated answers POST .../credential/token.
func (s *Server) SecurityCreateServiceTokenGenerated(c echo.Context, ns, svc string, _ cluster.SecurityCreateServiceTokenGeneratedParams) error {
	return s.createServiceToken(c, ns, svc, "")
}

// SecurityDeleteServiceToken answers DELETE .../credential/token/{token_name}.
func (s *Server) SecurityDeleteServiceToken(c echo.Context, ns, svc, name string, _ cluster.SecurityDeleteServiceTokenParams) error {
	if err := s.serviceAccountGuard(c); err != nil {
		return err
	}
	found, err := s.sec.DeleteServiceToken(c.Request().Context(), ns, svc, name)
	if err != nil {
		return err
	}
	return writeFound(c, found)
}

// SecurityGetServiceCredentials answers GET .../credential.
func (s *Server) SecurityGetServiceCredentials(c echo.Context, ns, svc string, _ cluster.SecurityGetServiceCredentialsParams) error {
	if err := s.serviceAccountGuard(c); err != nil {
		return err
	}
	index, file, err := s.sec.ServiceCredentials(c.Request().Context(), ns, svc)
	if err != nil {
		return err
	}
	tokens := orderedJSON{}
	for _, n := range index {
		tokens = append(tokens, kvPair{n, map[string]any{}})
	}
	fileTokens := orderedJSON{}
	for _, n := range file {
		fileTokens = append(fileTokens, kvPair{n, map[string]any{"nodes": []string{s.core.NodeName()}}})
	}
	return writeJSON(c, http.StatusOK, orderedJSON{
		{"service_account", ns + "/" + svc},
		{"count", len(index) + len(file)},
		{"tokens", tokens},
		{"nodes_credentials", orderedJSON{
			{"_nodes", orderedJSON{{"total", 1}, {"successful", 1}, {"failed", 0}}},
			{"file_tokens", fileTokens},
		}},
	})
}

func (s *Server) getServiceAccounts(c echo.Context, ns, svc string) error {
	if err := s.serviceAccountGuard(c); err != nil {
		return err
	}
	accounts := s.sec.ServiceAccounts(ns, svc)
	out := orderedJSON{}
	for _, id := range sortedKeys(accounts) {
		out = append(out, kvPair{id, map[string]any{"role_descriptor": accounts[id]}})
	}
	return writeJSON(c, http.StatusOK, out)
}

// SecurityGetServiceAccounts answers GET /_security/service.
func (s *Server) SecurityGetServiceAccounts(c echo.Context, _ cluster.SecurityGetServiceAccountsParams) error {
	return s.getServiceAccounts(c, "", "")
}

// SecurityGetServiceAccountsNamespace answers GET /_security/service/{namespace}.
func (s *Server) SecurityGetServiceAccountsNamespace(c echo.Context, ns string, _ cluster.SecurityGetServiceAccountsNamespaceParams) error {
	return s.getServiceAccounts(c, ns, "")
}

// SecurityGetServiceAccount answers GET /_security/service/{namespace}/{service}.
func (s *Server) SecurityGetServiceAccount(c echo.Context, ns, svc string, _ cluster.SecurityGetServiceAccountParams) error {
	return s.getServiceAccounts(c, ns, svc)
}
