package handlers_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	asgen "github.com/quarry-search/quarry/gen/appsearch"
	"github.com/quarry-search/quarry/gen/cluster"
)

// TestEveryOperationDeclaresPrivileges fails when an operation of either
// spec (cluster, App Search) lacks x-quarry-privileges.
func TestEveryOperationDeclaresPrivileges(t *testing.T) {
	clusterDoc, err := cluster.GetSwagger()
	if err != nil {
		t.Fatal(err)
	}
	asDoc, err := asgen.GetSwagger()
	if err != nil {
		t.Fatal(err)
	}
	specs := []struct {
		name     string
		doc      *openapi3.T
		required string // the member every declaration sets
		min      int
	}{
		{"cluster", clusterDoc, "action", 180},
		{"appsearch", asDoc, "access", 46},
	}
	for _, sp := range specs {
		count := 0
		for path, item := range sp.doc.Paths.Map() {
			for method, op := range item.Operations() {
				count++
				ext, ok := op.Extensions["x-quarry-privileges"].(map[string]any)
				if !ok {
					t.Errorf("%s: %s %s (%s) has no x-quarry-privileges", sp.name, method, path, op.OperationID)
					continue
				}
				if a, _ := ext[sp.required].(string); a == "" {
					t.Errorf("%s: %s %s (%s): no %s", sp.name, method, path, op.OperationID, sp.required)
				}
			}
		}
		if count < sp.min {
			t.Errorf("%s: only %d operations: the spec did not load fully", sp.name, count)
		}
	}
}

