package searchcore

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blugelabs/bluge"

	"github.com/quarry-search/quarry/searchcore/mapping"
)

// Refresh is the refresh policy of a write request.
type Refresh int

// Refresh policies.
const (
	RefreshFalse Refresh = iota
	RefreshTrue
	RefreshWaitFor
)

// ParseRefresh parses the refresh parameter ("", "true", "false", "wait_for").
func ParseRefresh(v string, present bool) (Refresh, error) {
	if !present {
		return RefreshFalse, nil
	}
	switch v {
	case "", "true":
		return RefreshTrue, nil
	case "false":
		return RefreshFalse, nil
	case "wait_for":
		return RefreshWaitFor, nil
	}
	return RefreshFalse, IllegalArgument("Unknown value for refresh: [%s].", v)
}

// Op is a document operation type.
type Op string

// Document operations.
const (
	OpIndex  Op = "index"
	OpCreate Op = "create"
	OpUpdate Op = "update"
	OpDelete Op = "delete"
)

// VersionType is the versioning mode of a write.
type VersionType string

// Version types.
const (
	VersionInternal    VersionType = "internal"
	VersionExternal    VersionType = "external"
	VersionExternalGTE VersionType = "external_gte"
	VersionForce       VersionType = "force"
)

// noSeqNo marks an unset if_seq_no / if_primary_term.
const noSeqNo = -2

// DocRequest is one document write (a single API call or one bulk item).
type DocRequest struct {
	Op            Op
	Index         string
	ID            string
	Routing       string
	Source        []byte // document for index/create
	IfSeqNo       *int64
	IfPrimaryTerm *int64
	Version       *int64
	VersionType   VersionType
	RequireAlias  bool
	Pipeline      string
	// FetchSource is the _source option of an update: the updated document
	// is returned (filtered) under "get".
	FetchSource json.RawMessage
	// Update holds the body of an update operation.
	Update *UpdateBody
	// LongID lifts the 512-byte id limit for callers with their own (App
	// Search ids go up to 800 characters).
	LongID bool
}

// UpdateBody is the body of an update request.
type UpdateBody struct {
	Doc            json.RawMessage `json:"doc"`
	Upsert         json.RawMessage `json:"upsert"`
	DocAsUpsert    bool            `json:"doc_as_upsert"`
	DetectNoop     *bool           `json:"detect_noop"`
	ScriptedUpsert bool            `json:"scripted_upsert"`
	Script         json.RawMessage `json:"script"`
	Source         json.RawMessage `json:"_source"`
	IfSeqNo        *int64          `json:"if_seq_no"`
	IfPrimaryTerm  *int64          `json:"if_primary_term"`
}

// DocResult is the outcome of one document write.
type DocResult struct {
	Index         string
	ID            string
	Version       int64
	SeqNo         int64
	PrimaryTerm   int64
	Result        string // created, updated, deleted, not_found, noop
	Status        int
	ForcedRefresh bool
	// Source is the document after an update (for update's _source option).
	Source []byte
	Found  bool
	// Err is set when this item failed (bulk items); Status then carries the
	// error's HTTP status.
	Err error
	// Shards reports the replication outcome: total/successful.
	ShardsTotal, ShardsSuccessful int
}

// writeItem is a DocRequest in flight.
type writeItem struct {
	req    *DocRequest
	target *Index
	shard  *shard
	doc    *parsedDoc
	rec    DocRecord
	prev   *DocRecord
	slot   *slot
	res    DocResult
	err    error
	noop   bool
	// moved is this id's live record on another shard (a write with a new
	// routing), removed from that shard once the write is committed.
	moved *DocRecord
}

// ExecDocs executes document writes (one API call or a whole _bulk), with
// one durable store commit per index, and returns one result per request in
// order. Item failures are reported in the results, not as the error.
func (e *Engine) ExecDocs(ctx context.Context, reqs []*DocRequest, refresh Refresh) []DocResult {
	items := make([]BulkItem, len(reqs))
	for i, r := range reqs {
		items[i] = BulkItem{Req: r}
	}
	return e.ExecBulk(ctx, items, refresh)
}

