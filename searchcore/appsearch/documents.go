package appsearch

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/eserr"
	"github.com/quarry-search/quarry/searchcore/query"
)

// DocResult is the outcome of one document of an index or patch request.
type DocResult struct {
	// ID is the document id; nil when the document had no usable id.
	ID     *string  `json:"id"`
	Errors []string `json:"errors"`
}

// Deleted is the outcome of one id of a delete request.
type Deleted struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// NewDocumentID returns a generated id: "doc-" and 24 hex digits.
func NewDocumentID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "doc-" + hex.EncodeToString(b[:])
}

// writableEngine locks a default engine for writing.
func (s *Service) writableEngine(name string) (*Engine, func(), error) {
	e, unlock, err := s.lockEngine(name)
	if err != nil {
		return nil, nil, err
	}
	if e.Type == EngineMeta {
		unlock()
		return nil, nil, Errors(eserr.Invalid, "Documents cannot be written to meta engines")
	}
	return e, unlock, nil
}

// beginBatch checks the per-request document count and locks a default
// engine for writing.
func (s *Service) beginBatch(engine string, docs []json.RawMessage) (*Engine, func(), error) {
	if len(docs) == 0 {
		return nil, nil, Errors(eserr.Invalid, MsgEmptyJSON)
	}
	if len(docs) > s.limits.DocumentsPerRequest {
		return nil, nil, Errorf(eserr.Invalid, "Too many documents in request (maximum is %d)", s.limits.DocumentsPerRequest)
	}
	return s.writableEngine(engine)
}

// parseForIndex turns one input document into its App Search form; the
// returned message list is the per-document error.
func (s *Service) parseForIndex(raw json.RawMessage) (*appDoc, *string, []string) {
	fields, ok := decodeObject(raw)
	if !ok {
		return nil, nil, []string{"Document must be a JSON object"}
	}
	d := &appDoc{}
	var idp *string
	var errs []string
	hasID := false
	for _, f := range fields {
		if f.name == "id" {
			hasID = true
			id, ok := idFromValue(f.value)
			switch {
			case !ok:
				errs = append(errs, "Invalid field value: id must be a string or a number")
			case id == "":
				errs = append(errs, "Invalid field value: id must not be empty")
			case len(id) > maxIDLength:
				errs = append(errs, fmt.Sprintf("Invalid field value: id must be at most %d characters", maxIDLength))
			default:
				d.id = id
				idp = &d.id
			}
			continue
		}
		if msg := ValidateFieldName(f.name); msg != "" {
			errs = append(errs, msg)
			continue
		}
		errs = setField(d, f, errs)
	}
	if len(raw) > s.limits.DocumentBytes {
		// An oversize document is refused whole; its given id is echoed.
		return nil, idp, []string{fmt.Sprintf("Document exceeds maximum size of %d bytes", s.limits.DocumentBytes)}
	}
	if !hasID && len(errs) == 0 {
		d.id = NewDocumentID()
		idp = &d.id
	}
	if errs == nil {
		errs = []string{}
	}
	return d, idp, errs
}

// setField stores a field in its stored form, or appends why it cannot.
func setField(d *appDoc, f field, errs []string) []string {
	v, msg := stringifyValue(f.name, f.value)
	if msg != "" {
		return append(errs, msg)
	}
	d.set(f.name, v)
	return errs
}

// coreSource renders the core _source of a document for a schema.
func coreSource(d *appDoc, sc Schema, rev Revision) []byte {
	var b bytes.Buffer
	b.WriteString(`{"id":`)
	b.Write(jsonString(d.id))
	for _, f := range d.fields {
		if v, ok := TypedValue(sc.Type(f.name), rev, f.value); ok {
			b.WriteByte(',')
			writeMember(&b, f.name, v)
		}
	}
	b.WriteByte(',')
	writeMember(&b, SourceKey, d.marshal())
	b.WriteByte('}')
	return b.Bytes()
}

// IndexDocuments creates or replaces documents (at most
// Limits.DocumentsPerRequest). New fields are added to the schema as text.
// Per-document problems are reported in the results, in input order.
func (s *Service) IndexDocuments(ctx context.Context, engine string, docs []json.RawMessage) ([]DocResult, error) {
	e, unlock, err := s.beginBatch(engine, docs)
	if err != nil {
		return nil, err
	}
	defer unlock()
	results := make([]DocResult, len(docs))
	parsed := make([]*appDoc, len(docs))
	newFields := Schema{}
	for i, raw := range docs {
		d, id, errs := s.parseForIndex(raw)
		results[i] = DocResult{ID: id, Errors: errs}
		if len(errs) > 0 {
			continue
		}
		var adds []string
		for _, f := range d.fields {
			if _, ok := e.Schema[f.name]; !ok {
				if _, ok := newFields[f.name]; !ok {
					adds = append(adds, f.name)
				}
			}
		}
		if len(e.Schema)+len(newFields)+len(adds) > s.limits.SchemaFields {
			results[i].Errors = []string{fmt.Sprintf("Adding fields would exceed the limit of %d fields per engine", s.limits.SchemaFields)}
			continue
		}
		for _, f := range adds {
			newFields[f] = Text
		}
		parsed[i] = d
	}
	if len(newFields) > 0 {
		if e, err = s.addFields(ctx, e, newFields); err != nil {
			return nil, err
		}
	}
	if err := s.write(ctx, e, parsed, results); err != nil {
		return nil, err
	}
	return results, nil
}

