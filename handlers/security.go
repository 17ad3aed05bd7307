package handlers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/security"
)

// privilegesExtension is the vendor extension every operation of the
// cluster spec carries: the action it runs and the privileges that grant it.
const privilegesExtension = "x-quarry-privileges"

// opPrivileges is one operation's x-quarry-privileges.
type opPrivileges struct {
	// Action is the Elasticsearch action name checked against the roles.
	Action string `json:"action"`
	// Cluster and Index name the (narrowest) privileges that grant Action;
	// at start-up each must grant it.
	Cluster []string `json:"cluster"`
	Index   []string `json:"index"`
	// Indices says where the index names come from: the path (default),
	// write (the path, plus auto-create when the index is missing), search
	// (the path or the body's pit.id), bulk and msearch (the NDJSON body),
	// aliases (the _aliases actions).
	Indices string `json:"indices"`
	// Authenticated marks operations open to any authenticated principal.
	Authenticated bool `json:"authenticated"`
	// Self names a path parameter: the operation is allowed without the
	// privilege when it equals the authenticated user name.
	Self string `json:"self"`
}

// authzContextKey holds the request's *security.Authentication.
const authzContextKey = "quarry.authentication"

// authentication returns the request's principal (nil when security is off).
func authentication(c echo.Context) *security.Authentication {
	a, _ := c.Get(authzContextKey).(*security.Authentication)
	return a
}

// authorizer is the one middleware that authenticates every request of the
// cluster API and enforces the privileges the spec declares.
type authorizer struct {
	sec  *security.Service
	core *searchcore.Engine
	ops  map[string]*opPrivileges // METHOD + " " + echo path
	srv  *Server
	// scrolls records who opened each scroll context.
	scrolls scrollOwners
}

// loadPrivileges reads x-quarry-privileges from every operation and checks
// that each declared privilege grants the declared action. A missing or
// inconsistent declaration is an error (the server does not start).
func loadPrivileges(doc *openapi3.T) (map[string]*opPrivileges, error) {
	return loadDeclarations(doc, "cluster", "", (*opPrivileges).check)
}

// loadDeclarations decodes the x-quarry-privileges of every operation of a
// spec (unknown members are errors), checks each with check (a non-empty
// message is a problem) and returns them by "METHOD echo-path", the path
// prefixed with base. Every problem is reported in one error.
func loadDeclarations[T any](doc *openapi3.T, spec, base string, check func(*T) string) (map[string]*T, error) {
	ops := map[string]*T{}
	var problems []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := fmt.Sprintf("%s %s (%s)", method, path, op.OperationID)
			raw, ok := op.Extensions[privilegesExtension]
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: no %s", where, privilegesExtension))
				continue
			}
			b, err := json.Marshal(raw)
			if err != nil {
				return nil, err
			}
			p := new(T)
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			if err := dec.Decode(p); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", where, err))
				continue
			}
			if msg := check(p); msg != "" {
				problems = append(problems, fmt.Sprintf("%s: %s", where, msg))
				continue
			}
			ops[method+" "+base+echoPath(path)] = p
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, fmt.Errorf("%s spec privileges: %s", spec, strings.Join(problems, "; "))
	}
	return ops, nil
}

// check validates one declaration.
func (p *opPrivileges) check() string {
	kinds := 0
	if p.Authenticated {
		kinds++
	}
	if len(p.Cluster) > 0 {
		kinds++
	}
	if len(p.Index) > 0 {
		kinds++
	}
	switch {
	case p.Action == "":
		return "no action"
	case kinds != 1:
		return "exactly one of authenticated, cluster, index must be set"
	}
	switch p.Indices {
	case "", "write", "search", "bulk", "msearch", "aliases":
	default:
		return fmt.Sprintf("unknown indices source [%s]", p.Indices)
	}
	for _, c := range p.Cluster {
		if !security.PrivilegeGrants("cluster", c, p.Action) {
			return fmt.Sprintf("cluster privilege [%s] does not grant [%s]", c, p.Action)
		}
	}
	for _, i := range p.Index {
		if !security.PrivilegeGrants("index", i, p.Action) {
			return fmt.Sprintf("index privilege [%s] does not grant [%s]", i, p.Action)
		}
	}
	return ""
}

