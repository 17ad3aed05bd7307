package handlers_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// basic renders a Basic Authorization header value.
func basic(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

var elasticAuth = basic("elastic", elasticPassword)

// mustDo sends a request that must answer want.
func (n *testNode) mustDo(method, path, auth, body string, want int) map[string]any {
	n.t.Helper()
	code, out, _ := n.doAuth(method, path, auth, body)
	if code != want {
		n.t.Fatalf("%s %s = %d, want %d: %v", method, path, code, want, out)
	}
	return out
}

const challenges = `["Basic realm=\"security\" charset=\"UTF-8\"","Bearer realm=\"security\"","ApiKey"]`

func TestSecurityAuthenticateElastic(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	out := n.mustDo("GET", "/_security/_authenticate", elasticAuth, "", 200)
	want := `{"authentication_realm":{"name":"reserved","type":"reserved"},"authentication_type":"realm","email":null,"enabled":true,"full_name":null,"lookup_realm":{"name":"reserved","type":"reserved"},"metadata":{"_reserved":true},"roles":["superuser"],"username":"elastic"}`
	if got := str(out); got != want {
		t.Errorf("authenticate = %s\nwant %s", got, want)
	}
}

func TestSecurityBadCredentials(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	cases := []struct {
		name, auth string
		status     int
		reason     string
		extra      string
	}{
		{"missing", "", 401, "missing authentication credentials for REST request [/_cluster/health]", ""},
		{"unknown scheme", "Digest abc", 401, "missing authentication credentials for REST request [/_cluster/health]", ""},
		{"malformed base64", "Basic !!!notbase64", 401, "invalid basic authentication header encoding", ""},
		{"no colon", "Basic " + base64.StdEncoding.EncodeToString([]byte("elastic")), 401, "invalid basic authentication header value", ""},
		{"wrong password", basic("elastic", "nope-nope"), 401, "unable to authenticate user [elastic] for REST request [/_cluster/health]", ""},
		{"unknown user", basic("ghost", "whatever"), 401, "unable to authenticate user [ghost] for REST request [/_cluster/health]", ""},
		{"unknown bearer", "Bearer abcdef", 401, "unable to authenticate with provided credentials and anonymous access is not allowed for this request", "token: unable to find the bearer token"},
		{"malformed api key", "ApiKey %%%", 401, "unable to authenticate with provided credentials and anonymous access is not allowed for this request", "API key: invalid ApiKey value"},
		{"unknown api key", "ApiKey " + base64.StdEncoding.EncodeToString([]byte("nokey:secret")), 401, "unable to authenticate with provided credentials and anonymous access is not allowed for this request", "API key: unable to find apikey with id nokey"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, h := n.doAuth("GET", "/_cluster/health", tc.auth, "")
			if code != tc.status {
				t.Fatalf("status = %d, want %d: %v", code, tc.status, out)
			}
			if got := jsonPath(out, "error.type"); got != "security_exception" {
				t.Errorf("type = %v", got)
			}
			if got := jsonPath(out, "error.reason"); got != tc.reason {
				t.Errorf("reason = %q, want %q", got, tc.reason)
			}
			if got := jsonPath(out, "error.root_cause.0.reason"); got != tc.reason {
				t.Errorf("root_cause reason = %q", got)
			}
			if got := str(jsonPath(out, "error.header.WWW-Authenticate")); got != challenges {
				t.Errorf("header member = %s", got)
			}
			if got := str(h.Values("WWW-Authenticate")); got != challenges {
				t.Errorf("WWW-Authenticate = %s", got)
			}
			if got := jsonPath(out, "status"); str(got) != "401" {
				t.Errorf("status member = %v", got)
			}
			if tc.extra != "" {
				if got := jsonPath(out, "error.additional_unsuccessful_credentials"); got != tc.extra {
					t.Errorf("additional_unsuccessful_credentials = %v, want %q", got, tc.extra)
				}
			}
		})
	}
}

