package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/security"
)

// Document- and field-level security for reads. A role's indices grant may
// carry a query (only matching documents are visible) and field_security
// (only granted fields are visible). Searches and counts get the role
// queries added as a filter; search hits and fetched documents have their
// _source reduced to the granted fields; a fetched document the queries do
// not match reads as missing.

// readLimits are the document and field restrictions on one index.
type readLimits struct {
	dls    []json.RawMessage
	fls    []security.FieldSecurity
	hasDLS bool
	hasFLS bool
}

// limitsFor computes the restrictions of every concrete index an
// expression resolves to (nil when nothing is restricted).
func (z *authorizer) limitsFor(a *security.Authentication, expr string) map[string]*readLimits {
	if a.Unrestricted() {
		return nil
	}
	indices, err := z.core.Resolve(expr, searchcore.DefaultResolve)
	if err != nil {
		return nil
	}
	var out map[string]*readLimits
	for _, idx := range indices {
		l := &readLimits{}
		l.dls, l.hasDLS = a.DocumentSecurity(idx.Name())
		l.fls, l.hasFLS = a.FieldSecurity(idx.Name())
		if l.hasDLS || l.hasFLS {
			if out == nil {
				out = map[string]*readLimits{}
			}
			out[idx.Name()] = l
		}
	}
	if out == nil {
		return nil
	}
	// Unrestricted indices of the same request are listed too, so the
	// document filter lets their documents through.
	for _, idx := range indices {
		if out[idx.Name()] == nil {
			out[idx.Name()] = &readLimits{}
		}
	}
	return out
}

// dlsFilter is the query that keeps, per index, the documents its role
// queries match (every document of an unrestricted index).
func dlsFilter(limits map[string]*readLimits) (json.RawMessage, bool) {
	var should []any
	var open []string
	restricted := false
	for _, name := range sortedKeys(limits) {
		l := limits[name]
		if !l.hasDLS {
			open = append(open, name)
			continue
		}
		restricted = true
		qs := make([]any, len(l.dls))
		for i, q := range l.dls {
			qs[i] = q
		}
		should = append(should, map[string]any{"bool": map[string]any{
			"filter":               []any{map[string]any{"term": map[string]any{"_index": name}}},
			"should":               qs,
			"minimum_should_match": 1,
		}})
	}
	if !restricted {
		return nil, false
	}
	if len(open) > 0 {
		should = append(should, map[string]any{"terms": map[string]any{"_index": open}})
	}
	b, _ := json.Marshal(map[string]any{"bool": map[string]any{"should": should, "minimum_should_match": 1}})
	return b, true
}

// restrictQuery wraps a search body's query with the document filter.
func restrictQuery(body []byte, filter json.RawMessage) ([]byte, error) {
	m := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &m); err != nil {
			// Malformed bodies fail in the search parser with its error.
			return body, nil
		}
	}
	q := m["query"]
	if len(q) == 0 {
		q = json.RawMessage(`{"match_all":{}}`)
	}
	wrapped, err := json.Marshal(map[string]any{"bool": map[string]any{"must": []any{q}, "filter": []any{filter}}})
	if err != nil {
		return nil, err
	}
	m["query"] = wrapped
	return json.Marshal(m)
}

func setBody(r *http.Request, b []byte) {
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.ContentLength = int64(len(b))
	r.Header.Set("Content-Length", strconv.Itoa(len(b)))
	r.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
}

// applyReadLimits enforces document- and field-level security around a
// read operation; next runs the handler.
func (z *authorizer) applyReadLimits(c echo.Context, a *security.Authentication, p *opPrivileges, next echo.HandlerFunc) error {
	if a.Unrestricted() || !strings.HasPrefix(p.Action, "indices:data/read/") {
		return next(c)
	}
	r := c.Request()
	expr, hasParam := pathIndex(c)
	if !hasParam && p.Indices == "search" {
		if pit, ok, err := bodyPIT(c); err == nil && ok {
			names, _ := z.core.PointInTimeIndices(pit)
			expr = strings.Join(names, ",")
		} else {
			expr = allIndices(c, expr)
		}
	}
	switch {
	case p.Action == "indices:data/read/search/template" && p.Indices != "msearch":
		limits := z.limitsFor(a, expr)
		if limits == nil {
			return next(c)
		}
		if err := z.restrictTemplate(c, limits); err != nil {
			return err
		}
		return filterResponse(c, next, limits, "")
	case strings.HasPrefix(c.Path(), "/_cat/"):
		// These APIs take no query this layer can restrict.
		if z.limitsFor(a, expr) != nil {
			return searchcore.IllegalArgument("document and field level security apply to the indices of this request: use the _search or _count API")
		}
		return next(c)
	case p.Indices == "msearch":
		return z.msearchLimits(c, a, next, strings.Contains(p.Action, "template"))
	case p.Action == "indices:data/read/search":
		limits := z.limitsFor(a, expr)
		if limits == nil {
			return next(c)
		}
		if filter, ok := dlsFilter(limits); ok {
			body, err := readBody(c)
			if err != nil {
				return err
			}
			nb, err := restrictQuery(body, filter)
			if err != nil {
				return err
			}
			setBody(r, nb)
		}
		return filterResponse(c, next, limits, "")
	case p.Action == "indices:data/read/get":
		limits := z.limitsFor(a, expr)
		if limits == nil {
			return next(c)
		}
		if filter, ok := dlsFilter(limits); ok && !z.documentVisible(c, expr, filter) {
			return documentHidden(c, expr)
		}
		single := ""
		if strings.Contains(c.Path(), "/_source/") {
			single = expr
		}
		return filterResponse(c, next, limits, single)
	}
	return next(c)
}