// sourceAddress is the client's address for the brute-force guard (the
// peer address: forwarded headers are not trusted).
func sourceAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func (z *authorizer) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if strings.HasPrefix(r.URL.Path, "/api/as/") {
			// App Search authenticates with its own keys.
			return next(c)
		}
		a, err := z.sec.Authenticate(r.Context(), security.Credentials{
			Header: r.Header.Get("Authorization"), Source: sourceAddress(r), URI: r.RequestURI,
		})
		if err != nil {
			return err
		}
		if a.ServiceAccount != "" && z.srv.opts.Production && !z.srv.opts.HTTPTLS {
			return serviceAccountsNeedTLS()
		}
		c.Set(authzContextKey, a)
		for _, w := range a.Warnings {
			z.srv.deprecationWarning(c, w)
		}
		p, ok := routeEntry(z.ops, c)
		if !ok {
			// Unknown route: the routing error follows.
			return next(c)
		}
		if err := z.authorize(c, a, p); err != nil {
			return err
		}
		if strings.HasPrefix(p.Action, "indices:data/read/scroll") {
			return z.guardScroll(c, a, p, next)
		}
		if c.QueryParam("scroll") != "" && p.Action == "indices:data/read/search" {
			return z.applyReadLimits(c, a, p, func(c echo.Context) error {
				return z.recordScroll(c, principalKey(a), next)
			})
		}
		return z.applyReadLimits(c, a, p, next)
	}
}

func (z *authorizer) authorize(c echo.Context, a *security.Authentication, p *opPrivileges) error {
	switch {
	case p.Authenticated:
		return nil
	case p.Self != "" && c.Param(p.Self) == a.User.Username && a.APIKeyID == "" && a.ServiceAccount == "":
		return nil
	case len(p.Cluster) > 0:
		return a.Authorize(security.Request{Action: p.Action})
	}
	switch p.Indices {
	case "bulk":
		// Each item is authorized by the bulk handler (authorizeBulkItems):
		// only the items the principal may not run fail.
		return nil
	case "msearch":
		return z.authorizeMsearch(c, a, p)
	case "aliases":
		return z.authorizeAliases(c, a, p)
	}
	expr, hasParam := pathIndex(c)
	if p.Indices == "search" && !hasParam {
		if pit, ok, err := bodyPIT(c); err != nil {
			return err
		} else if ok {
			if names, live := z.core.PointInTimeIndices(pit); live {
				return a.Authorize(security.Request{Action: p.Action, Indices: names})
			}
			// An unknown id fails in the handler with the right error.
			return nil
		}
	}
	var names []string
	if hasParam {
		var rewritten string
		names, rewritten = z.expand(a, p.Action, expr)
		if rewritten != expr {
			setPathIndex(c, rewritten)
		}
	} else if !a.Unrestricted() && p.Indices == "search" {
		// No index in the path means every index: like _all, a search
		// runs over the indices the principal may read (none: no hits).
		if _, rewritten := z.expand(a, p.Action, "_all"); rewritten != noIndices {
			c.Set(authorizedIndicesKey, rewritten)
			return nil
		}
		// Nothing authorized: every visible index is checked, which
		// fails with the ES unauthorized error unless there is none.
		names = z.visible()
	} else if !a.Unrestricted() {
		// Other operations on every index cannot be narrowed, so every
		// visible index must be authorized.
		names = z.visible()
	}
	if len(names) == 0 {
		return nil
	}
	if err := a.Authorize(security.Request{Action: p.Action, Indices: names}); err != nil {
		return err
	}
	if p.Indices == "write" {
		return authorizeAutoCreate(z.core, a, names)
	}
	return nil
}

