package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/security"
)

// Scroll contexts belong to the principal whose search opened them: a
// scroll id presented by anyone else reads as missing (Elasticsearch
// hides other users' contexts the same way), and clearing every scroll
// needs a cluster privilege.

// actionClearAllScrolls is the action of DELETE /_search/scroll/_all.
const actionClearAllScrolls = "cluster:admin/indices/scroll/clear_all"

// scrollOwnerTTL bounds how long an owner record outlives its use.
const scrollOwnerTTL = 24 * time.Hour

// scrollOwners maps scroll ids to the principal that opened them.
type scrollOwners struct {
	mu     sync.Mutex
	owners map[string]scrollOwner
}

type scrollOwner struct {
	principal string
	seen      time.Time
}

// principalKey identifies a principal for ownership checks.
func principalKey(a *security.Authentication) string {
	if a.APIKeyID != "" {
		return "api_key/" + a.APIKeyID
	}
	return a.AuthenticationRealm.Name + "/" + a.User.Username
}

func (o *scrollOwners) record(id, principal string, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.owners == nil {
		o.owners = map[string]scrollOwner{}
	}
	for k, v := range o.owners {
		if now.Sub(v.seen) > scrollOwnerTTL {
			delete(o.owners, k)
		}
	}
	o.owners[id] = scrollOwner{principal: principal, seen: now}
}

// foreign reports whether id belongs to another principal.
func (o *scrollOwners) foreign(id, principal string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	v, ok := o.owners[id]
	return ok && v.principal != principal
}

// scrollIDs returns the scroll ids a scroll or clear scroll request names
// (path parameter and body), without validating them.
func scrollIDs(c echo.Context) []string {
	var ids []string
	if v := c.Param("scroll_id"); v != "" {
		ids = append(ids, strings.Split(v, ",")...)
	}
	b, err := readBody(c)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return ids
	}
	var body struct {
		ScrollID json.RawMessage `json:"scroll_id"`
	}
	if json.Unmarshal(b, &body) != nil {
		return ids
	}
	var one string
	var many []string
	switch {
	case json.Unmarshal(body.ScrollID, &one) == nil && one != "":
		ids = append(ids, strings.Split(one, ",")...)
	case json.Unmarshal(body.ScrollID, &many) == nil:
		ids = append(ids, many...)
	}
	return ids
}

// guardScroll checks a scroll or clear scroll request against the owners
// and records the ids the answer carries.
func (z *authorizer) guardScroll(c echo.Context, a *security.Authentication, p *opPrivileges, next echo.HandlerFunc) error {
	me := principalKey(a)
	ids := scrollIDs(c)
	for _, id := range ids {
		if id == "_all" && p.Action == "indices:data/read/scroll/clear" {
			if err := a.Authorize(security.Request{Action: actionClearAllScrolls}); err != nil {
				return err
			}
			continue
		}
		if z.scrolls.foreign(id, me) {
			if p.Action == "indices:data/read/scroll/clear" {
				// As for an unknown id: nothing is freed.
				return writeJSON(c, http.StatusNotFound, orderedJSON{{"succeeded", true}, {"num_freed", 0}})
			}
			return searchcore.ContextMissing(id)
		}
	}
	if p.Action != "indices:data/read/scroll" {
		return next(c)
	}
	return z.recordScroll(c, me, next)
}

// recordScroll runs a search or scroll and records the principal as the
// owner of the _scroll_id it answers with.
func (z *authorizer) recordScroll(c echo.Context, me string, next echo.HandlerFunc) error {
	buf, orig, err := captureResponse(c, next)
	body := buf.body.Bytes()
	if err == nil && buf.status == http.StatusOK {
		var out struct {
			ScrollID string `json:"_scroll_id"`
		}
		if json.Unmarshal(body, &out) == nil && out.ScrollID != "" {
			z.scrolls.record(out.ScrollID, me, time.Now())
		}
	}
	if err != nil && len(body) == 0 {
		return err
	}
	orig.WriteHeader(buf.status)
	_, werr := orig.Write(body)
	if err != nil {
		return err
	}
	return werr
}