// ExecBulk executes parsed bulk items; items with a PreErr fail alone.
func (e *Engine) ExecBulk(ctx context.Context, bulk []BulkItem, refresh Refresh) []DocResult {
	items := make([]*writeItem, len(bulk))
	for i, b := range bulk {
		items[i] = &writeItem{req: b.Req, err: b.PreErr}
	}
	// 1. Resolve targets (auto-creating indices), each distinct one once.
	targets := map[targetKey]*WriteTarget{}
	for _, it := range items {
		if it.err == nil {
			it.err = e.resolveItem(ctx, it, targets)
		}
	}
	// 2. Parse documents in parallel (the CPU-heavy part), with the
	// sources compressed by a dictionary sampled from the first write
	// that brings enough of them.
	e.sampleSourceDicts(ctx, items)
	e.parseItems(items)
	// 3. Apply dynamic mapping updates, sequentially.
	for _, it := range items {
		if it.err == nil && it.doc == nil && it.req.Op != OpDelete && it.req.Op != OpUpdate {
			it.err = e.reparse(ctx, it)
		}
	}
	// 4. Resolve versions and assign sequence numbers per shard.
	byShard := map[*shard][]*writeItem{}
	var order []*shard
	for _, it := range items {
		if it.err != nil {
			continue
		}
		if _, ok := byShard[it.shard]; !ok {
			order = append(order, it.shard)
		}
		byShard[it.shard] = append(byShard[it.shard], it)
	}
	for _, sh := range order {
		e.sequence(ctx, sh, byShard[sh])
	}
	// 5. One durable commit per index.
	byIndex := map[*Index][]*writeItem{}
	var idxOrder []*Index
	for _, it := range items {
		if it.err != nil || it.noop || it.slot == nil {
			continue
		}
		if _, ok := byIndex[it.target]; !ok {
			idxOrder = append(idxOrder, it.target)
		}
		byIndex[it.target] = append(byIndex[it.target], it)
	}
	for _, idx := range idxOrder {
		list := byIndex[idx]
		writes := make([]DocWrite, len(list))
		for i, it := range list {
			w := DocWrite{Record: it.rec, PrevSeqNo: -1}
			if it.prev != nil {
				w.PrevSeqNo, w.PrevShard = it.prev.SeqNo, it.prev.Shard
			}
			writes[i] = w
		}
		err := e.store.CommitDocs(ctx, idx.UUID(), writes)
		slotsByShard := map[*shard][]*slot{}
		for _, it := range list {
			slotsByShard[it.shard] = append(slotsByShard[it.shard], it.slot)
			if err != nil {
				it.err = Internalf(err, "failed to persist document")
			}
		}
		for sh, slots := range slotsByShard {
			sh.settle(slots, err == nil)
		}
		for _, it := range list {
			it.shard.writeMu.Lock()
			if p, ok := it.shard.pending[it.rec.ID]; ok && p.SeqNo == it.rec.SeqNo {
				delete(it.shard.pending, it.rec.ID)
			}
			it.shard.writeMu.Unlock()
			if err == nil {
				if it.req.Op == OpDelete {
					it.shard.stats.deleteTotal.Add(1)
				} else {
					it.shard.stats.indexTotal.Add(1)
				}
				if it.moved != nil {
					it.target.shards[it.moved.Shard].removeMoved(it.moved.ID)
				}
			}
		}
	}
	// 6. Refresh when asked.
	if refresh != RefreshFalse {
		maxSeq := map[*shard]int64{}
		for _, it := range items {
			if it.err == nil && it.slot != nil {
				if it.rec.SeqNo > maxSeq[it.shard] {
					maxSeq[it.shard] = it.rec.SeqNo
				} else if _, ok := maxSeq[it.shard]; !ok {
					maxSeq[it.shard] = it.rec.SeqNo
				}
			}
		}
		for sh, seq := range maxSeq {
			if err := sh.refreshTo(ctx, seq); err != nil {
				e.log.Warn("refresh after write failed", "err", err)
			}
		}
	}
	out := make([]DocResult, len(items))
	for i, it := range items {
		if it.err != nil {
			out[i] = DocResult{Index: it.res.Index, ID: it.res.ID, Err: it.err, Status: StatusOf(it.err)}
			if out[i].Index == "" {
				out[i].Index = it.req.Index
			}
			if out[i].ID == "" {
				out[i].ID = it.req.ID
			}
			continue
		}
		it.res.ForcedRefresh = refresh == RefreshTrue && !it.noop
		out[i] = it.res
	}
	return out
}

