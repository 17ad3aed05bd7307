package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/security"
)

// securityDisabled is the answer of the security management APIs when
// ext.security.enabled is false.
func securityDisabled() error {
	return searchcore.Errorf(searchcore.Invalid, "security_exception",
		"Security is not enabled on this node: set [ext.security.enabled] to [true] in quarry.yml and restart the node.")
}

// principal returns the authenticated principal, or the security-disabled
// error when security is off.
func (s *Server) principal(c echo.Context) (*security.Authentication, error) {
	if s.sec == nil {
		return nil, securityDisabled()
	}
	a := authentication(c)
	if a == nil {
		return nil, searchcore.Internalf(nil, "request reached a security API unauthenticated")
	}
	return a, nil
}

// anonymousSuperuser is what _authenticate reports when security is off.
func anonymousSuperuser() map[string]any {
	realm := security.Realm{Name: "__anonymous", Type: "anonymous"}
	return map[string]any{
		"username": "_anonymous", "roles": []string{"superuser"}, "full_name": nil, "email": nil,
		"metadata": map[string]any{}, "enabled": true, "authentication_realm": realm, "lookup_realm": realm,
		"authentication_type": security.TypeRealm,
	}
}

// SecurityAuthenticate answers GET /_security/_authenticate.
func (s *Server) SecurityAuthenticate(c echo.Context, _ cluster.SecurityAuthenticateParams) error {
	if s.sec == nil {
		return writeJSON(c, http.StatusOK, anonymousSuperuser())
	}
	a, err := s.principal(c)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, a.AuthenticatedPayload())
}

// splitNames splits a comma-separated path parameter.
func splitNames(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ---------------------------------------------------------------- users

func (s *Server) putUser(c echo.Context, name string) error {
	if _, err := s.principal(c); err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	req, err := security.ParsePutUser(name, body)
	if err != nil {
		return err
	}
	created, err := s.sec.PutUser(c.Request().Context(), name, req)
	if err != nil {
		return err
	}
	for _, r := range req.Roles {
		if w := security.RoleDeprecation(r); w != "" {
			s.deprecationWarning(c, w)
		}
	}
	return writeJSON(c, http.StatusOK, map[string]any{"created": created})
}

// SecurityPutUser answers PUT /_security/user/{username}.
func (s *Server) SecurityPutUser(c echo.Context, name string, _ cluster.SecurityPutUserParams) error {
	return s.putUser(c, name)
}

// SecurityPutUserPost answers POST /_security/user/{username}.
func (s *Server) SecurityPutUserPost(c echo.Context, name string, _ cluster.SecurityPutUserPostParams) error {
	return s.putUser(c, name)
}

// ExtSecurityPutUser answers POST /_ext/security/user/{username}.
func (s *Server) ExtSecurityPutUser(c echo.Context, name string, _ cluster.ExtSecurityPutUserParams) error {
	return s.putUser(c, name)
}

func (s *Server) getUsers(c echo.Context, names []string) error {
	if _, err := s.principal(c); err != nil {
		return err
	}
	users, err := s.sec.Users(c.Request().Context(), names)
	if err != nil {
		return err
	}
	out := orderedJSON{}
	for _, n := range sortedKeys(users) {
		out = append(out, kvPair{n, users[n]})
	}
	status := http.StatusOK
	if len(names) > 0 && len(users) == 0 {
		status = http.StatusNotFound
	}
	return writeJSON(c, status, out)
}

// SecurityGetUsers answers GET /_security/user.
func (s *Server) SecurityGetUsers(c echo.Context, _ cluster.SecurityGetUsersParams) error {
	return s.getUsers(c, nil)
}

// SecurityGetUser answers GET /_security/user/{username}.
func (s *Server) SecurityGetUser(c echo.Context, name string, _ cluster.SecurityGetUserParams) error {
	return s.getUsers(c, splitNames(name))
}

// SecurityDeleteUser answers DELETE /_security/user/{username}.
func (s *Server) SecurityDeleteUser(c echo.Context, name string, _ cluster.SecurityDeleteUserParams) error {
	if _, err := s.principal(c); err != nil {
		return err
	}
	found, err := s.sec.DeleteUser(c.Request().Context(), name)
	if err != nil {
		return err
	}
	return writeFound(c, found)
}

func writeFound(c echo.Context, found bool) error {
	status := http.StatusOK
	if !found {
		status = http.StatusNotFound
	}
	return writeJSON(c, status, map[string]any{"found": found})
}

func (s *Server) changePassword(c echo.Context, name string) error {
	a, err := s.principal(c)
	if err != nil {
		return err
	}
	if name == "" {
		if a.APIKeyID != "" || a.ServiceAccount != "" {
			return searchcore.IllegalArgument("user [%s] does not belong to the native realm and cannot change a password", a.User.Username)
		}
		name = a.User.Username
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	password, err := parseChangePassword(body)
	if err != nil {
		return err
	}
	if err := s.sec.ChangePassword(c.Request().Context(), name, *password); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]any{})
}