// addFields adds fields to the schema and to the index mapping.
func (s *Service) addFields(ctx context.Context, e *Engine, add Schema) (*Engine, error) {
	idx, err := s.CoreIndex(e)
	if err != nil {
		return nil, err
	}
	props := map[string]any{}
	for f, t := range add {
		props[f] = FieldMapping(t, e.Revision, e.LanguageName())
	}
	body, _ := json.Marshal(map[string]any{"properties": props})
	if err := s.core.PutMapping(ctx, []*searchcore.Index{idx}, body); err != nil {
		return nil, fmt.Errorf("extend mapping of engine [%s]: %w", e.Name, err)
	}
	cp := *e
	cp.Schema = e.Schema.Clone()
	for f, t := range add {
		cp.Schema[f] = t
	}
	if err := s.publish(ctx, &cp); err != nil {
		return nil, err
	}
	return &cp, nil
}

// write indexes the parsed documents (nil entries are skipped) and records
// core failures in results.
func (s *Service) write(ctx context.Context, e *Engine, docs []*appDoc, results []DocResult) error {
	var reqs []*searchcore.DocRequest
	var pos []int
	for i, d := range docs {
		if d == nil {
			continue
		}
		reqs = append(reqs, &searchcore.DocRequest{Op: searchcore.OpIndex, Index: e.Index, ID: d.id, Source: coreSource(d, e.Schema, e.Revision), LongID: true})
		pos = append(pos, i)
	}
	if len(reqs) == 0 {
		return nil
	}
	for j, r := range s.core.ExecDocs(ctx, reqs, searchcore.RefreshTrue) {
		if r.Err != nil {
			if searchcore.StatusOf(r.Err) >= 500 {
				return r.Err
			}
			results[pos[j]].Errors = append(results[pos[j]].Errors, coreMessage(r.Err))
		}
	}
	return nil
}

func coreMessage(err error) string {
	if e, ok := eserr.AsError(err); ok {
		return e.Reason
	}
	return err.Error()
}

// storedDoc reads the App Search view of one document (nil when missing).
func (s *Service) storedDoc(ctx context.Context, e *Engine, id string) (*appDoc, error) {
	_, rec, err := s.core.Get(ctx, e.Index, id, searchcore.GetOptions{Realtime: true})
	if err != nil || rec == nil {
		return nil, err
	}
	return decodeStored(rec.Source)
}

// decodeStored reads the "_as" member of a core _source.
func decodeStored(src []byte) (*appDoc, error) {
	var top struct {
		AS json.RawMessage `json:"_as"`
	}
	if err := json.Unmarshal(src, &top); err != nil {
		return nil, err
	}
	fields, ok := decodeObject(top.AS)
	if !ok {
		return nil, fmt.Errorf("document without an App Search view")
	}
	d := &appDoc{}
	for _, f := range fields {
		if f.name == "id" {
			d.id, _ = idFromValue(f.value)
			continue
		}
		d.fields = append(d.fields, f)
	}
	return d, nil
}

// StoredDocument returns the documents-API form of a core _source (for
// search results that need the stored strings).
func StoredDocument(src []byte) (json.RawMessage, error) {
	d, err := decodeStored(src)
	if err != nil {
		return nil, err
	}
	return d.marshal(), nil
}