// StatusOf returns the HTTP status of an error (500 for unknown errors).
func StatusOf(err error) int {
	if e, ok := AsError(err); ok {
		return statusByCode[e.Code]
	}
	return 500
}

// statusByCode is the single code → HTTP status table.
var statusByCode = map[Code]int{
	Internal:         500,
	Invalid:          400,
	NotFound:         404,
	Conflict:         409,
	Unauthorized:     401,
	Forbidden:        403,
	TooLarge:         413,
	TooManyRequests:  429,
	MethodNotAllowed: 405,
	Unavailable:      503,
	RequestTimeout:   408,
}

// HTTPStatus returns the HTTP status for an error code.
func HTTPStatus(c Code) int { return statusByCode[c] }

// targetKey identifies a write target within one request.
type targetKey struct {
	name         string
	requireAlias bool
}

// resolveItem validates the request and resolves its target index and shard.
func (e *Engine) resolveItem(ctx context.Context, it *writeItem, targets map[targetKey]*WriteTarget) error {
	r := it.req
	if err := validateDocRequest(r); err != nil {
		return err
	}
	key := targetKey{r.Index, r.RequireAlias}
	t, ok := targets[key]
	if !ok {
		var err error
		if t, err = e.WriteTarget(ctx, r.Index, r.RequireAlias); err != nil {
			return err
		}
		targets[key] = t
	}
	it.target = t.Index
	if r.Routing == "" && t.Routing != "" {
		r.Routing = t.Routing
	}
	if r.ID == "" {
		r.ID = newDocID()
	}
	if rr := t.Index.Mapping().RoutingRequired; rr != nil && *rr && r.Routing == "" {
		return Errorf(Invalid, "routing_missing_exception", "routing is required for [%s]/[%s]", t.Index.Name(), r.ID).
			With("index_uuid", t.Index.UUID()).With("index", t.Index.Name())
	}
	it.shard = t.Index.shardFor(r.ID, r.Routing)
	it.res.Index = t.Index.Name()
	it.res.ID = r.ID
	return nil
}

func validateDocRequest(r *DocRequest) error {
	var msgs []string
	if r.IfSeqNo != nil || r.IfPrimaryTerm != nil {
		if r.IfSeqNo != nil && *r.IfSeqNo < 0 {
			msgs = append(msgs, "ifSeqNo must be non negative")
		}
		if r.IfPrimaryTerm != nil && *r.IfPrimaryTerm <= 0 {
			msgs = append(msgs, "ifPrimaryTerm must be positive")
		}
		if (r.IfSeqNo == nil) != (r.IfPrimaryTerm == nil) {
			return IllegalArgument("if_seq_no and if_primary_term must be provided together")
		}
		if r.Version != nil {
			msgs = append(msgs, "compare and write operations can not use versioning")
		}
	}
	vt := r.VersionType
	if vt == "" {
		vt = VersionInternal
	}
	if r.Version != nil && vt == VersionInternal && r.Op != OpUpdate {
		msgs = append(msgs, "internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead")
	}
	if r.Op == OpCreate && vt != VersionInternal {
		msgs = append(msgs, "create operations only support internal versioning. use index instead")
	}
	if r.Op == OpUpdate && (r.Version != nil || vt != VersionInternal) {
		msgs = append(msgs, "can't provide version in update request")
	}
	if vt == VersionForce {
		msgs = append(msgs, "version type [force] may no longer be used")
	}
	if r.Version != nil && (vt == VersionExternal || vt == VersionExternalGTE) && *r.Version < 0 {
		msgs = append(msgs, "illegal version value ["+itoa(*r.Version)+"] for version type ["+string(vt)+"]")
	}
	if r.Op == OpDelete || r.Op == OpUpdate {
		if r.ID == "" {
			msgs = append(msgs, "id is missing")
		}
	}
	if len(r.ID) > 512 && !r.LongID {
		msgs = append(msgs, "id ["+r.ID+"] is too long, must be no longer than 512 bytes but was: "+itoa(int64(len(r.ID))))
	}
	if len(msgs) > 0 {
		return ValidationError(msgs...)
	}
	return nil
}