// authorizeAutoCreate requires indices:admin/auto_create for a write that
// would create its index (from 7.8, indices:admin/create no longer does).
func authorizeAutoCreate(core *searchcore.Engine, a *security.Authentication, names []string) error {
	var missing []string
	for _, n := range names {
		if _, ok := core.Index(n); !ok && !core.IsAlias(n) {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return a.Authorize(security.Request{Action: security.ActionAutoCreate, Indices: missing})
}

// pathIndex returns the {index} path parameter (false when the route has
// none).
func pathIndex(c echo.Context) (string, bool) {
	for _, n := range c.ParamNames() {
		if n == "index" {
			return c.Param("index"), true
		}
	}
	return "", false
}

func setPathIndex(c echo.Context, v string) {
	names := c.ParamNames()
	vals := append([]string(nil), c.ParamValues()...)
	for i, n := range names {
		if n == "index" && i < len(vals) {
			vals[i] = v
		}
	}
	c.SetParamValues(vals...)
}

// authorizedIndicesKey is the echo context key of the index expression a
// search without an index in its path is narrowed to (see allIndices).
const authorizedIndicesKey = "security.authorized_indices"

// allIndices is the index expression of a search naming no index: every
// index (def), or the authorized ones when security narrowed it.
func allIndices(c echo.Context, def string) string {
	if v, ok := c.Get(authorizedIndicesKey).(string); ok {
		return v
	}
	return def
}

// noIndices is an index expression that resolves to nothing: what a
// wildcard becomes when it matches no authorized index.
const noIndices = "*,-*"

// expand resolves an index expression for authorization. Concrete names
// are kept (and must be authorized); wildcards and _all expand only to the
// indices and aliases the principal may run action on. It returns the
// names to check and the rewritten expression.
func (z *authorizer) expand(a *security.Authentication, action, expr string) ([]string, string) {
	parts := splitIndexExpr(expr)
	if len(parts) == 0 {
		parts = []string{"_all"}
	}
	hasWildcard := false
	for _, p := range parts {
		if p == "_all" || strings.ContainsAny(p, "*?") {
			hasWildcard = true
		}
	}
	if !hasWildcard {
		return parts, expr
	}
	if a.Unrestricted() {
		// Everything is authorized: keep the expression as it was.
		return nil, expr
	}
	indices, aliases := z.core.Names()
	candidates := append(append([]string(nil), indices...), aliases...)
	set := map[string]bool{}
	var concrete []string
	for _, p := range parts {
		switch {
		case strings.HasPrefix(p, "-") && len(set) > 0:
			for n := range set {
				if globMatchName(p[1:], n) {
					delete(set, n)
				}
			}
		case p == "_all" || strings.ContainsAny(p, "*?"):
			pat := p
			if pat == "_all" {
				pat = "*"
			}
			for _, n := range candidates {
				if strings.HasPrefix(n, ".") && !strings.HasPrefix(pat, ".") {
					continue
				}
				if globMatchName(pat, n) && a.IndexPermits(action, n) {
					set[n] = true
				}
			}
		default:
			concrete = append(concrete, p)
		}
	}
	expanded := make([]string, 0, len(set))
	for n := range set {
		expanded = append(expanded, n)
	}
	sort.Strings(expanded)
	all := append(concrete, expanded...)
	if len(all) == 0 {
		return nil, noIndices
	}
	return concrete, strings.Join(all, ",")
}

// matching returns every index and alias an expression names, wildcards
// expanded without filtering (for bodies that cannot be rewritten).
func (z *authorizer) matching(expr string) []string {
	parts := splitIndexExpr(expr)
	if len(parts) == 0 || (len(parts) == 1 && parts[0] == "_all") {
		return z.visible()
	}
	indices, aliases := z.core.Names()
	candidates := append(append([]string(nil), indices...), aliases...)
	var out []string
	for _, p := range parts {
		switch {
		case strings.HasPrefix(p, "-"):
		case strings.ContainsAny(p, "*?"):
			for _, n := range candidates {
				if (!strings.HasPrefix(n, ".") || strings.HasPrefix(p, ".")) && globMatchName(p, n) {
					out = append(out, n)
				}
			}
		default:
			out = append(out, p)
		}
	}
	return out
}

func splitIndexExpr(expr string) []string {
	var out []string
	for _, p := range strings.Split(expr, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// globMatchName matches an index name against a * and ? pattern.
func globMatchName(pattern, name string) bool {
	return security.GlobMatch(pattern, name)
}

// bodyPIT reads pit.id from a JSON search body (the body is kept).
func bodyPIT(c echo.Context) (string, bool, error) {
	b, err := readBody(c)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return "", false, err
	}
	var body struct {
		PIT *struct {
			ID string `json:"id"`
		} `json:"pit"`
	}
	if json.Unmarshal(b, &body) != nil || body.PIT == nil || body.PIT.ID == "" {
		return "", false, nil
	}
	return body.PIT.ID, true, nil
}

// ndjsonLines returns the non-empty lines of the request body (kept).
func ndjsonLines(c echo.Context) ([][]byte, error) {
	b, err := readBody(c)
	if err != nil {
		return nil, err
	}
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), len(b)+1)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	return lines, nil
}

// bulkItemActions maps a bulk operation to its action name.
var bulkItemActions = map[string]string{
	"index":  "indices:data/write/index",
	"create": "indices:data/write/index:op_type/create",
	"update": "indices:data/write/update",
	"delete": "indices:data/write/delete",
}

// authorizeBulkItems fails, item by item, the bulk operations the
// principal may not run (403 security_exception in the item, the other
// items run), like Elasticsearch. Called by the bulk handler after parsing.
func (s *Server) authorizeBulkItems(c echo.Context, items []searchcore.BulkItem) {
	a := authentication(c)
	if a == nil || a.Unrestricted() {
		return
	}
	for i := range items {
		it := &items[i]
		if it.PreErr != nil || it.Req == nil {
			continue
		}
		action, ok := bulkItemActions[string(it.Req.Op)]
		if !ok {
			continue
		}
		req := security.Request{Action: action, Indices: []string{it.Req.Index}}
		if err := a.Authorize(req); err != nil {
			it.PreErr = err
			continue
		}
		if it.Req.Op != searchcore.OpDelete {
			it.PreErr = authorizeAutoCreate(s.core, a, req.Indices)
		}
	}
}

// authorizeMsearch checks every search of a multi search on its indices.
func (z *authorizer) authorizeMsearch(c echo.Context, a *security.Authentication, p *opPrivileges) error {
	def, _ := pathIndex(c)
	lines, err := ndjsonLines(c)
	if err != nil {
		return err
	}
	var names []string
	for i := 0; i < len(lines); i += 2 {
		expr, ok := msearchHeaderIndex(lines[i], def)
		if !ok {
			return nil
		}
		// The body is not rewritten: every index a search would read must
		// be authorized.
		names = append(names, z.matching(expr)...)
	}
	if len(names) == 0 {
		return nil
	}
	return a.Authorize(security.Request{Action: p.Action, Indices: dedupe(names)})
}

// msearchHeaderIndex returns the index expression of a multi search
// header line (def when it names none); false for a malformed header, which
// the multi search parser reports.
func msearchHeaderIndex(line []byte, def string) (string, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return def, true
	}
	var head struct {
		Index json.RawMessage `json:"index"`
	}
	if json.Unmarshal(line, &head) != nil {
		return "", false
	}
	var one string
	var many []string
	switch {
	case json.Unmarshal(head.Index, &one) == nil && one != "":
		return one, true
	case json.Unmarshal(head.Index, &many) == nil && len(many) > 0:
		return strings.Join(many, ","), true
	}
	return def, true
}

// visible returns the indices a search over "everything" reads.
func (z *authorizer) visible() []string {
	indices, _ := z.core.Names()
	var out []string
	for _, n := range indices {
		if !strings.HasPrefix(n, ".") {
			out = append(out, n)
		}
	}
	return out
}

// authorizeAliases checks the _aliases actions: manage on every index and
// alias they name.
func (z *authorizer) authorizeAliases(c echo.Context, a *security.Authentication, p *opPrivileges) error {
	b, err := readBody(c)
	if err != nil {
		return err
	}
	var body struct {
		Actions []map[string]struct {
			Index   string   `json:"index"`
			Indices []string `json:"indices"`
			Alias   string   `json:"alias"`
			Aliases []string `json:"aliases"`
		} `json:"actions"`
	}
	if json.Unmarshal(b, &body) != nil {
		return nil
	}
	var names []string
	for _, act := range body.Actions {
		for _, x := range act {
			for _, n := range append(append([]string{x.Index, x.Alias}, x.Indices...), x.Aliases...) {
				if n != "" {
					names = append(names, n)
				}
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	return a.Authorize(security.Request{Action: p.Action, Indices: dedupe(names)})
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