// PatchDocuments updates existing fields of existing documents.
func (s *Service) PatchDocuments(ctx context.Context, engine string, docs []json.RawMessage) ([]DocResult, error) {
	e, unlock, err := s.beginBatch(engine, docs)
	if err != nil {
		return nil, err
	}
	defer unlock()
	results := make([]DocResult, len(docs))
	parsed := make([]*appDoc, len(docs))
	for i, raw := range docs {
		fields, ok := decodeObject(raw)
		if !ok {
			results[i] = DocResult{Errors: []string{"Document must be a JSON object"}}
			continue
		}
		var id string
		found := false
		for _, f := range fields {
			if f.name == "id" {
				id, found = idFromValue(f.value)
			}
		}
		if !found || id == "" {
			empty := ""
			results[i] = DocResult{ID: &empty, Errors: []string{"Missing required key 'id'"}}
			continue
		}
		idc := id
		results[i] = DocResult{ID: &idc, Errors: []string{}}
		cur, err := s.storedDoc(ctx, e, id)
		if err != nil {
			return nil, err
		}
		if cur == nil {
			results[i].Errors = []string{fmt.Sprintf("Document does not exist: %s", id)}
			continue
		}
		var errs []string
		for _, f := range fields {
			if f.name == "id" {
				continue
			}
			if _, ok := e.Schema[f.name]; !ok {
				errs = append(errs, fmt.Sprintf("Field does not exist in the schema (fields cannot be created with PATCH): %s.", f.name))
				continue
			}
			errs = setField(cur, f, errs)
		}
		if len(errs) > 0 {
			results[i].Errors = errs
			continue
		}
		parsed[i] = cur
	}
	if err := s.write(ctx, e, parsed, results); err != nil {
		return nil, err
	}
	return results, nil
}

// GetDocuments returns the documents with these ids (nil for unknown ids),
// in the order asked.
func (s *Service) GetDocuments(ctx context.Context, engine string, ids []string) ([]json.RawMessage, error) {
	e, err := s.Engine(engine)
	if err != nil {
		return nil, err
	}
	if e.Type == EngineMeta {
		return nil, Errors(eserr.Invalid, "Documents cannot be read from meta engines")
	}
	out := make([]json.RawMessage, len(ids))
	for i, id := range ids {
		if id == "" {
			continue
		}
		d, err := s.storedDoc(ctx, e, id)
		if err != nil {
			return nil, err
		}
		if d != nil {
			out[i] = d.marshal()
		}
	}
	return out, nil
}

// DeleteDocuments deletes documents by id.
func (s *Service) DeleteDocuments(ctx context.Context, engine string, ids []string) ([]Deleted, error) {
	if len(ids) == 0 {
		return nil, Errors(eserr.Invalid, MsgEmptyJSON)
	}
	e, unlock, err := s.writableEngine(engine)
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := make([]Deleted, len(ids))
	var reqs []*searchcore.DocRequest
	var pos []int
	for i, id := range ids {
		out[i] = Deleted{ID: id}
		if id == "" {
			continue
		}
		reqs = append(reqs, &searchcore.DocRequest{Op: searchcore.OpDelete, Index: e.Index, ID: id, LongID: true})
		pos = append(pos, i)
	}
	if len(reqs) == 0 {
		return out, nil
	}
	for j, r := range s.core.ExecDocs(ctx, reqs, searchcore.RefreshTrue) {
		if r.Err != nil && searchcore.StatusOf(r.Err) >= 500 {
			return nil, r.Err
		}
		out[pos[j]].Deleted = r.Err == nil && r.Result == "deleted"
	}
	return out, nil
}

// Page is a requested page (1-based current).
type Page struct {
	Current int
	Size    int
}

// PageMeta is meta.page of a list response.
type PageMeta struct {
	Current      int   `json:"current"`
	TotalPages   int   `json:"total_pages"`
	TotalResults int64 `json:"total_results"`
	Size         int   `json:"size"`
}

// NewPageMeta computes meta.page (total_pages 0 when there is nothing).
func NewPageMeta(p Page, total int64) PageMeta {
	pages := 0
	if p.Size > 0 {
		pages = int((total + int64(p.Size) - 1) / int64(p.Size))
	}
	return PageMeta{Current: p.Current, TotalPages: pages, TotalResults: total, Size: p.Size}
}

// maxListWindow is how deep document lists page (10,000 documents).
const maxListWindow = 10000

// ListDocuments returns one page of documents ordered by id.
func (s *Service) ListDocuments(ctx context.Context, engine string, p Page) ([]json.RawMessage, PageMeta, error) {
	e, err := s.Engine(engine)
	if err != nil {
		return nil, PageMeta{}, err
	}
	idx, err := s.CoreIndex(e)
	if err != nil {
		return nil, PageMeta{}, err
	}
	from := (p.Current - 1) * p.Size
	size := p.Size
	if from+size > maxListWindow {
		size = maxListWindow - from
	}
	req := searchcore.NewSearchRequest()
	req.TrackTotalHits = searchcore.TrackTotalHits(1 << 62)
	req.Sort = []query.SortField{{Field: "id" + KeywordSuffix, Order: "asc"}}
	req.HasSort = true
	out := []json.RawMessage{}
	var total int64
	if size <= 0 {
		req.From, req.Size = 0, 0
	} else {
		req.From, req.Size = from, size
	}
	res, err := s.core.Search(ctx, []*searchcore.Index{idx}, req)
	if err != nil {
		return nil, PageMeta{}, eserr.FirstShardCause(err)
	}
	total = res.Total
	for _, h := range res.Hits {
		doc, err := StoredDocument(h.Source)
		if err != nil {
			return nil, PageMeta{}, err
		}
		out = append(out, doc)
	}
	return out, NewPageMeta(p, total), nil
}

