package appsearch

import (
	"context"
	"encoding/json"
)

// rawSettings are an engine's stored search settings, each member as the
// user gave it (absent members take the defaults).
type rawSettings struct {
	SearchFields json.RawMessage `json:"search_fields,omitempty"`
	ResultFields json.RawMessage `json:"result_fields,omitempty"`
	Boosts       json.RawMessage `json:"boosts,omitempty"`
	Precision    int             `json:"precision,omitempty"`
}

// resolve parses the stored settings for the current schema; members that
// no longer parse or name fields of another type fall back to defaults.
func (rs *rawSettings) resolve(s Schema, rev Revision) *Settings {
	st := DefaultSettings(s)
	if len(rs.SearchFields) > 0 {
		if v, err := decodeValue(rs.SearchFields); err == nil {
			var errs errList
			list := parseSearchFields(v, &errs)
			validateSearchFields(list, s, &errs)
			if len(errs) == 0 {
				st.SearchFields = list
			}
		}
	}
	if len(rs.ResultFields) > 0 {
		if v, err := decodeValue(rs.ResultFields); err == nil {
			var errs errList
			list := parseResultFields(v, &errs)
			validateResultFields(list, s, &errs)
			if len(errs) == 0 {
				st.ResultFields = list
			}
		}
	}
	if len(rs.Boosts) > 0 {
		if v, err := decodeValue(rs.Boosts); err == nil {
			var errs errList
			list := parseBoosts(v, rev, &errs)
			validateBoosts(list, s, rev, &errs)
			if len(errs) == 0 {
				st.Boosts = list
			}
		}
	}
	st.Precision = rs.Precision
	return st
}

// settingsBody renders settings as the search_settings endpoints answer:
// {search_fields, result_fields, boosts, precision, precision_enabled}.
func settingsBody(st *Settings, rs *rawSettings) obj {
	sf := obj{}
	for _, f := range st.SearchFields {
		sf = append(sf, kv{f.Field, obj{{"weight", f.Weight}}})
	}
	rf := obj{}
	for _, f := range st.ResultFields {
		o := obj{}
		if f.Raw != nil {
			r := obj{}
			if f.Raw.Size > 0 {
				r = append(r, kv{"size", f.Raw.Size})
			}
			o = append(o, kv{"raw", r})
		}
		if f.Snippet != nil {
			o = append(o, kv{"snippet", obj{{"size", f.Snippet.Size}, {"fallback", f.Snippet.Fallback}}})
		}
		rf = append(rf, kv{f.Field, o})
	}
	var boosts any = obj{}
	if rs != nil && len(rs.Boosts) > 0 {
		boosts = rs.Boosts
	}
	p := st.Precision
	if p == 0 {
		p = DefaultPrecision
	}
	return obj{{"search_fields", sf}, {"result_fields", rf}, {"boosts", boosts}, {"precision", p}, {"precision_enabled", true}}
}

// SearchSettings returns an engine's search settings.
func (ss *Searches) SearchSettings(ctx context.Context, engine string) (json.Marshaler, error) {
	e, err := ss.svc.Engine(engine)
	if err != nil {
		return nil, err
	}
	c, st, _, _, err := ss.context(ctx, e)
	if err != nil {
		return nil, err
	}
	settings := c.Settings
	if settings == nil {
		settings = DefaultSettings(c.Schema)
	}
	return settingsBody(settings, st.settings), nil
}

// settingsKeys are the members of a search settings update.
var settingsKeys = map[string]bool{"search_fields": true, "result_fields": true, "boosts": true, "precision": true, "precision_enabled": true}

// UpdateSearchSettings replaces the members given (search_fields,
// result_fields, boosts, precision) and returns the full settings.
func (ss *Searches) UpdateSearchSettings(ctx context.Context, engine string, body []byte) (json.Marshaler, error) {
	e, err := ss.svc.Engine(engine)
	if err != nil {
		return nil, err
	}
	v, err := decodeBody(body)
	if err != nil {
		return nil, err
	}
	if v.kind != jObject {
		return nil, RequestErrors("Search settings must be a JSON object")
	}
	c, st, _, _, err := ss.context(ctx, e)
	if err != nil {
		return nil, err
	}
	var errs errList
	next := rawSettings{}
	if st.settings != nil {
		next = *st.settings
	}
	for _, m := range v.obj {
		if !settingsKeys[m.key] {
			errs.add("Options contains invalid key: %s", m.key)
			continue
		}
		raw, _ := json.Marshal(m.val.toAny())
		switch m.key {
		case "search_fields":
			list := parseSearchFields(m.val, &errs)
			validateSearchFields(list, c.Schema, &errs)
			next.SearchFields = raw
		case "result_fields":
			list := parseResultFields(m.val, &errs)
			validateResultFields(list, c.Schema, &errs)
			next.ResultFields = raw
		case "boosts":
			list := parseBoosts(m.val, e.Revision, &errs)
			validateBoosts(list, c.Schema, e.Revision, &errs)
			next.Boosts = raw
		case "precision":
			next.Precision = asPrecision(m.val, &errs)
		case "precision_enabled":
			// Always true here: accepted so that settings read back can be
			// sent again unchanged.
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	if err := ss.putSettings(ctx, e.Name, st, &next); err != nil {
		return nil, err
	}
	return ss.SearchSettings(ctx, engine)
}

// ResetSearchSettings restores the default settings and returns them.
func (ss *Searches) ResetSearchSettings(ctx context.Context, engine string) (json.Marshaler, error) {
	e, err := ss.svc.Engine(engine)
	if err != nil {
		return nil, err
	}
	st, err := ss.state(ctx, e)
	if err != nil {
		return nil, err
	}
	if err := ss.putSettings(ctx, e.Name, st, nil); err != nil {
		return nil, err
	}
	return ss.SearchSettings(ctx, engine)
}

func (ss *Searches) putSettings(ctx context.Context, engine string, st *engineSearch, rs *rawSettings) error {
	key := metaSearchPrefix + engine + "/settings"
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if rs == nil {
		if err := ss.store.DeleteMeta(ctx, key); err != nil {
			return err
		}
		st.settings = nil
		return nil
	}
	b, err := json.Marshal(rs)
	if err != nil {
		return err
	}
	if err := ss.store.PutMeta(ctx, key, b); err != nil {
		return err
	}
	st.settings = rs
	return nil
}