// restrictTemplate applies a document filter to a search template (see
// restrictedTemplate).
func (z *authorizer) restrictTemplate(c echo.Context, limits map[string]*readLimits) error {
	filter, ok := dlsFilter(limits)
	if !ok {
		return nil
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	nb, err := z.restrictedTemplate(c.Request().Context(), body, filter)
	if err != nil {
		return err
	}
	setBody(c.Request(), nb)
	return nil
}

// restrictedTemplate renders a search template request here and returns
// it as a literal template of the restricted search (params already
// applied). A rendered search that would read as mustache again ("{{") is
// refused rather than changed.
func (z *authorizer) restrictedTemplate(ctx context.Context, body []byte, filter json.RawMessage) ([]byte, error) {
	treq, err := searchcore.ParseTemplateRequest(body)
	if err != nil {
		return nil, err
	}
	if err := treq.Validate(); err != nil {
		return nil, err
	}
	rendered, err := z.core.RenderTemplate(ctx, treq)
	if err != nil {
		return nil, err
	}
	nb, err := restrictQuery([]byte(rendered), filter)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(nb, []byte("{{")) {
		return nil, searchcore.IllegalArgument("document level security cannot be applied to this search template: its rendered search contains mustache delimiters; use the _search API")
	}
	out := map[string]any{"source": json.RawMessage(nb)}
	if treq.Explain {
		out["explain"] = true
	}
	if treq.Profile {
		out["profile"] = true
	}
	return json.Marshal(out)
}

// documentVisible runs the document filter on the requested document.
func (z *authorizer) documentVisible(c echo.Context, index string, filter json.RawMessage) bool {
	idx, err := z.core.ResolveSingle(index)
	if err != nil {
		return true // the handler reports the missing index
	}
	q, _ := json.Marshal(map[string]any{"bool": map[string]any{
		"filter": []any{map[string]any{"ids": map[string]any{"values": []string{c.Param("id")}}}, filter},
	}})
	res, err := z.core.Count(c.Request().Context(), []*searchcore.Index{idx}, q, 0)
	return err == nil && res.Count > 0
}

// documentHidden answers a fetch of a document the role queries exclude
// exactly like a missing document.
func documentHidden(c echo.Context, index string) error {
	id := c.Param("id")
	switch {
	case c.Request().Method == http.MethodHead:
		return c.NoContent(http.StatusNotFound)
	case strings.Contains(c.Path(), "/_source/"):
		return searchcore.Errorf(searchcore.NotFound, "resource_not_found_exception", "Document not found [%s]/[_doc]/[%s]", index, id)
	}
	return writeJSON(c, http.StatusNotFound, orderedJSON{{"_index", index}, {"_type", "_doc"}, {"_id", id}, {"found", false}})
}

// msearchLimits rewrites each search of a multi search with its indices'
// document filter and filters the hits' fields.
func (z *authorizer) msearchLimits(c echo.Context, a *security.Authentication, next echo.HandlerFunc, template bool) error {
	def, _ := pathIndex(c)
	lines, err := ndjsonLines(c)
	if err != nil {
		return err
	}
	all := map[string]*readLimits{}
	changed := false
	for i := 0; i+1 < len(lines); i += 2 {
		expr, ok := msearchHeaderIndex(lines[i], def)
		if !ok {
			continue
		}
		limits := z.limitsFor(a, expr)
		for k, v := range limits {
			all[k] = v
		}
		if filter, ok := dlsFilter(limits); ok {
			restrict := restrictQuery
			if template {
				restrict = func(b []byte, f json.RawMessage) ([]byte, error) {
					return z.restrictedTemplate(c.Request().Context(), b, f)
				}
			}
			nb, err := restrict(lines[i+1], filter)
			if err != nil {
				return err
			}
			lines[i+1] = nb
			changed = true
		}
	}
	if changed {
		var buf bytes.Buffer
		for _, l := range lines {
			buf.Write(l)
			buf.WriteByte('\n')
		}
		setBody(c.Request(), buf.Bytes())
		c.Request().Header.Set(echo.HeaderContentType, "application/x-ndjson")
	}
	if len(all) == 0 {
		return next(c)
	}
	return filterResponse(c, next, all, "")
}

// filterResponse runs the handler and removes the fields field-level
// security hides from every _source in the answer (search hits, multi
// search responses, fetched documents); single names the index of a bare
// _source answer.
func filterResponse(c echo.Context, next echo.HandlerFunc, limits map[string]*readLimits, single string) error {
	restricted := false
	for _, l := range limits {
		restricted = restricted || l.hasFLS
	}
	if !restricted {
		return next(c)
	}
	// Hidden fields are unmapped for queries, sorts and aggregations too.
	ff := searchcore.FieldFilter(func(index string) func(string) bool {
		l := limits[index]
		if l == nil || !l.hasFLS {
			return nil
		}
		return func(path string) bool { return security.FieldAllowed(l.fls, path) }
	})
	c.SetRequest(c.Request().WithContext(searchcore.WithFieldFilter(c.Request().Context(), ff)))
	buf, orig, err := captureResponse(c, next)
	if err != nil {
		return err
	}
	body := buf.body.Bytes()
	if buf.status == http.StatusOK && len(body) > 0 {
		var doc any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if dec.Decode(&doc) == nil {
			if single != "" {
				if l := limits[single]; l != nil && l.hasFLS {
					doc = filterFields(doc, l.fls, "")
				}
			} else {
				filterSources(doc, limits)
			}
			var out bytes.Buffer
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(false)
			if enc.Encode(doc) == nil {
				body = out.Bytes()
			}
		}
	}
	orig.Header().Set(echo.HeaderContentLength, strconv.Itoa(len(body)))
	orig.WriteHeader(buf.status)
	_, werr := orig.Write(body)
	return werr
}

// captureResponse runs next with the response buffered; the caller
// writes the (possibly rewritten) answer to orig.
func captureResponse(c echo.Context, next echo.HandlerFunc) (*captureWriter, http.ResponseWriter, error) {
	res := c.Response()
	orig := res.Writer
	buf := &captureWriter{header: orig.Header(), status: http.StatusOK}
	res.Writer = buf
	err := next(c)
	res.Writer = orig
	return buf, orig, err
}

// filterSources walks an answer and filters every object that has both
// _index and _source.
func filterSources(v any, limits map[string]*readLimits) {
	switch t := v.(type) {
	case map[string]any:
		if idx, ok := t["_index"].(string); ok {
			if l := limits[idx]; l != nil && l.hasFLS {
				if src, ok := t["_source"]; ok {
					t["_source"] = filterFields(src, l.fls, "")
				}
				if f, ok := t["fields"]; ok {
					t["fields"] = filterFlat(f, l.fls)
				}
			}
		}
		for _, sub := range t {
			filterSources(sub, limits)
		}
	case []any:
		for _, sub := range t {
			filterSources(sub, limits)
		}
	}
}

// filterFields keeps the members of a source whose dotted paths are
// granted (objects are kept when something below them is).
func filterFields(v any, fls []security.FieldSecurity, prefix string) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, sub := range t {
			path := k
			if prefix != "" {
				path = prefix + "." + k
			}
			if security.FieldAllowed(fls, path) {
				out[k] = sub
				continue
			}
			if obj, ok := sub.(map[string]any); ok && security.FieldPrefixAllowed(fls, path) {
				if f := filterFields(obj, fls, path).(map[string]any); len(f) > 0 {
					out[k] = f
				}
			}
			if arr, ok := sub.([]any); ok && security.FieldPrefixAllowed(fls, path) {
				var kept []any
				for _, el := range arr {
					if obj, ok := el.(map[string]any); ok {
						if f := filterFields(obj, fls, path).(map[string]any); len(f) > 0 {
							kept = append(kept, f)
						}
					}
				}
				if len(kept) > 0 {
					out[k] = kept
				}
			}
		}
		return out
	}
	return v
}

// filterFlat filters a hit's flat "fields" map by field name.
func filterFlat(v any, fls []security.FieldSecurity) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, sub := range m {
		if security.FieldAllowed(fls, k) {
			out[k] = sub
		}
	}
	return out
}
