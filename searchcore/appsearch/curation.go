package appsearch

import (
	"context"
	"encoding/json"
	"strings"
)

// Engine-level limits of synonyms and curations (APPSEARCH.md section 9).
const (
	MaxSynonymSets      = 256
	MaxSynonymWords     = 32
	MaxCurationDocs     = 50
	DefaultListPageSize = 25
)

// stringList reads member key of v as a list of strings (a single string
// is a list of one); missing is nil.
func stringList(v *jvalue, key, what string, errs *errList) []string {
	m := v.get(key)
	if m == nil {
		return nil
	}
	list := m.arr
	if m.kind == jString {
		list = []*jvalue{m}
	} else if m.kind != jArray {
		errs.add("%s must be an array of strings", what)
		return nil
	}
	out := []string{}
	for _, e := range list {
		s, ok := e.scalarString()
		if !ok || e.kind == jBool {
			errs.add("%s must be an array of strings", what)
			return nil
		}
		out = append(out, s)
	}
	return out
}

// onlyKeys reports the members of v outside allowed.
func onlyKeys(v *jvalue, allowed ...string) errList {
	var errs errList
	for _, m := range v.obj {
		ok := false
		for _, a := range allowed {
			ok = ok || m.key == a
		}
		if !ok {
			errs.add("Options contains invalid key: %s", m.key)
		}
	}
	return errs
}