// parseChangePassword reads a change password body ({"password": string})
// with Elasticsearch's errors: an unexpected member or a non-string password
// is a parse_exception (the first such member in name order), a missing
// password a validation error.
func parseChangePassword(body []byte) (*string, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, searchcore.Errorf(searchcore.Invalid, "parse_exception", "request body is required")
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil || members == nil {
		return nil, searchcore.Errorf(searchcore.Invalid, "parse_exception", "failed to parse change password request: expected an object, found [%s]", searchcore.TokenName(body))
	}
	for _, k := range sortedKeys(members) {
		if k != "password" {
			return nil, searchcore.Errorf(searchcore.Invalid, "parse_exception", "failed to parse change password request. unexpected field [%s]", k)
		}
	}
	raw, ok := members["password"]
	if !ok {
		return nil, searchcore.ValidationError("password is missing")
	}
	var password string
	if tok := searchcore.TokenName(raw); tok != "VALUE_STRING" || json.Unmarshal(raw, &password) != nil {
		return nil, searchcore.Errorf(searchcore.Invalid, "parse_exception", "expected field [password] to be of type string, but found [%s] instead", tok)
	}
	return &password, nil
}

// SecurityChangePassword answers PUT /_security/user/{username}/_password.
func (s *Server) SecurityChangePassword(c echo.Context, name string, _ cluster.SecurityChangePasswordParams) error {
	return s.changePassword(c, name)
}

// SecurityChangePasswordPost answers POST /_security/user/{username}/_password.
func (s *Server) SecurityChangePasswordPost(c echo.Context, name string, _ cluster.SecurityChangePasswordPostParams) error {
	return s.changePassword(c, name)
}

// SecurityChangeOwnPassword answers PUT /_security/user/_password.
func (s *Server) SecurityChangeOwnPassword(c echo.Context, _ cluster.SecurityChangeOwnPasswordParams) error {
	return s.changePassword(c, "")
}

// SecurityChangeOwnPasswordPost answers POST /_security/user/_password.
func (s *Server) SecurityChangeOwnPasswordPost(c echo.Context, _ cluster.SecurityChangeOwnPasswordPostParams) error {
	return s.changePassword(c, "")
}

func (s *Server) setEnabled(c echo.Context, name string, enabled bool) error {
	a, err := s.principal(c)
	if err != nil {
		return err
	}
	if name == a.User.Username && a.APIKeyID == "" {
		return searchcore.IllegalArgument("users may not update the enabled status of their own account")
	}
	if err := s.sec.SetEnabled(c.Request().Context(), name, enabled); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]any{})
}

// SecurityEnableUser answers PUT /_security/user/{username}/_enable.
func (s *Server) SecurityEnableUser(c echo.Context, name string, _ cluster.SecurityEnableUserParams) error {
	return s.setEnabled(c, name, true)
}

// SecurityEnableUserPost answers POST /_security/user/{username}/_enable.
func (s *Server) SecurityEnableUserPost(c echo.Context, name string, _ cluster.SecurityEnableUserPostParams) error {
	return s.setEnabled(c, name, true)
}

