package handlers_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quarry-search/quarry/clients/appsearchclient"
	"github.com/quarry-search/quarry/searchcore/appsearch"
)

func TestAppSearchCredentials(t *testing.T) {
	n := newASNode(t, asOptions{})
	ctx := context.Background()
	n.su("POST", "/engines", `{"name":"a"}`)
	n.su("POST", "/engines", `{"name":"b"}`)
	c := n.client(superuserBasic)
	res, err := c.CreateCredentialWithResponse(ctx, appsearchclient.KeyRequest{Name: ptr("admin"), Type: ptr("admin")})
	if err != nil || res.JSON200 == nil {
		t.Fatalf("create admin = %v %s", err, res.Body)
	}
	adminKey, err := res.JSON200.AsKey()
	if err != nil {
		t.Fatal(err)
	}
	admin := "Bearer " + adminKey.Key
	if !regexp.MustCompile(`^admin-[a-z0-9]{24}$`).MatchString(adminKey.Key) || adminKey.Type != appsearchclient.KeyTypeAdmin {
		t.Errorf("admin key = %+v", adminKey)
	}
	// The admin key manages keys; the shapes per type.
	ac := n.client(admin)
	for _, tc := range []struct {
		body, keyRE, want string
	}{
		{`{"name":"priv","type":"private","read":true,"write":true,"access_all_engines":true}`, `^private-[a-z0-9]{24}$`, `{"access_all_engines":true,"name":"priv","read":true,"type":"private","write":true}`},
		{`{"name":"ro","type":"private","read":true,"write":false,"engines":["a"]}`, `^private-`, `{"access_all_engines":false,"engines":["a"],"name":"ro","read":true,"type":"private","write":false}`},
		{`{"name":"wo-b","type":"private","read":false,"write":true,"access_all_engines":false,"engines":["b"]}`, `^private-`, `{"access_all_engines":false,"engines":["b"],"name":"wo-b","read":false,"type":"private","write":true}`},
		{`{"name":"search","type":"search"}`, `^search-[a-z0-9]{24}$`, `{"access_all_engines":true,"name":"search","type":"search"}`},
	} {
		r, err := ac.CreateCredentialWithBodyWithResponse(ctx, "application/json", strings.NewReader(tc.body))
		if err != nil || r.JSON200 == nil {
			t.Fatalf("create %s = %v %s", tc.body, err, r.Body)
		}
		k, err := r.JSON200.AsKey()
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		json.Unmarshal(r.Body, &got)
		if !regexp.MustCompile(tc.keyRE).MatchString(k.Key) || !strings.HasSuffix(k.Id, "|name:"+k.Name) {
			t.Errorf("key = %+v", k)
		}
		delete(got, "key")
		delete(got, "id")
		if b, _ := json.Marshal(got); string(b) != tc.want {
			t.Errorf("create %s = %s, want %s", tc.body, b, tc.want)
		}
	}
	// Secrets are stored hashed: reads show them masked.
	g, err := ac.GetCredentialWithResponse(ctx, "priv")
	if err != nil || g.JSON200 == nil || !regexp.MustCompile(`^private-\*{20}[a-z0-9]{4}$`).MatchString(g.JSON200.Key) {
		t.Errorf("get = %v %s", err, g.Body)
	}
	l, err := ac.ListCredentialsWithResponse(ctx, &appsearchclient.ListCredentialsParams{Page: &appsearchclient.PageRequest{Size: ptr(2), Current: ptr(2)}}, appsearchclient.PagedRequest{})
	if err != nil || l.JSON200 == nil {
		t.Fatalf("list = %v %s", err, l.Body)
	}
	if kl, err := l.JSON200.AsKeyList(); err != nil || kl.Meta.Page.TotalResults != 5 || len(kl.Results) != 2 || kl.Results[0].Name != "ro" {
		t.Errorf("list = %v %s", err, l.Body)
	}
	for _, tc := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"POST", "/credentials", `{"name":"priv","type":"search"}`, 200, `{"errors":["Name is already taken"]}`},
		{"POST", "/credentials", `{"name":"x","type":"root"}`, 200, `{"errors":["Type must be one of: search, private, admin"]}`},
		{"POST", "/credentials", `{"type":"search"}`, 200, `{"errors":["Name is required"]}`},
		{"POST", "/credentials", `{"name":"x","type":"private"}`, 200, `{"errors":["Private keys require read and write"]}`},
		{"POST", "/credentials", `{"name":"x","type":"search","access_all_engines":false}`, 200, `{"errors":["Engines are required when access_all_engines is false"]}`},
		{"POST", "/credentials", `{"name":"x","type":"search","engines":["zz"]}`, 200, `{"errors":["Engine does not exist: zz"]}`},
		{"POST", "/credentials", `{"name":"x","type":"search","colour":1}`, 200, `{"errors":["Options contains invalid key: colour"]}`},
		{"PUT", "/credentials/ro", `{"name":"ro","type":"private","read":true,"write":true,"access_all_engines":true}`, 200, ``},
		{"PUT", "/credentials/ro", `{"type":"search"}`, 200, `{"errors":["Type cannot be changed"]}`},
		{"GET", "/credentials/nope", ``, 404, `{"errors":["Could not find credential with name: nope"]}`},
		{"DELETE", "/credentials/wo-b", ``, 200, `{"deleted":true}`},
		{"DELETE", "/credentials/wo-b", ``, 404, `{"errors":["Could not find credential with name: wo-b"]}`},
	} {
		code, _, body := n.req(tc.method, tc.path, admin, "application/json", tc.body)
		if code != tc.code || tc.want != "" && canon(t, body) != canon(t, tc.want) {
			t.Errorf("%s %s %s = %d %s, want %d %s", tc.method, tc.path, tc.body, code, body, tc.code, tc.want)
		}
	}
	// The PUT kept the secret and changed the rights.
	if g, _ := ac.GetCredentialWithResponse(ctx, "ro"); g.JSON200 == nil || !*g.JSON200.Write || !*g.JSON200.AccessAllEngines {
		t.Errorf("after put = %s", g.Body)
	}
}