// UpdateSchema adds fields and changes types (fields cannot be removed).
// Adding fields extends the mapping; changing a type reindexes the engine
// into a new hidden index built from the stored documents.
func (s *Service) UpdateSchema(ctx context.Context, engine string, changes map[string]string) (Schema, error) {
	e, unlock, err := s.lockEngine(engine)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if e.Type == EngineMeta {
		return nil, Errors(eserr.Invalid, "The schema of a meta engine is the union of its source engines' schemas and cannot be changed")
	}
	var msgs []string
	add, changed := Schema{}, Schema{}
	for _, f := range sortedKeys(changes) {
		ts := changes[f]
		if f == "id" {
			msgs = append(msgs, "The type of the id field cannot be changed")
			continue
		}
		if msg := ValidateFieldName(f); msg != "" {
			msgs = append(msgs, msg)
			continue
		}
		t, ok := ParseFieldType(ts)
		if !ok {
			msgs = append(msgs, fmt.Sprintf("Invalid field type %q for field %s: must be one of text, number, date, geolocation", ts, f))
			continue
		}
		cur, exists := e.Schema[f]
		switch {
		case !exists:
			add[f] = t
		case cur != t:
			changed[f] = t
		}
	}
	if len(e.Schema)+len(add) > s.limits.SchemaFields {
		msgs = append(msgs, fmt.Sprintf("Adding fields would exceed the limit of %d fields per engine", s.limits.SchemaFields))
	}
	if len(msgs) > 0 {
		return nil, Errors(eserr.Invalid, msgs...)
	}
	if len(changed) == 0 {
		if len(add) > 0 {
			if e, err = s.addFields(ctx, e, add); err != nil {
				return nil, err
			}
		}
		return e.Schema.Clone(), nil
	}
	next := *e
	next.Schema = e.Schema.Clone()
	for f, t := range add {
		next.Schema[f] = t
	}
	for f, t := range changed {
		next.Schema[f] = t
	}
	if err := s.reindex(ctx, e, &next); err != nil {
		return nil, err
	}
	return next.Schema.Clone(), nil
}

func sortedKeys(m map[string]string) []string {
	sc := Schema{}
	for k := range m {
		sc[k] = Text
	}
	return sc.Fields()
}

// reindexBatch is how many documents one reindex write carries.
const reindexBatch = 500

// reindex copies every document of cur's index into a new index built for
// next's schema, then switches the engine to it and drops the old index.
func (s *Service) reindex(ctx context.Context, cur, next *Engine) error {
	next.Generation = cur.Generation + 1
	next.Index = fmt.Sprintf("%s%s.%d", IndexPrefix, cur.Name, next.Generation)
	if err := s.dropIndex(ctx, next.Index); err != nil {
		return err
	}
	if err := s.createIndex(ctx, next); err != nil {
		return err
	}
	fail := func(err error) error {
		_ = s.dropIndex(ctx, next.Index)
		return err
	}
	old, err := s.CoreIndex(cur)
	if err != nil {
		return fail(err)
	}
	req := searchcore.NewSearchRequest()
	req.Size = reindexBatch
	req.Scroll = time.Minute
	req.Sort = []query.SortField{{Field: "_doc"}}
	req.HasSort = true
	res, err := s.core.Search(ctx, []*searchcore.Index{old}, req)
	if err != nil {
		return fail(eserr.FirstShardCause(err))
	}
	scrollID := res.ScrollID
	defer func() { _, _ = s.core.ClearScroll([]string{scrollID}) }()
	for len(res.Hits) > 0 {
		reqs := make([]*searchcore.DocRequest, 0, len(res.Hits))
		for _, h := range res.Hits {
			d, err := decodeStored(h.Source)
			if err != nil {
				return fail(err)
			}
			reqs = append(reqs, &searchcore.DocRequest{Op: searchcore.OpIndex, Index: next.Index, ID: h.ID, Source: coreSource(d, next.Schema, next.Revision), LongID: true})
		}
		for _, r := range s.core.ExecDocs(ctx, reqs, searchcore.RefreshFalse) {
			if r.Err != nil {
				return fail(fmt.Errorf("reindex engine [%s]: %w", cur.Name, r.Err))
			}
		}
		if res, _, err = s.core.Scroll(ctx, scrollID, time.Minute); err != nil {
			return fail(err)
		}
		if res.ScrollID != "" {
			scrollID = res.ScrollID
		}
	}
	idx, _ := s.core.Index(next.Index)
	if err := idx.Refresh(ctx); err != nil {
		return fail(err)
	}
	if err := s.publish(ctx, next); err != nil {
		return fail(err)
	}
	return s.dropIndex(ctx, cur.Index)
}