// shardFor routes a document to a shard by routing (or id).
func (ix *Index) shardFor(id, routing string) *shard {
	if len(ix.shards) == 1 {
		return ix.shards[0]
	}
	key := routing
	if key == "" {
		key = id
	}
	return ix.shards[shardID(key, len(ix.shards), ix.Settings().RoutingShards)]
}

// parseItems parses index/create documents in parallel against the current
// mapping; documents needing a mapping change are left for reparse.
func (e *Engine) parseItems(items []*writeItem) {
	var next atomic.Int64
	workers := runtime.GOMAXPROCS(0)
	if workers > len(items) {
		workers = len(items)
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(items) {
					return
				}
				it := items[i]
				if it.err != nil || (it.req.Op != OpIndex && it.req.Op != OpCreate) {
					continue
				}
				doc, upd, err := it.target.parseDoc(it.req.ID, it.req.Source, it.req.Routing)
				switch {
				case err != nil:
					it.err = err
				case upd == nil:
					it.doc = doc
				}
			}
		}()
	}
	wg.Wait()
}

// reparse parses a document whose first parse wanted a mapping change,
// merging the change into the (possibly since updated) mapping.
func (e *Engine) reparse(ctx context.Context, it *writeItem) error {
	for attempt := 0; attempt < 3; attempt++ {
		doc, upd, err := it.target.parseDoc(it.req.ID, it.req.Source, it.req.Routing)
		if err != nil {
			return err
		}
		if upd == nil {
			it.doc = doc
			return nil
		}
		if _, err := it.target.mergeDynamic(ctx, upd); err != nil {
			// A concurrent change made the update conflict: parse again
			// against the new mapping, which reports the real problem.
			continue
		}
		it.doc = doc
		return nil
	}
	return MapperParsing("failed to parse document [%s]: mapping kept changing", it.req.ID)
}

// parseDoc turns a source into the bluge document of the index. A non-nil
// mapping is the dynamic update the document needs.
func (ix *Index) parseDoc(id string, source []byte, routing string) (*parsedDoc, *mapping.Mapping, error) {
	ix.metaMu.RLock()
	mp, reg := ix.mapping, ix.analyzers
	opts := mapping.DocOptions{NestedLimit: ix.settings.NestedObjectsLimit, NumericStep: ix.meta.NumericStep}
	base, err := ix.defaultBase()
	ix.metaMu.RUnlock()
	if err != nil {
		return nil, nil, err
	}
	if base != nil {
		// The index's first type starts from its _default_ mapping.
		mp = base
	}
	doc := bluge.NewDocument(id)
	upd, nested, err := mp.ParseDocumentWith(id, source, reg, doc, opts)
	if err != nil {
		return nil, nil, err
	}
	if base != nil {
		if upd, err = base.Merge(upd); err != nil {
			return nil, nil, err
		}
	}
	if c := ix.sourceCodec(); c != nil {
		doc.AddField(bluge.NewStoredOnlyField(compressedSourceFieldName, c.encode(source)))
	} else {
		doc.AddField(bluge.NewStoredOnlyField(sourceFieldName, source))
	}
	// Every document carries the nested-root term (its own _id) so that
	// every segment has the field: bluge (ice) panics when a batch deletes
	// by a field a segment lacks, and updates delete nested documents by it.
	doc.AddField(bluge.NewKeywordField(mapping.NestedRootField, id))
	if routing != "" {
		doc.AddField(bluge.NewKeywordField("_routing", routing))
	}
	return &parsedDoc{root: doc, nested: nested}, upd, nil
}