// TestAppSearchKeyScopes walks each key kind over each access level.
func TestAppSearchKeyScopes(t *testing.T) {
	n := newASNode(t, asOptions{})
	n.su("POST", "/engines", `{"name":"a"}`)
	n.su("POST", "/engines", `{"name":"b"}`)
	keys := map[string]string{
		"admin":  n.key(`{"name":"admin","type":"admin"}`),
		"rw":     n.key(`{"name":"rw","type":"private","read":true,"write":true}`),
		"ro":     n.key(`{"name":"ro","type":"private","read":true,"write":false}`),
		"wo":     n.key(`{"name":"wo","type":"private","read":false,"write":true}`),
		"rw-a":   n.key(`{"name":"rw-a","type":"private","read":true,"write":true,"engines":["a"]}`),
		"search": n.key(`{"name":"search","type":"search"}`),
		"su":     superuserBasic,
	}
	const (
		forbidSearch  = `{"error":"Search keys can only use the search endpoints"}`
		forbidAdmin   = `{"error":"Admin keys can only use the credentials API"}`
		needAdmin     = `{"error":"The credentials API needs an admin key"}`
		noWrite       = `{"error":"This key does not have write access"}`
		noRead        = `{"error":"This key does not have read access"}`
		engineMissing = `{"errors":["Could not find engine."]}`
		scopedCreate  = `{"error":"Keys scoped to engines cannot create engines"}`
	)
	type call struct{ method, path, body string }
	calls := map[string]call{
		"read docs":     {"GET", "/engines/a/documents/list", ""},
		"write docs":    {"POST", "/engines/a/documents", `[{"id":"1","t":"x"}]`},
		"read b":        {"GET", "/engines/b", ""},
		"credentials":   {"GET", "/credentials", ""},
		"create engine": {"POST", "/engines", `{"name":"c"}`},
	}
	for _, tc := range []struct {
		key, call string
		code      int
		want      string
	}{
		{"admin", "read docs", 403, forbidAdmin},
		{"admin", "credentials", 200, ""},
		{"rw", "read docs", 200, ""},
		{"rw", "write docs", 200, ""},
		{"rw", "credentials", 403, needAdmin},
		{"ro", "read docs", 200, ""},
		{"ro", "write docs", 403, noWrite},
		{"wo", "read docs", 403, noRead},
		{"wo", "write docs", 200, ""},
		{"rw-a", "read docs", 200, ""},
		{"rw-a", "read b", 404, engineMissing},
		{"rw-a", "create engine", 403, scopedCreate},
		{"search", "read docs", 403, forbidSearch},
		{"search", "write docs", 403, forbidSearch},
		{"search", "credentials", 403, forbidSearch},
		{"su", "credentials", 200, ""},
		{"su", "read b", 200, ""},
		{"rw", "create engine", 200, ""},
	} {
		cl := calls[tc.call]
		ct := ""
		if cl.body != "" {
			ct = "application/json"
		}
		code, _, body := n.req(cl.method, cl.path, keys[tc.key], ct, cl.body)
		if code != tc.code || tc.want != "" && body != tc.want {
			t.Errorf("%s: %s = %d %s, want %d %s", tc.key, tc.call, code, body, tc.code, tc.want)
		}
	}
	// A scoped key lists only its engines.
	_, _, body := n.req("GET", "/engines", keys["rw-a"], "", "")
	if !strings.Contains(body, `"total_results":1`) || !strings.Contains(body, `"name":"a"`) {
		t.Errorf("scoped list = %s", body)
	}
	// The search key passes authorisation on search endpoints (served by
	// the search side; an unknown route answers the routing error).
	p, err := n.Svc.Authenticate(strings.TrimPrefix(keys["search"], "Bearer "))
	if err != nil || p.Authorize(appsearch.AccessSearch, "a") != nil {
		t.Errorf("search key on search = %v", err)
	}
}