func TestSecurityUsersAndRoles(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	n.mustDo("PUT", "/logs/_doc/1?refresh=true", elasticAuth, `{"msg":"hello"}`, 201)
	n.mustDo("PUT", "/secret/_doc/1?refresh=true", elasticAuth, `{"msg":"hidden"}`, 201)
	out := n.mustDo("PUT", "/_security/role/logs_reader", elasticAuth, `{"cluster":["monitor"],"indices":[{"names":["logs*"],"privileges":["read"]}]}`, 200)
	if got := str(out); got != `{"role":{"created":true}}` {
		t.Errorf("put role = %s", got)
	}
	out = n.mustDo("PUT", "/_security/user/alice", elasticAuth, `{"password":"alice-pw","roles":["logs_reader"],"full_name":"Alice"}`, 200)
	if got := str(out); got != `{"created":true}` {
		t.Errorf("put user = %s", got)
	}
	alice := basic("alice", "alice-pw")
	out = n.mustDo("GET", "/_security/_authenticate", alice, "", 200)
	if got := str(out["authentication_realm"]); got != `{"name":"default_native","type":"native"}` {
		t.Errorf("realm = %s", got)
	}
	n.mustDo("GET", "/logs/_search", alice, "", 200)
	out = n.mustDo("GET", "/secret/_search", alice, "", 403)
	want := "action [indices:data/read/search] is unauthorized for user [alice] with roles [logs_reader] on indices [secret], this action is granted by the index privileges [read,all]"
	if got := jsonPath(out, "error.reason"); got != want {
		t.Errorf("403 reason = %q\nwant %q", got, want)
	}
	out = n.mustDo("PUT", "/logs/_doc/2", alice, `{"msg":"x"}`, 403)
	if got := jsonPath(out, "error.reason"); !strings.HasPrefix(got.(string), "action [indices:data/write/index] is unauthorized for user [alice]") {
		t.Errorf("write 403 reason = %q", got)
	}
	// Wildcards expand to the authorized indices only.
	out = n.mustDo("GET", "/*/_search", alice, "", 200)
	if got := str(jsonPath(out, "hits.total.value")); got != "1" {
		t.Errorf("wildcard search total = %s", got)
	}
	_ = http.StatusOK
}

// jsonNum is a decoded json.Number for comparisons with do's output.
func jsonNum(n int) any {
	var out map[string]any
	dec := json.NewDecoder(strings.NewReader(`{"n":` + strconv.Itoa(n) + `}`))
	dec.UseNumber()
	_ = dec.Decode(&out)
	return out["n"]
}

func jsonUnmarshalNumber(b []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	return dec.Decode(v)
}

func TestBruteForceGuardOverHTTP(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{FailureBurst: 2, FailureRefill: time.Minute})
	n.mustDo("GET", "/_cluster/health", elasticAuth, "", 200)
	bad := basic("elastic", "guess-guess")
	n.mustDo("GET", "/_cluster/health", bad, "", 401)
	n.mustDo("GET", "/_cluster/health", bad, "", 401)
	code, out, h := n.doAuth("GET", "/_cluster/health", bad, "")
	if code != 429 || jsonPath(out, "error.reason") != "too many failed authentication attempts from [127.0.0.1]; retry in [60s]" || h.Get("Retry-After") != "60" {
		t.Errorf("over budget = %d %v Retry-After=%q", code, out, h.Get("Retry-After"))
	}
	// A client whose credentials are known good is not locked out.
	n.mustDo("GET", "/_cluster/health", elasticAuth, "", 200)
	n.Clock.Advance(2 * time.Minute)
	n.mustDo("GET", "/_cluster/health", bad, "", 401)
}