// SecurityDisableUser answers PUT /_security/user/{username}/_disable.
func (s *Server) SecurityDisableUser(c echo.Context, name string, _ cluster.SecurityDisableUserParams) error {
	return s.setEnabled(c, name, false)
}

// SecurityDisableUserPost answers POST /_security/user/{username}/_disable.
func (s *Server) SecurityDisableUserPost(c echo.Context, name string, _ cluster.SecurityDisableUserPostParams) error {
	return s.setEnabled(c, name, false)
}

func (s *Server) hasPrivileges(c echo.Context) error {
	a, err := s.principal(c)
	if err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var req security.HasPrivilegesRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return searchcore.ParsingError("failed to parse privileges check: %v", err)
	}
	return writeJSON(c, http.StatusOK, a.HasPrivileges(req))
}

// SecurityHasPrivileges answers POST /_security/user/_has_privileges.
func (s *Server) SecurityHasPrivileges(c echo.Context, _ cluster.SecurityHasPrivilegesParams) error {
	return s.hasPrivileges(c)
}

// SecurityHasPrivilegesGet answers GET /_security/user/_has_privileges.
func (s *Server) SecurityHasPrivilegesGet(c echo.Context, _ cluster.SecurityHasPrivilegesGetParams) error {
	return s.hasPrivileges(c)
}

// ---------------------------------------------------------------- roles

func (s *Server) putRole(c echo.Context, name string) error {
	if _, err := s.principal(c); err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	rd, err := security.ParseRoleDescriptor(name, body)
	if err != nil {
		return err
	}
	created, err := s.sec.PutRole(c.Request().Context(), name, rd)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]any{"role": map[string]any{"created": created}})
}

// SecurityPutRole answers PUT /_security/role/{name}.
func (s *Server) SecurityPutRole(c echo.Context, name string, _ cluster.SecurityPutRoleParams) error {
	return s.putRole(c, name)
}

// SecurityPutRolePost answers POST /_security/role/{name}.
func (s *Server) SecurityPutRolePost(c echo.Context, name string, _ cluster.SecurityPutRolePostParams) error {
	return s.putRole(c, name)
}

// ExtSecurityPutRole answers POST /_ext/security/role/{name}.
func (s *Server) ExtSecurityPutRole(c echo.Context, name string, _ cluster.ExtSecurityPutRoleParams) error {
	return s.putRole(c, name)
}

func (s *Server) getRoles(c echo.Context, names []string) error {
	if _, err := s.principal(c); err != nil {
		return err
	}
	roles, err := s.sec.Roles(c.Request().Context(), names)
	if err != nil {
		return err
	}
	out := orderedJSON{}
	for _, n := range sortedKeys(roles) {
		if w := security.RoleDeprecation(n); w != "" && len(names) > 0 {
			s.deprecationWarning(c, w)
		}
		out = append(out, kvPair{n, roles[n]})
	}
	status := http.StatusOK
	if len(names) > 0 && len(roles) == 0 {
		status = http.StatusNotFound
	}
	return writeJSON(c, status, out)
}

// SecurityGetRoles answers GET /_security/role.
func (s *Server) SecurityGetRoles(c echo.Context, _ cluster.SecurityGetRolesParams) error {
	return s.getRoles(c, nil)
}

// SecurityGetRole answers GET /_security/role/{name}.
func (s *Server) SecurityGetRole(c echo.Context, name string, _ cluster.SecurityGetRoleParams) error {
	return s.getRoles(c, splitNames(name))
}

// SecurityDeleteRole answers DELETE /_security/role/{name}.
func (s *Server) SecurityDeleteRole(c echo.Context, name string, _ cluster.SecurityDeleteRoleParams) error {
	if _, err := s.principal(c); err != nil {
		return err
	}
	found, err := s.sec.DeleteRole(c.Request().Context(), name)
	if err != nil {
		return err
	}
	return writeFound(c, found)
}