func TestTokenServiceLifecycle(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	n.mustDo("PUT", "/_security/user/bob", elasticAuth, `{"password":"bob-pass","roles":["viewer"]}`, 200)
	tok := n.mustDo("POST", "/_security/oauth2/token", elasticAuth, `{"grant_type":"password","username":"bob","password":"bob-pass"}`, 200)
	if got := str(jsonPath(tok, "expires_in")); got != "1200" {
		t.Errorf("expires_in = %s", got)
	}
	if tok["type"] != "Bearer" || tok["refresh_token"] == nil || jsonPath(tok, "authentication.username") != "bob" {
		t.Errorf("token answer = %v", tok)
	}
	bearer := "Bearer " + tok["access_token"].(string)
	out := n.mustDo("GET", "/_security/_authenticate", bearer, "", 200)
	if out["username"] != "bob" || out["authentication_type"] != "token" || str(out["authentication_realm"]) != `{"name":"default_native","type":"native"}` {
		t.Errorf("bearer authenticate = %v", out)
	}
	// Expiry: 20 minutes on the fake clock.
	n.Clock.Advance(20*time.Minute - time.Second)
	n.mustDo("GET", "/_security/_authenticate", bearer, "", 200)
	n.Clock.Advance(time.Second)
	code, out, h := n.doAuth("GET", "/_security/_authenticate", bearer, "")
	if code != 401 || jsonPath(out, "error.reason") != "token expired" ||
		h.Get("WWW-Authenticate") != `Bearer realm="security", error="invalid_token", error_description="The access token expired"` {
		t.Errorf("expired token = %d %v %v", code, out, h.Values("WWW-Authenticate"))
	}
	// Refresh gives a new pair; the refresh token works once.
	refresh := tok["refresh_token"].(string)
	next := n.mustDo("POST", "/_security/oauth2/token", elasticAuth, `{"grant_type":"refresh_token","refresh_token":"`+refresh+`"}`, 200)
	out = n.mustDo("POST", "/_security/oauth2/token", elasticAuth, `{"grant_type":"refresh_token","refresh_token":"`+refresh+`"}`, 400)
	if jsonPath(out, "error.reason") != "invalid_grant" || jsonPath(out, "error.error_description") != "token has already been refreshed" {
		t.Errorf("second refresh = %v", out)
	}
	bearer2 := "Bearer " + next["access_token"].(string)
	n.mustDo("GET", "/_security/_authenticate", bearer2, "", 200)
	// Invalidation by token, then by username.
	out = n.mustDo("DELETE", "/_security/oauth2/token", elasticAuth, `{"token":"`+next["access_token"].(string)+`"}`, 200)
	if str(out) != `{"error_count":0,"invalidated_tokens":1,"previously_invalidated_tokens":0}` {
		t.Errorf("invalidate = %s", str(out))
	}
	code, out, _ = n.doAuth("GET", "/_security/_authenticate", bearer2, "")
	if code != 401 || jsonPath(out, "error.reason") != "token expired" {
		t.Errorf("invalidated token = %d %v", code, out)
	}
	out = n.mustDo("DELETE", "/_security/oauth2/token", elasticAuth, `{"username":"bob"}`, 200)
	if str(out) != `{"error_count":0,"invalidated_tokens":3,"previously_invalidated_tokens":1}` {
		t.Errorf("invalidate by username = %s", str(out))
	}
	out = n.mustDo("DELETE", "/_security/oauth2/token", elasticAuth, `{"token":"unknown"}`, 404)
	if str(out) != `{"error_count":0,"invalidated_tokens":0,"previously_invalidated_tokens":0}` {
		t.Errorf("invalidate unknown = %s", str(out))
	}
	// client_credentials: no refresh token; _kerberos: a clear error.
	cc := n.mustDo("POST", "/_security/oauth2/token", basic("bob", "bob-pass"), `{"grant_type":"client_credentials"}`, 403)
	if !strings.HasPrefix(jsonPath(cc, "error.reason").(string), "action [cluster:admin/xpack/security/token/create] is unauthorized for user [bob] with roles [viewer]") {
		t.Errorf("viewer creating a token = %v", cc)
	}
	cc = n.mustDo("POST", "/_security/oauth2/token", elasticAuth, `{"grant_type":"client_credentials"}`, 200)
	if cc["refresh_token"] != nil || jsonPath(cc, "authentication.username") != "elastic" {
		t.Errorf("client_credentials = %v", cc)
	}
	cases := []struct{ body, typ, reason string }{
		{`{"grant_type":"_kerberos","kerberos_ticket":"x"}`, "illegal_argument_exception", "grant_type [_kerberos] is not supported: no kerberos realm is configured on this node"},
		{`{"grant_type":"magic"}`, "action_request_validation_exception", "Validation Failed: 1: grant_type [magic] is not supported;"},
		{`{"grant_type":"password"}`, "action_request_validation_exception", "Validation Failed: 1: username is missing;2: password is missing;"},
		{`{"grant_type":"password","username":"bob","password":"nope-nope"}`, "security_exception", "failed to authenticate user [bob]"},
		{`{"grant_type":"password","bogus":1}`, "parsing_exception", "[token_request] unknown field [bogus]"},
		{`{"grant_type":"password","scope":{}}`, "x_content_parse_exception", "[token_request] scope doesn't support values of type: START_OBJECT"},
		{`{"grant_type":["password"]}`, "x_content_parse_exception", "[token_request] grant_type doesn't support values of type: START_ARRAY"},
		{`{"grant_type":"password","username":7}`, "x_content_parse_exception", "[token_request] username doesn't support values of type: VALUE_NUMBER"},
	}
	for _, tc := range cases {
		code, out, _ := n.doAuth("POST", "/_security/oauth2/token", elasticAuth, tc.body)
		if jsonPath(out, "error.type") != tc.typ || jsonPath(out, "error.reason") != tc.reason || (code != 400 && code != 401) {
			t.Errorf("%s = %d %v", tc.body, code, out)
		}
	}
}