// parseSynonyms reads {"synonyms": [...]}: 2 to 32 distinct non-empty
// words or phrases.
func parseSynonyms(body []byte) ([]string, error) {
	v, err := decodeBody(body)
	if err != nil {
		return nil, err
	}
	if v.kind != jObject {
		return nil, RequestErrors("Synonym set must be a JSON object")
	}
	errs := onlyKeys(v, "synonyms", "id")
	if v.get("synonyms") == nil && len(errs) == 0 {
		return nil, MissingParameter("synonyms")
	}
	list := stringList(v, "synonyms", "Synonyms", &errs)
	if len(errs) == 0 {
		seen := map[string]bool{}
		for _, s := range list {
			k := strings.ToLower(strings.TrimSpace(s))
			if k == "" {
				errs.add("Synonyms must not be empty")
				break
			}
			if seen[k] {
				errs.add("Synonyms must be unique: %s", s)
				break
			}
			seen[k] = true
		}
		if len(list) < 2 {
			errs.add("Synonym set must contain at least 2 synonyms")
		}
		if len(list) > MaxSynonymWords {
			errs.add("Synonym set must contain %d synonyms or fewer", MaxSynonymWords)
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return list, nil
}

// Synonyms returns one page of an engine's synonym sets.
func (ss *Searches) Synonyms(ctx context.Context, engine string, p Page) ([]SynonymSet, PageMeta, error) {
	st, _, err := ss.engineState(ctx, engine)
	if err != nil {
		return nil, PageMeta{}, err
	}
	ss.mu.Lock()
	all := append([]SynonymSet(nil), st.synonyms...)
	ss.mu.Unlock()
	return pageOf(all, p), NewPageMeta(p, int64(len(all))), nil
}

// pageOf cuts one page out of list.
func pageOf[T any](list []T, p Page) []T {
	from := (p.Current - 1) * p.Size
	out := []T{}
	for i := from; i >= 0 && i < from+p.Size && i < len(list); i++ {
		out = append(out, list[i])
	}
	return out
}

func (ss *Searches) engineState(ctx context.Context, engine string) (*engineSearch, *Engine, error) {
	e, err := ss.svc.Engine(engine)
	if err != nil {
		return nil, nil, err
	}
	st, err := ss.state(ctx, e)
	return st, e, err
}

// synonymNotFound is the 404 of an unknown synonym set.
func synonymNotFound(id string) error {
	return errNotFound("Synonym set not found with id: " + id)
}

// Synonym returns one synonym set.
func (ss *Searches) Synonym(ctx context.Context, engine, id string) (*SynonymSet, error) {
	st, _, err := ss.engineState(ctx, engine)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, s := range st.synonyms {
		if s.ID == id {
			cp := s
			return &cp, nil
		}
	}
	return nil, synonymNotFound(id)
}

// PutSynonym creates (id "") or replaces a synonym set.
func (ss *Searches) PutSynonym(ctx context.Context, engine, id string, body []byte) (*SynonymSet, error) {
	st, _, err := ss.engineState(ctx, engine)
	if err != nil {
		return nil, err
	}
	list, err := parseSynonyms(body)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	idx := -1
	for i, s := range st.synonyms {
		if s.ID == id {
			idx = i
		}
	}
	switch {
	case id != "" && idx < 0:
		return nil, synonymNotFound(id)
	case id == "" && len(st.synonyms) >= MaxSynonymSets:
		return nil, RequestErrors(sprintf("Engines can have %d synonym sets or fewer", MaxSynonymSets))
	case id == "":
		id = newID("syn-")
	}
	set := SynonymSet{ID: id, Synonyms: list}
	b, _ := json.Marshal(set)
	if err := ss.store.PutMeta(ctx, metaSearchPrefix+engine+"/synonym/"+id, b); err != nil {
		return nil, err
	}
	if idx < 0 {
		st.synonyms = append(st.synonyms, set)
	} else {
		st.synonyms[idx] = set
	}
	return &set, nil
}

// DeleteSynonym deletes a synonym set.
func (ss *Searches) DeleteSynonym(ctx context.Context, engine, id string) error {
	st, _, err := ss.engineState(ctx, engine)
	if err != nil {
		return err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for i, s := range st.synonyms {
		if s.ID == id {
			if err := ss.store.DeleteMeta(ctx, metaSearchPrefix+engine+"/synonym/"+id); err != nil {
				return err
			}
			st.synonyms = append(st.synonyms[:i:i], st.synonyms[i+1:]...)
			return nil
		}
	}
	return synonymNotFound(id)
}

// curationNotFound is the 404 of an unknown curation.
func curationNotFound(id string) error {
	return errNotFound("Curation not found with id: " + id)
}

// parseCuration reads {queries, promoted?, hidden?}.
func parseCuration(body []byte) (*Curation, error) {
	v, err := decodeBody(body)
	if err != nil {
		return nil, err
	}
	if v.kind != jObject {
		return nil, RequestErrors("Curation must be a JSON object")
	}
	errs := onlyKeys(v, "queries", "promoted", "hidden", "id", "curation_id")
	if err := errs.err(); err != nil {
		return nil, err
	}
	if v.get("queries") == nil {
		return nil, MissingParameter("queries")
	}
	c := &Curation{
		Queries:  stringList(v, "queries", "Queries", &errs),
		Promoted: stringList(v, "promoted", "Promoted", &errs),
		Hidden:   stringList(v, "hidden", "Hidden", &errs),
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	if len(c.Queries) == 0 {
		return nil, RequestErrors("Queries must contain at least one query")
	}
	for _, q := range c.Queries {
		if strings.TrimSpace(q) == "" {
			return nil, RequestErrors("Queries must not be empty")
		}
	}
	if c.Promoted == nil {
		c.Promoted = []string{}
	}
	if c.Hidden == nil {
		c.Hidden = []string{}
	}
	if len(c.Promoted)+len(c.Hidden) == 0 {
		return nil, RequestErrors("A curation must contain promoted or hidden documents")
	}
	if len(c.Promoted)+len(c.Hidden) > MaxCurationDocs {
		return nil, RequestErrors(sprintf("A curation must contain %d promoted and hidden documents or fewer", MaxCurationDocs))
	}
	for _, p := range c.Promoted {
		for _, h := range c.Hidden {
			if p == h {
				return nil, RequestErrors("Documents cannot be both promoted and hidden: " + p)
			}
		}
	}
	return c, nil
}

// Curations returns one page of an engine's curations.
func (ss *Searches) Curations(ctx context.Context, engine string, p Page) ([]Curation, PageMeta, error) {
	st, _, err := ss.engineState(ctx, engine)
	if err != nil {
		return nil, PageMeta{}, err
	}
	ss.mu.Lock()
	all := append([]Curation(nil), st.curations...)
	ss.mu.Unlock()
	return pageOf(all, p), NewPageMeta(p, int64(len(all))), nil
}

// CurationByID returns one curation.
func (ss *Searches) CurationByID(ctx context.Context, engine, id string) (*Curation, error) {
	st, _, err := ss.engineState(ctx, engine)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, c := range st.curations {
		if c.ID == id {
			cp := c
			return &cp, nil
		}
	}
	return nil, curationNotFound(id)
}

// PutCuration creates (id "") or replaces a curation and returns its id.
// A query may belong to one curation only.
func (ss *Searches) PutCuration(ctx context.Context, engine, id string, body []byte) (string, error) {
	st, _, err := ss.engineState(ctx, engine)
	if err != nil {
		return "", err
	}
	c, err := parseCuration(body)
	if err != nil {
		return "", err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	idx := -1
	for i, cur := range st.curations {
		if cur.ID == id {
			idx = i
			continue
		}
		for _, q := range cur.Queries {
			for _, nq := range c.Queries {
				if strings.EqualFold(strings.TrimSpace(q), strings.TrimSpace(nq)) {
					return "", RequestErrors("Query is already curated: " + nq)
				}
			}
		}
	}
	if id != "" && idx < 0 {
		return "", curationNotFound(id)
	}
	if id == "" {
		id = newID("cur-")
	}
	c.ID = id
	b, _ := json.Marshal(c)
	if err := ss.store.PutMeta(ctx, metaSearchPrefix+engine+"/curation/"+id, b); err != nil {
		return "", err
	}
	if idx < 0 {
		st.curations = append(st.curations, *c)
	} else {
		st.curations[idx] = *c
	}
	return id, nil
}

// DeleteCuration deletes a curation.
func (ss *Searches) DeleteCuration(ctx context.Context, engine, id string) error {
	st, _, err := ss.engineState(ctx, engine)
	if err != nil {
		return err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for i, c := range st.curations {
		if c.ID == id {
			if err := ss.store.DeleteMeta(ctx, metaSearchPrefix+engine+"/curation/"+id); err != nil {
				return err
			}
			st.curations = append(st.curations[:i:i], st.curations[i+1:]...)
			return nil
		}
	}
	return curationNotFound(id)
}