func TestAuthenticateSuperuserForAppSearch(t *testing.T) {
	clock := newFakeClock()
	n := newSecureTestNode(t, nodeOptions{Clock: clock})
	n.mustDo("PUT", "/_security/role/all_cluster", elasticAuth, `{"cluster":["all"]}`, 200)
	n.mustDo("PUT", "/_security/user/ops", elasticAuth, `{"password":"ops-pass","roles":["all_cluster"]}`, 200)
	n.mustDo("PUT", "/_security/user/plain", elasticAuth, `{"password":"plain-pass","roles":["viewer"]}`, 200)
	sec := n.Security
	cases := []struct {
		header string
		want   bool
	}{
		{elasticAuth, true},
		{basic("ops", "ops-pass"), true},
		{basic("plain", "plain-pass"), false},
		{basic("elastic", "wrong-pass"), false},
		{"", false},
	}
	for _, tc := range cases {
		got, err := sec.AuthenticateSuperuser(context.Background(), tc.header, "")
		if err != nil || got != tc.want {
			t.Errorf("AuthenticateSuperuser(%q) = %v, %v; want %v", tc.header, got, err, tc.want)
		}
	}
	// App Search paths are not checked by the cluster middleware.
	code, _, _ := n.rawAuth("GET", "/api/as/v1/engines", "", "", "")
	if code == 401 {
		t.Errorf("/api/as/v1/ answered 401: the cluster middleware must skip App Search paths")
	}
}