func TestAppSearchAuthErrors(t *testing.T) {
	n := newASNode(t, asOptions{})
	noHook := newASNode(t, asOptions{NoHook: true})
	key := n.key(`{"name":"k","type":"private","read":true,"write":true}`)
	n.su("DELETE", "/credentials/k", "")
	for _, tc := range []struct {
		name, auth string
		node       *asNode
		code       int
		want       string
	}{
		{"missing", "", n, 401, `{"error":"You need to sign in or sign up before continuing."}`},
		{"malformed", "Bearer nonsense", n, 400, `{"error":"invalid authentication token"}`},
		{"unknown", "Bearer private-aaaaaaaaaaaaaaaaaaaaaaaa", n, 400, `{"error":"invalid authentication token"}`},
		{"deleted key", key, n, 400, `{"error":"invalid authentication token"}`},
		{"wrong scheme", "Token abc", n, 400, `{"error":"invalid authentication token"}`},
		{"wrong superuser password", "Basic ZWxhc3RpYzp3cm9uZw==", n, 400, `{"error":"invalid authentication token"}`},
		{"superuser without hook", superuserBasic, noHook, 400, `{"error":"invalid authentication token"}`},
		{"superuser", superuserBasic, n, 200, `{"meta":{"page":{"current":1,"total_pages":0,"total_results":0,"size":25}},"results":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := tc.node.req("GET", "/engines", tc.auth, "", "")
			if code != tc.code || body != tc.want {
				t.Errorf("GET /engines = %d %s, want %d %s", code, body, tc.code, tc.want)
			}
		})
	}
}

func TestAppSearchRateLimits(t *testing.T) {
	n := newASNode(t, asOptions{RateLimits: appsearch.RateLimits{Default: 3, Endpoints: map[string]int{"documents": 2}, Window: time.Hour}})
	key := n.key(`{"name":"k","type":"private","read":true,"write":true}`) // the superuser's credentials budget: 1 of 3
	n.su("POST", "/engines", `{"name":"e"}`)
	for i, want := range []struct {
		code                  int
		limit, remaining, ret string
		body                  string
	}{
		{200, "2", "1", "", ""},
		{200, "2", "0", "", ""},
		{429, "2", "0", "3600", `{"error":"rate limit exceeded"}`},
	} {
		code, h, body := n.req("GET", "/engines/e/documents?ids[]=1", key, "", "")
		if code != want.code || h.Get("X-RateLimit-Limit") != want.limit || h.Get("X-RateLimit-Remaining") != want.remaining || h.Get("Retry-After") != want.ret || want.body != "" && body != want.body {
			t.Errorf("request %d = %d limit=%s remaining=%s retry=%s %s", i, code, h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"), h.Get("Retry-After"), body)
		}
	}
	// Other endpoint classes and other callers have their own budgets.
	if code, h, _ := n.req("GET", "/engines/e/schema", key, "", ""); code != 200 || h.Get("X-RateLimit-Limit") != "3" || h.Get("X-RateLimit-Remaining") != "2" {
		t.Errorf("schema = %d %v", code, h)
	}
	if code, _, _ := n.req("GET", "/engines/e/documents?ids[]=1", superuserBasic, "", ""); code != 200 {
		t.Errorf("superuser = %d", code)
	}
	n.Clock.Advance(59*time.Minute + 30*time.Second)
	if code, h, _ := n.req("GET", "/engines/e/documents?ids[]=1", key, "", ""); code != 429 || h.Get("Retry-After") != "30" {
		t.Errorf("before reset = %d retry=%s", code, h.Get("Retry-After"))
	}
	n.Clock.Advance(30 * time.Second)
	if code, h, _ := n.req("GET", "/engines/e/documents?ids[]=1", key, "", ""); code != 200 || h.Get("X-RateLimit-Remaining") != "1" {
		t.Errorf("after reset = %d remaining=%s", code, h.Get("X-RateLimit-Remaining"))
	}
}
