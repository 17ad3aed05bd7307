package searchcore

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/blugelabs/bluge"
)

// GetOptions are the options of a realtime GET.
type GetOptions struct {
	Routing     string
	Version     *int64
	VersionType VersionType
	// Realtime false reads the last refreshed snapshot instead of the store.
	Realtime bool
	// Refresh refreshes the shard before reading.
	Refresh bool
}

// ResolveSingle resolves name to exactly one index (an index or an alias of
// one index), as single-document APIs require.
func (e *Engine) ResolveSingle(name string) (*Index, error) {
	name, err := resolveDateMathName(name, e.now())
	if err != nil {
		return nil, err
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	if idx, ok := e.indices[name]; ok {
		return idx, nil
	}
	if idx, ok := e.closed[name]; ok {
		return nil, IndexClosed(name, idx.UUID())
	}
	members := e.aliasMembersLocked()[name]
	switch len(members) {
	case 0:
		return nil, IndexNotFound(name)
	case 1:
		return members[0], nil
	}
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = m.Name()
	}
	return nil, IllegalArgument("alias [%s] has more than one index associated with it [%s], can't execute a single index op", name, strings.Join(names, ", "))
}

// Get returns the current record of a document (nil when missing or deleted).
func (e *Engine) Get(ctx context.Context, indexName, id string, o GetOptions) (*Index, *DocRecord, error) {
	idx, err := e.ResolveSingle(indexName)
	if err != nil {
		return nil, nil, err
	}
	if id == "" {
		return idx, nil, ValidationError("id is missing")
	}
	sh := idx.shardFor(id, o.Routing)
	sh.stats.getTotal.Add(1)
	if o.Refresh {
		if err := idx.Refresh(ctx); err != nil {
			return idx, nil, err
		}
	}
	var rec *DocRecord
	if o.Realtime || o.Refresh {
		rec, err = sh.storedRecord(ctx, id)
	} else {
		rec, err = sh.snapshotRecord(ctx, idx, id)
	}
	if err != nil {
		return idx, nil, err
	}
	if rec == nil || rec.Deleted || rec.Shard != sh.num {
		return idx, nil, nil
	}
	if o.Version != nil && rec.Version != *o.Version {
		return idx, nil, Errorf(Conflict, "version_conflict_engine_exception",
			"[%s]: version conflict, current version [%d] is different than the one provided [%d]", id, rec.Version, *o.Version).
			With("index_uuid", idx.UUID()).With("shard", itoa(int64(sh.num))).With("index", idx.Name())
	}
	return idx, rec, nil
}

func (sh *shard) storedRecord(ctx context.Context, id string) (*DocRecord, error) {
	sh.writeMu.Lock()
	defer sh.writeMu.Unlock()
	rec, err := sh.currentRecord(ctx, id)
	if err != nil || rec == nil {
		return rec, err
	}
	cp := *rec
	return &cp, nil
}

// snapshotRecord reads a document from the last refreshed snapshot.
func (sh *shard) snapshotRecord(ctx context.Context, idx *Index, id string) (*DocRecord, error) {
	rr := sh.acquire()
	defer rr.release()
	q := bluge.NewTermQuery(id).SetField("_id")
	it, err := rr.r.Search(ctx, bluge.NewTopNSearch(1, q))
	if err != nil {
		return nil, Internalf(err, "get failed")
	}
	dm, err := it.Next()
	if err != nil || dm == nil {
		return nil, err
	}
	rec := &DocRecord{ID: id, Shard: sh.num}
	var srcErr error
	err = dm.VisitStoredFields(func(field string, value []byte) bool {
		if field == metaFieldName {
			rec.SeqNo, rec.PrimaryTerm, rec.Version, rec.Routing = decodeMeta(value)
		} else if s, ok, err := idx.storedSource(field, value); ok {
			rec.Source, srcErr = s, err
		}
		return true
	})
	if err == nil {
		err = srcErr
	}
	if err != nil {
		return nil, Internalf(err, "get failed")
	}
	return rec, nil
}