func TestAPIKeys(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	n.mustDo("PUT", "/logs/_doc/1?refresh=true", elasticAuth, `{"m":1}`, 201)
	n.mustDo("PUT", "/other/_doc/1?refresh=true", elasticAuth, `{"m":1}`, 201)
	n.mustDo("PUT", "/_security/role/keymaker", elasticAuth, `{"cluster":["manage_own_api_key"],"indices":[{"names":["logs","other"],"privileges":["read","write"]}]}`, 200)
	n.mustDo("PUT", "/_security/user/carol", elasticAuth, `{"password":"carol-pw","roles":["keymaker"]}`, 200)
	carol := basic("carol", "carol-pw")
	// A key asking for more than its owner has gets the intersection.
	key := n.mustDo("POST", "/_security/api_key", carol, `{"name":"k1","expiration":"1h","role_descriptors":{"r":{"cluster":["all"],"indices":[{"names":["logs","secret"],"privileges":["all"]}]}},"metadata":{"app":"x"}}`, 200)
	enc := key["encoded"].(string)
	if raw, _ := base64.StdEncoding.DecodeString(enc); string(raw) != key["id"].(string)+":"+key["api_key"].(string) {
		t.Errorf("encoded = %q", raw)
	}
	apiKey := "ApiKey " + enc
	out := n.mustDo("GET", "/_security/_authenticate", apiKey, "", 200)
	if out["username"] != "carol" || out["authentication_type"] != "api_key" || str(out["api_key"]) != `{"id":"`+key["id"].(string)+`","name":"k1"}` {
		t.Errorf("api key authenticate = %v", out)
	}
	n.mustDo("GET", "/logs/_search", apiKey, "", 200)
	out = n.mustDo("GET", "/other/_search", apiKey, "", 403)
	if got := jsonPath(out, "error.reason"); got != "action [indices:data/read/search] is unauthorized for API key id ["+key["id"].(string)+"] of user [carol] on indices [other], this action is granted by the index privileges [read,all]" {
		t.Errorf("key outside its descriptors = %v", got)
	}
	n.mustDo("GET", "/_cluster/health", apiKey, "", 403) // owner lacks monitor
	// Get: own keys only for manage_own_api_key, asked for with owner=true
	// or the caller's own username and realm (ManageOwnApiKeyClusterPrivilege);
	// a key may read itself by id, nothing else.
	n.mustDo("POST", "/_security/api_key", elasticAuth, `{"name":"admin-key"}`, 200)
	const getDenied = "action [cluster:admin/xpack/security/api_key/get] is unauthorized for user [carol] with roles [keymaker], this action is granted by the cluster privileges [manage_api_key,manage_security,all]"
	for _, q := range []string{"", "?name=k1", "?username=carol", "?username=carol&realm_name=file", "?username=elastic&realm_name=default_native"} {
		out = n.mustDo("GET", "/_security/api_key"+q, carol, "", 403)
		if got := jsonPath(out, "error.reason"); got != getDenied {
			t.Errorf("carol GET api_key%s: %v", q, got)
		}
	}
	for _, q := range []string{"?owner=true", "?username=carol&realm_name=default_native", "?owner=true&name=k1"} {
		out = n.mustDo("GET", "/_security/api_key"+q, carol, "", 200)
		keys := out["api_keys"].([]any)
		if len(keys) != 1 || jsonPath(keys[0], "name") != "k1" || jsonPath(keys[0], "invalidated") != false || str(jsonPath(keys[0], "metadata")) != `{"app":"x"}` {
			t.Errorf("carol's keys%s = %v", q, keys)
		}
	}
	out = n.mustDo("GET", "/_security/api_key?id="+key["id"].(string), apiKey, "", 200)
	if keys := out["api_keys"].([]any); len(keys) != 1 || jsonPath(keys[0], "id") != key["id"] {
		t.Errorf("key reading itself = %v", keys)
	}
	out = n.mustDo("GET", "/_security/api_key?owner=true", apiKey, "", 403)
	if got := jsonPath(out, "error.reason"); got != "action [cluster:admin/xpack/security/api_key/get] is unauthorized for API key id ["+key["id"].(string)+"] of user [carol], this action is granted by the cluster privileges [manage_api_key,manage_security,all]" {
		t.Errorf("key reading its owner's keys: %v", got)
	}
	out = n.mustDo("GET", "/_security/api_key?name=*", elasticAuth, "", 200)
	if l := len(out["api_keys"].([]any)); l != 2 {
		t.Errorf("elastic sees %d keys, want 2", l)
	}
	// Expiry on the fake clock.
	n.Clock.Advance(time.Hour)
	code, out, _ := n.doAuth("GET", "/logs/_search", apiKey, "")
	if code != 401 || jsonPath(out, "error.additional_unsuccessful_credentials") != "API key: api key is expired" {
		t.Errorf("expired key = %d %v", code, out)
	}
	// Invalidation.
	key2 := n.mustDo("PUT", "/_security/api_key", carol, `{"name":"k2"}`, 200)
	out = n.mustDo("DELETE", "/_security/api_key", carol, `{"ids":["`+key2["id"].(string)+`"]}`, 403)
	if got := jsonPath(out, "error.reason"); got != "action [cluster:admin/xpack/security/api_key/invalidate] is unauthorized for user [carol] with roles [keymaker], this action is granted by the cluster privileges [manage_api_key,manage_security,all]" {
		t.Errorf("invalidate without owner: %v", got)
	}
	out = n.mustDo("DELETE", "/_security/api_key", carol, `{"ids":["`+key2["id"].(string)+`"],"owner":true}`, 200)
	if str(out) != `{"error_count":0,"invalidated_api_keys":["`+key2["id"].(string)+`"],"previously_invalidated_api_keys":[]}` {
		t.Errorf("invalidate = %s", str(out))
	}
	code, out, _ = n.doAuth("GET", "/logs/_search", "ApiKey "+key2["encoded"].(string), "")
	if code != 401 || jsonPath(out, "error.additional_unsuccessful_credentials") != "API key: api key has been invalidated" {
		t.Errorf("invalidated key = %d %v", code, out)
	}
	wrong := "ApiKey " + base64.StdEncoding.EncodeToString([]byte(key2["id"].(string)+":not-the-key"))
	code, out, _ = n.doAuth("GET", "/logs/_search", wrong, "")
	if code != 401 || jsonPath(out, "error.additional_unsuccessful_credentials") != "API key: invalid credentials for API key ["+key2["id"].(string)+"]" {
		t.Errorf("wrong key secret = %d %v", code, out)
	}
	// Grant on behalf of carol; validation errors.
	g := n.mustDo("POST", "/_security/api_key/grant", elasticAuth, `{"grant_type":"password","username":"carol","password":"carol-pw","api_key":{"name":"granted"}}`, 200)
	out = n.mustDo("GET", "/_security/_authenticate", "ApiKey "+g["encoded"].(string), "", 200)
	if out["username"] != "carol" {
		t.Errorf("granted key owner = %v", out["username"])
	}
	out = n.mustDo("POST", "/_security/api_key", carol, `{"name":"_hidden"}`, 400)
	if jsonPath(out, "error.reason") != "Validation Failed: 1: api key name may not begin with an underscore;" {
		t.Errorf("bad name = %v", out)
	}
	out = n.mustDo("POST", "/_security/api_key", carol, `{"name":"x","expiration":"soon"}`, 400)
	if jsonPath(out, "error.reason") != "failed to parse setting [expiration] with value [soon] as a time value: unit is missing or unrecognized" {
		t.Errorf("bad expiration = %v", out)
	}
}