// buildDoc rebuilds the bluge document of a stored record (replay).
func (ix *Index) buildDoc(rec *DocRecord) (*parsedDoc, error) {
	doc, _, err := ix.parseDoc(rec.ID, rec.Source, rec.Routing)
	if err != nil {
		return nil, err
	}
	doc.AddField(metaField(rec))
	return doc, nil
}

// sequence resolves versions and assigns sequence numbers for the items of
// one shard, holding the shard's write lock only for this step.
func (e *Engine) sequence(ctx context.Context, sh *shard, items []*writeItem) {
	sh.writeMu.Lock()
	defer sh.writeMu.Unlock()
	for _, it := range items {
		cur, err := sh.currentRecord(ctx, it.req.ID)
		if err != nil {
			it.err = err
			continue
		}
		var moved *DocRecord
		if cur != nil && cur.Shard != sh.num {
			// The id lives on another shard (other routing): for this shard
			// the document does not exist, as in Elasticsearch.
			if !cur.Deleted && (it.req.Op == OpDelete || (it.req.Op == OpUpdate && it.req.Update != nil && len(it.req.Update.Upsert) == 0 && !it.req.Update.DocAsUpsert)) {
				if it.req.Op == OpUpdate {
					it.err = Errorf(NotFound, "document_missing_exception", "[_doc][%s]: document missing", it.req.ID).
						With("index_uuid", it.target.UUID()).With("shard", itoa(int64(sh.num))).With("index", it.target.Name())
					continue
				}
				it.noop = true
				it.res.Version, it.res.SeqNo, it.res.PrimaryTerm = 1, max(sh.nextSeq-1, 0), 1
				it.res.Result, it.res.Status = "not_found", 404
				it.res.ShardsTotal, it.res.ShardsSuccessful = 1+it.target.Settings().NumberOfReplicas, 1
				continue
			}
			// A write with the new routing moves the document (one copy per id).
			if !cur.Deleted {
				moved = cur
			}
			prev := cur
			cur = nil
			it.prev = prev
		}
		if it.req.Op == OpUpdate {
			if err := e.prepareUpdate(ctx, it, cur); err != nil {
				it.err = err
				continue
			}
			if it.noop {
				continue
			}
		}
		version, result, err := resolveVersion(it, cur)
		if err != nil {
			it.err = err
			continue
		}
		rec := DocRecord{
			ID:          it.req.ID,
			Shard:       sh.num,
			SeqNo:       sh.nextSeq,
			PrimaryTerm: 1,
			Version:     version,
			Routing:     it.req.Routing,
		}
		if it.req.Op == OpDelete {
			rec.Deleted = true
		} else {
			rec.Source = it.source()
			it.doc.AddField(metaField(&rec))
		}
		sh.nextSeq++
		it.rec = rec
		if it.prev == nil {
			it.prev = cur
		}
		it.moved = moved
		sh.pending[rec.ID] = &it.rec
		it.slot = sh.reserve(shardOp{id: rec.ID, seq: rec.SeqNo, doc: it.doc, dropNested: it.target.Mapping().HasNested()})
		it.res.Version = version
		it.res.SeqNo = rec.SeqNo
		it.res.PrimaryTerm = 1
		it.res.Result = result
		it.res.Status = 200
		if result == "created" {
			it.res.Status = 201
		}
		if result == "not_found" {
			it.res.Status = 404
		}
		it.res.ShardsTotal, it.res.ShardsSuccessful = 1+it.target.Settings().NumberOfReplicas, 1
	}
}

// source returns the source to store for an index/create/update item.
func (it *writeItem) source() []byte {
	if it.req.Op == OpUpdate {
		return it.res.Source
	}
	return it.req.Source
}

// current returns the newest record of id: an in-flight one, or the stored one.
func (sh *shard) currentRecord(ctx context.Context, id string) (*DocRecord, error) {
	if p, ok := sh.pending[id]; ok {
		return p, nil
	}
	rec, err := sh.store.GetDoc(ctx, sh.indexUUID, id)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, Internalf(err, "failed to read document")
	}
	return rec, nil
}