func TestFileRealm(t *testing.T) {
	dir := t.TempDir()
	hash, err := bcrypt.GenerateFromPassword([]byte("file-pass"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	users := filepath.Join(dir, "users")
	roles := filepath.Join(dir, "users_roles")
	if err := os.WriteFile(users, []byte("# bootstrap users\nops:"+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(roles, []byte("superuser:ops\nviewer:ops,other\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := newSecureTestNode(t, nodeOptions{UsersFile: users, UsersRolesFile: roles})
	out := n.mustDo("GET", "/_security/_authenticate", basic("ops", "file-pass"), "", 200)
	if str(out["authentication_realm"]) != `{"name":"default_file","type":"file"}` || str(out["roles"]) != `["superuser","viewer"]` {
		t.Errorf("file realm user = %s", str(out))
	}
	n.mustDo("GET", "/_security/_authenticate", basic("ops", "wrong-pass"), "", 401)
}

// TestSecurityErrorBodies pins the exact 401 and 403 bodies.
func TestSecurityErrorBodies(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	_, b, _ := n.rawAuth("GET", "/_cluster/health?pretty=false", "", "", "")
	want := `{"error":{"root_cause":[{"type":"security_exception","reason":"missing authentication credentials for REST request [/_cluster/health?pretty=false]","header":{"WWW-Authenticate":["Basic realm=\"security\" charset=\"UTF-8\"","Bearer realm=\"security\"","ApiKey"]}}],"type":"security_exception","reason":"missing authentication credentials for REST request [/_cluster/health?pretty=false]","header":{"WWW-Authenticate":["Basic realm=\"security\" charset=\"UTF-8\"","Bearer realm=\"security\"","ApiKey"]}},"status":401}`
	if got := strings.TrimSpace(string(b)); got != want {
		t.Errorf("401 body = %s\nwant %s", got, want)
	}
	n.mustDo("PUT", "/_security/user/v", elasticAuth, `{"password":"viewer-pw","roles":["viewer"]}`, 200)
	_, b, _ = n.rawAuth("PUT", "/_cluster/settings", basic("v", "viewer-pw"), "application/json", `{"persistent":{}}`)
	want = `{"error":{"root_cause":[{"type":"security_exception","reason":"action [cluster:admin/settings/update] is unauthorized for user [v] with roles [viewer], this action is granted by the cluster privileges [manage,all]"}],"type":"security_exception","reason":"action [cluster:admin/settings/update] is unauthorized for user [v] with roles [viewer], this action is granted by the cluster privileges [manage,all]"},"status":403}`
	if got := strings.TrimSpace(string(b)); got != want {
		t.Errorf("403 body = %s\nwant %s", got, want)
	}
}

func TestPointInTimeSearchAuthorizedOnItsIndices(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	n.mustDo("PUT", "/secret/_doc/1?refresh=true", elasticAuth, `{"m":1}`, 201)
	out := n.mustDo("POST", "/secret/_pit?keep_alive=1m", elasticAuth, "", 200)
	pit := out["id"].(string)
	n.mustDo("PUT", "/_security/user/v", elasticAuth, `{"password":"viewer-pw","roles":["logs_only"]}`, 200)
	n.mustDo("PUT", "/_security/role/logs_only", elasticAuth, `{"indices":[{"names":["logs"],"privileges":["read"]}]}`, 200)
	out = n.mustDo("POST", "/_search", basic("v", "viewer-pw"), `{"pit":{"id":"`+pit+`","keep_alive":"1m"}}`, 403)
	if got := jsonPath(out, "error.reason"); got != "action [indices:data/read/search] is unauthorized for user [v] with roles [logs_only] on indices [secret], this action is granted by the index privileges [read,all]" {
		t.Errorf("pit search = %v", got)
	}
	n.mustDo("POST", "/_search", elasticAuth, `{"pit":{"id":"`+pit+`","keep_alive":"1m"}}`, 200)
}

// TestBruteForceGuardOnAppSearchBasicAuth: Basic auth on the App Search API
// goes through the same per-source guard as the cluster API (failures on
// either count), answering App Search's 429 with Retry-After, without
// locking out a client whose credentials are good.
func TestBruteForceGuardOnAppSearchBasicAuth(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{FailureBurst: 2, FailureRefill: time.Minute, AppSearch: true})
	const engines = "/api/as/v1/engines"
	code, b, _ := n.rawAuth("GET", engines, elasticAuth, "", "")
	if code != 200 || !strings.HasPrefix(string(b), `{"meta":`) {
		t.Fatalf("superuser = %d %s", code, b)
	}
	bad := basic("elastic", "guess-guess")
	n.mustDo("GET", "/_cluster/health", bad, "", 401) // the cluster API's failure counts too
	code, b, _ = n.rawAuth("GET", engines, bad, "", "")
	if code != 400 || strings.TrimSpace(string(b)) != `{"error":"invalid authentication token"}` {
		t.Errorf("wrong password = %d %s", code, b)
	}
	code, b, h := n.rawAuth("GET", engines, bad, "", "")
	if code != 429 || strings.TrimSpace(string(b)) != `{"error":"too many failed authentication attempts from [127.0.0.1]; retry in [60s]"}` || h.Get("Retry-After") != "60" {
		t.Errorf("over budget = %d %s Retry-After=%q", code, b, h.Get("Retry-After"))
	}
	code, _, _ = n.doAuth("GET", "/_cluster/health", bad, "")
	if code != 429 {
		t.Errorf("cluster API over budget = %d, want 429", code)
	}
	if code, b, _ = n.rawAuth("GET", engines, elasticAuth, "", ""); code != 200 {
		t.Errorf("good client locked out: %d %s", code, b)
	}
	n.Clock.Advance(2 * time.Minute)
	if code, _, _ = n.rawAuth("GET", engines, bad, "", ""); code != 400 {
		t.Errorf("after refill = %d, want 400", code)
	}
}

// TestExpiredAndRevokedCredentialBodies pins the exact 401 answers (status,
// body, WWW-Authenticate) for credentials that were good once: an expired
// and an invalidated access token, an expired and an invalidated API key,
// and a deleted service account token. A single header value renders as a
// string and several as an array, like Elasticsearch.
func TestExpiredAndRevokedCredentialBodies(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	expiring := n.mustDo("POST", "/_security/oauth2/token", elasticAuth, `{"grant_type":"client_credentials"}`, 200)
	revoked := n.mustDo("POST", "/_security/oauth2/token", elasticAuth, `{"grant_type":"client_credentials"}`, 200)
	n.mustDo("DELETE", "/_security/oauth2/token", elasticAuth, `{"token":"`+revoked["access_token"].(string)+`"}`, 200)
	shortKey := n.mustDo("POST", "/_security/api_key", elasticAuth, `{"name":"short","expiration":"10m"}`, 200)
	goneKey := n.mustDo("POST", "/_security/api_key", elasticAuth, `{"name":"gone"}`, 200)
	n.mustDo("DELETE", "/_security/api_key", elasticAuth, `{"name":"gone"}`, 200)
	svc := n.mustDo("POST", "/_security/service/elastic/fleet-server/credential/token/t1", elasticAuth, "", 200)
	n.mustDo("DELETE", "/_security/service/elastic/fleet-server/credential/token/t1", elasticAuth, "", 200)
	n.Clock.Advance(20 * time.Minute)

	const all = `["Basic realm=\"security\" charset=\"UTF-8\"","Bearer realm=\"security\"","ApiKey"]`
	const expiredBearer = `"Bearer realm=\"security\", error=\"invalid_token\", error_description=\"The access token expired\""`
	body := func(reason, extra, header string) string {
		cause := `{"type":"security_exception","reason":"` + reason + `",` + extra + `"header":{"WWW-Authenticate":` + header + `}}`
		return `{"error":{"root_cause":[` + cause + `],` + strings.TrimPrefix(cause, "{") + `,"status":401}`
	}
	unsuccessful := func(detail string) string {
		return body("unable to authenticate with provided credentials and anonymous access is not allowed for this request",
			`"additional_unsuccessful_credentials":"`+detail+`",`, all)
	}
	cases := []struct {
		name, auth, want string
		challenges       []string
	}{
		{"expired access token", "Bearer " + expiring["access_token"].(string), body("token expired", "", expiredBearer),
			[]string{`Bearer realm="security", error="invalid_token", error_description="The access token expired"`}},
		{"invalidated access token", "Bearer " + revoked["access_token"].(string), body("token expired", "", expiredBearer),
			[]string{`Bearer realm="security", error="invalid_token", error_description="The access token expired"`}},
		{"expired api key", "ApiKey " + shortKey["encoded"].(string), unsuccessful("API key: api key is expired"), nil},
		{"invalidated api key", "ApiKey " + goneKey["encoded"].(string), unsuccessful("API key: api key has been invalidated"), nil},
		{"deleted service token", "Bearer " + jsonPath(svc, "token.value").(string),
			body("failed to authenticate service account [elastic/fleet-server] with token name [t1]", "", all), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, b, h := n.rawAuth("GET", "/_cluster/health", tc.auth, "", "")
			if code != 401 {
				t.Errorf("status = %d, want 401", code)
			}
			if got := strings.TrimSpace(string(b)); got != tc.want {
				t.Errorf("body = %s\nwant   %s", got, tc.want)
			}
			want := tc.challenges
			if want == nil {
				want = []string{`Basic realm="security" charset="UTF-8"`, `Bearer realm="security"`, `ApiKey`}
			}
			if got := h.Values("WWW-Authenticate"); str(got) != str(want) {
				t.Errorf("WWW-Authenticate = %v, want %v", got, want)
			}
		})
	}
}

// TestSecretsNeverReturnedNorLogged: after creation no answer carries a
// password, token, API key or service token (nor a hash of one), and the
// server's debug log never does, including for failed requests.
func TestSecretsNeverReturnedNorLogged(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	n := newSecureTestNode(t, nodeOptions{Logger: logger, AppSearch: true})
	n.mustDo("PUT", "/_security/user/dora", elasticAuth, `{"password":"dora-secret-pw","roles":["superuser"]}`, 200)
	dora := basic("dora", "dora-secret-pw")
	tok := n.mustDo("POST", "/_security/oauth2/token", elasticAuth, `{"grant_type":"password","username":"dora","password":"dora-secret-pw"}`, 200)
	key := n.mustDo("POST", "/_security/api_key", dora, `{"name":"dora-key"}`, 200)
	svc := n.mustDo("POST", "/_security/service/elastic/fleet-server/credential/token/t1", elasticAuth, "", 200)
	secrets := []string{elasticPassword, "dora-secret-pw", tok["access_token"].(string), tok["refresh_token"].(string),
		key["api_key"].(string), key["encoded"].(string), jsonPath(svc, "token.value").(string)}

	var answers []string
	record := func(method, path, auth, body string) {
		ct := ""
		if body != "" {
			ct = "application/json"
		}
		code, b, _ := n.rawAuth(method, path, auth, ct, body)
		answers = append(answers, fmt.Sprintf("%s %s = %d %s", method, path, code, b))
	}
	for _, auth := range []string{elasticAuth, dora, "Bearer " + tok["access_token"].(string), "ApiKey " + key["encoded"].(string), "Bearer " + jsonPath(svc, "token.value").(string)} {
		record("GET", "/_security/_authenticate", auth, "")
	}
	record("GET", "/_security/user", elasticAuth, "")
	record("GET", "/_security/user/dora", elasticAuth, "")
	record("GET", "/_security/api_key?name=*", elasticAuth, "")
	record("GET", "/_security/service/elastic/fleet-server/credential", elasticAuth, "")
	record("GET", "/_security/service/elastic/fleet-server", elasticAuth, "")
	// Failures that carry secrets in their request.
	record("GET", "/_cluster/health", basic("dora", "dora-secret-pw-wrong"), "")
	record("PUT", "/_security/user/dora/_password", elasticAuth, `{"password":"dora-secret-pw","bogus":1}`)
	record("PUT", "/_security/user/dora/_password", elasticAuth, `{"password":["dora-secret-pw"]}`)
	record("POST", "/_security/oauth2/token", elasticAuth, `{"grant_type":"password","username":"dora","password":"dora-secret-pw","scope":{}}`)
	record("POST", "/_security/oauth2/token", elasticAuth, `{"grant_type":"refresh_token","refresh_token":"`+tok["refresh_token"].(string)+`x"}`)
	record("DELETE", "/_security/oauth2/token", elasticAuth, `{"token":"`+tok["access_token"].(string)+`","bogus":[`)
	record("GET", "/api/as/v1/engines", basic("dora", "dora-secret-pw-wrong"), "")
	record("GET", "/api/as/v1/engines", "Bearer "+tok["access_token"].(string), "")
	if len(answers) != 18 {
		t.Fatalf("%d answers", len(answers))
	}
	for _, a := range answers {
		for _, s := range secrets {
			if strings.Contains(a, s) {
				t.Errorf("answer carries a secret: %s", a)
			}
		}
		if strings.Contains(a, `"hash"`) || strings.Contains(a, `"salt"`) || strings.Contains(a, "password_hash") {
			t.Errorf("answer carries a hash: %s", a)
		}
	}
	for _, s := range secrets {
		if strings.Contains(logs.String(), s) {
			t.Errorf("the log carries a secret:\n%s", logs.String())
		}
	}
}

// TestChangePasswordBodyErrors: the change password body is strict, with
// Elasticsearch's messages, and a failed change keeps the old password.
func TestChangePasswordBodyErrors(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{})
	n.mustDo("PUT", "/_security/user/pat", elasticAuth, `{"password":"pat-password","roles":["viewer"]}`, 200)
	cases := []struct {
		body, typ, reason string
	}{
		{`{"password":"pat-password-2","bogus":1}`, "parse_exception", "failed to parse change password request. unexpected field [bogus]"},
		{`{"password":12345678}`, "parse_exception", "expected field [password] to be of type string, but found [VALUE_NUMBER] instead"},
		{`{"password":{"x":1}}`, "parse_exception", "expected field [password] to be of type string, but found [START_OBJECT] instead"},
		{`[1]`, "parse_exception", "failed to parse change password request: expected an object, found [START_ARRAY]"},
		{`{}`, "action_request_validation_exception", "Validation Failed: 1: password is missing;"},
		{`{"password":"short"}`, "action_request_validation_exception", "Validation Failed: 1: passwords must be at least [6] characters long;"},
	}
	for _, tc := range cases {
		out := n.mustDo("PUT", "/_security/user/pat/_password", elasticAuth, tc.body, 400)
		if jsonPath(out, "error.type") != tc.typ || jsonPath(out, "error.reason") != tc.reason {
			t.Errorf("%s = %v %v, want %s %q", tc.body, jsonPath(out, "error.type"), jsonPath(out, "error.reason"), tc.typ, tc.reason)
		}
	}
	n.mustDo("GET", "/_security/_authenticate", basic("pat", "pat-password"), "", 200)
	n.mustDo("POST", "/_security/user/pat/_password", basic("pat", "pat-password"), `{"password":"pat-password-2"}`, 200)
	n.mustDo("GET", "/_security/_authenticate", basic("pat", "pat-password"), "", 401)
	n.mustDo("GET", "/_security/_authenticate", basic("pat", "pat-password-2"), "", 200)
}