// prepareUpdate computes the new source of an update item (under the
// shard's write lock) and parses it.
func (e *Engine) prepareUpdate(ctx context.Context, it *writeItem, cur *DocRecord) error {
	u := it.req.Update
	id := it.req.ID
	if u == nil {
		return ValidationError("script or doc is missing")
	}
	if len(bytes.TrimSpace(u.Script)) > 0 {
		return IllegalArgument("scripted updates are not supported by this node: send a partial [doc] (with [doc_as_upsert] or [upsert]) instead of [script]")
	}
	if len(bytes.TrimSpace(u.Doc)) == 0 && len(bytes.TrimSpace(u.Upsert)) == 0 {
		return ValidationError("script or doc is missing")
	}
	exists := cur != nil && !cur.Deleted
	var src []byte
	switch {
	case exists:
		if len(bytes.TrimSpace(u.Doc)) == 0 {
			return ValidationError("script or doc is missing")
		}
		merged, changed, err := mergeObjects(cur.Source, u.Doc)
		if err != nil {
			return err
		}
		noop := u.DetectNoop == nil || *u.DetectNoop
		if noop && !changed {
			it.noop = true
			it.res.Version = cur.Version
			it.res.SeqNo = cur.SeqNo
			it.res.PrimaryTerm = cur.PrimaryTerm
			it.res.Result = "noop"
			it.res.Status = 200
			it.res.Source = cur.Source
			return nil
		}
		src = merged
	case len(bytes.TrimSpace(u.Upsert)) > 0:
		src = u.Upsert
	case u.DocAsUpsert:
		src = u.Doc
	default:
		return Errorf(NotFound, "document_missing_exception", "[_doc][%s]: document missing", id).
			With("index_uuid", it.target.UUID()).With("shard", itoa(int64(it.shard.num))).With("index", it.target.Name())
	}
	if err := checkObject(src); err != nil {
		return err
	}
	it.res.Source = src
	doc, upd, err := it.target.parseDoc(id, src, it.req.Routing)
	if err != nil {
		return err
	}
	if upd != nil {
		if _, err := it.target.mergeDynamic(ctx, upd); err != nil {
			return err
		}
	}
	it.doc = doc
	return nil
}

func checkObject(src []byte) error {
	s := bytes.TrimSpace(src)
	if len(s) == 0 || s[0] != '{' {
		return MapperParsing("failed to parse, document is empty")
	}
	return nil
}

// orderedObject is a JSON object that keeps member order.
type orderedObject struct {
	keys []string
	vals map[string]json.RawMessage
}

func parseOrdered(raw []byte) (*orderedObject, error) {
	members, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	o := &orderedObject{vals: make(map[string]json.RawMessage, len(members))}
	for _, m := range members {
		if _, dup := o.vals[m.key]; !dup {
			o.keys = append(o.keys, m.key)
		}
		o.vals[m.key] = m.value
	}
	return o, nil
}

func (o *orderedObject) marshal() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// mergeObjects deep-merges patch into base like Elasticsearch's partial
// update (objects merge recursively, everything else is replaced) and
// reports whether anything changed.
func mergeObjects(base, patch []byte) ([]byte, bool, error) {
	bo, err := parseOrdered(base)
	if err != nil {
		return nil, false, err
	}
	po, err := parseOrdered(patch)
	if err != nil {
		return nil, false, err
	}
	changed := false
	for _, k := range po.keys {
		pv := po.vals[k]
		bv, exists := bo.vals[k]
		if exists && isObject(bv) && isObject(pv) {
			merged, ch, err := mergeObjects(bv, pv)
			if err != nil {
				return nil, false, err
			}
			if ch {
				changed = true
				bo.vals[k] = merged
			}
			continue
		}
		if exists && jsonEqual(bv, pv) {
			continue
		}
		if !exists {
			bo.keys = append(bo.keys, k)
		}
		bo.vals[k] = compact(pv)
		changed = true
	}
	return bo.marshal(), changed, nil
}

func isObject(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '{'
}

func compact(v json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return v
	}
	return b.Bytes()
}

func jsonEqual(a, b json.RawMessage) bool {
	return bytes.Equal(compact(a), compact(b))
}