// resolveVersion applies the concurrency-control rules and returns the new
// version and the result name.
func resolveVersion(it *writeItem, cur *DocRecord) (int64, string, error) {
	r := it.req
	id := r.ID
	exists := cur != nil && !cur.Deleted
	conflict := func(format string, args ...any) error {
		return Errorf(Conflict, "version_conflict_engine_exception", format, args...).
			With("index_uuid", it.target.UUID()).With("shard", itoa(int64(it.shard.num))).With("index", it.target.Name())
	}
	if r.IfSeqNo != nil {
		if !exists {
			return 0, "", conflict("[%s]: version conflict, required seqNo [%d], primary term [%d] but no document was found", id, *r.IfSeqNo, *r.IfPrimaryTerm)
		}
		if cur.SeqNo != *r.IfSeqNo || cur.PrimaryTerm != *r.IfPrimaryTerm {
			return 0, "", conflict("[%s]: version conflict, required seqNo [%d], primary term [%d]. current document has seqNo [%d] and primary term [%d]", id, *r.IfSeqNo, *r.IfPrimaryTerm, cur.SeqNo, cur.PrimaryTerm)
		}
	}
	if r.Op == OpCreate && exists {
		return 0, "", conflict("[%s]: version conflict, document already exists (current version [%d])", id, cur.Version)
	}
	version := int64(1)
	if cur != nil {
		version = cur.Version + 1
	}
	switch r.VersionType {
	case VersionExternal, VersionExternalGTE:
		if r.Version == nil {
			break
		}
		v := *r.Version
		if cur != nil {
			if r.VersionType == VersionExternal && v <= cur.Version {
				return 0, "", conflict("[%s]: version conflict, current version [%d] is higher or equal to the one provided [%d]", id, cur.Version, v)
			}
			if r.VersionType == VersionExternalGTE && v < cur.Version {
				return 0, "", conflict("[%s]: version conflict, current version [%d] is higher than the one provided [%d]", id, cur.Version, v)
			}
		}
		version = v
	}
	switch r.Op {
	case OpDelete:
		if exists {
			return version, "deleted", nil
		}
		if cur == nil && r.VersionType != VersionExternal && r.VersionType != VersionExternalGTE {
			version = 1
		}
		return version, "not_found", nil
	default:
		if exists {
			return version, "updated", nil
		}
		return version, "created", nil
	}
}

// metaField encodes the bookkeeping stored with each bluge document.
func metaField(rec *DocRecord) bluge.Field {
	buf := make([]byte, 0, 32+len(rec.Routing))
	buf = binary.AppendVarint(buf, rec.SeqNo)
	buf = binary.AppendVarint(buf, rec.PrimaryTerm)
	buf = binary.AppendVarint(buf, rec.Version)
	buf = append(buf, rec.Routing...)
	return bluge.NewStoredOnlyField(metaFieldName, buf)
}

// decodeMeta reverses metaField.
func decodeMeta(b []byte) (seq, term, version int64, routing string) {
	var n int
	seq, n = binary.Varint(b)
	b = b[n:]
	term, n = binary.Varint(b)
	b = b[n:]
	version, n = binary.Varint(b)
	routing = string(b[n:])
	return
}

const (
	metaFieldName   = "_meta"
	sourceFieldName = "_source"
)

// newDocID returns a 20-character URL-safe id like Elasticsearch's.
func newDocID() string {
	var b [15]byte
	ts := time.Now().UnixMilli()
	binary.BigEndian.PutUint64(b[:8], uint64(ts))
	_, _ = rand.Read(b[6:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// removeMoved drops a document that moved to another shard from this
// shard's bluge index. The store record already lives on the new shard.
func (sh *shard) removeMoved(id string) {
	sh.writeMu.Lock()
	seq := sh.nextSeq
	sh.nextSeq++
	sl := sh.reserve(shardOp{id: id, seq: seq, dropNested: true})
	sh.writeMu.Unlock()
	sh.settle([]*slot{sl}, true)
}