func TestServiceAccounts(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	out := n.mustDo("POST", "/_security/service/elastic/fleet-server/credential/token/token1", elasticAuth, "", 200)
	if out["created"] != true || jsonPath(out, "token.name") != "token1" {
		t.Fatalf("create = %v", out)
	}
	value := jsonPath(out, "token.value").(string)
	gen := n.mustDo("POST", "/_security/service/elastic/fleet-server/credential/token", elasticAuth, "", 200)
	if name := jsonPath(gen, "token.name").(string); !strings.HasPrefix(name, "token_") {
		t.Errorf("generated name = %q", name)
	}
	out = n.mustDo("PUT", "/_security/service/elastic/fleet-server/credential/token/token1", elasticAuth, "", 409)
	if jsonPath(out, "error.type") != "version_conflict_engine_exception" {
		t.Errorf("duplicate = %v", out)
	}
	out = n.mustDo("POST", "/_security/service/elastic/fleet-server/credential/token/_bad", elasticAuth, "", 400)
	if !strings.HasPrefix(jsonPath(out, "error.reason").(string), "Validation Failed: 1: service account token name must have at least 1 character") {
		t.Errorf("bad name = %v", out)
	}
	n.mustDo("POST", "/_security/service/elastic/nope/credential/token/t", elasticAuth, "", 404)
	bearer := "Bearer " + value
	out = n.mustDo("GET", "/_security/_authenticate", bearer, "", 200)
	want := `{"authentication_realm":{"name":"_service_account","type":"_service_account"},"authentication_type":"token","email":null,"enabled":true,"full_name":"Service account - elastic/fleet-server","lookup_realm":{"name":"_service_account","type":"_service_account"},"metadata":{"_elastic_service_account":true},"roles":[],"token":{"name":"token1","type":"_service_account_index"},"username":"elastic/fleet-server"}`
	if str(out) != want {
		t.Errorf("service authenticate = %s", str(out))
	}
	// The fleet-server account writes logs-* but cannot read other indices.
	n.mustDo("POST", "/logs-app/_doc", bearer, `{"m":1}`, 201)
	n.mustDo("GET", "/private/_search", bearer, "", 403)
	out = n.mustDo("GET", "/_security/service/elastic/fleet-server/credential", elasticAuth, "", 200)
	if out["count"] != jsonNum(2) || out["service_account"] != "elastic/fleet-server" || jsonPath(out, "tokens.token1") == nil {
		t.Errorf("credentials = %v", out)
	}
	out = n.mustDo("GET", "/_security/service/elastic", elasticAuth, "", 200)
	if len(out) != 2 || jsonPath(out, "elastic/dashboard") == nil {
		t.Errorf("accounts = %v", out)
	}
	out = n.mustDo("GET", "/_security/service/elastic/fleet-server", elasticAuth, "", 200)
	if str(jsonPath(out, "elastic/fleet-server.role_descriptor.cluster")) != `["monitor","manage_own_api_key"]` {
		t.Errorf("fleet-server = %v", out)
	}
	n.mustDo("DELETE", "/_security/service/elastic/fleet-server/credential/token/token1", elasticAuth, "", 200)
	n.mustDo("DELETE", "/_security/service/elastic/fleet-server/credential/token/token1", elasticAuth, "", 404)
	code, out, _ := n.doAuth("GET", "/_security/_authenticate", bearer, "")
	if code != 401 || jsonPath(out, "error.reason") != "failed to authenticate service account [elastic/fleet-server] with token name [token1]" {
		t.Errorf("deleted token = %d %v", code, out)
	}
}

func TestServiceAccountsNeedTLSInProduction(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{Production: true})
	out := n.mustDo("POST", "/_security/service/elastic/fleet-server/credential/token/t1", elasticAuth, "", 400)
	if jsonPath(out, "error.type") != "illegal_state_exception" || !strings.HasPrefix(jsonPath(out, "error.reason").(string), "service account APIs and service account tokens require TLS on the HTTP interface in production mode") {
		t.Errorf("production without TLS = %v", out)
	}
	tls := newSecureTestNode(t, nodeOptions{Production: true, HTTPTLS: true})
	tls.mustDo("POST", "/_security/service/elastic/fleet-server/credential/token/t1", elasticAuth, "", 200)
}
