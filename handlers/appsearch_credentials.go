package handlers

import (
	"context"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	asgen "github.com/quarry-search/quarry/gen/appsearch"
	"github.com/quarry-search/quarry/searchcore/appsearch"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

// keySpec reads a key definition (ignoring redundant members: id, key,
// api_key_name).
func keySpec(req *asRequest) (appsearch.KeySpec, error) {
	var spec appsearch.KeySpec
	var msgs []string
	if req.Array != nil {
		return spec, decodingError()
	}
	for _, k := range sortedAnyKeys(req.Params) {
		v := req.Params[k]
		switch k {
		case "name":
			spec.Name, _ = asString(v)
		case "type":
			spec.Type, _ = asString(v)
		case "read", "write", "access_all_engines":
			b, ok := asBool(v)
			if !ok {
				msgs = append(msgs, fmt.Sprintf("%s must be a boolean", k))
				continue
			}
			switch k {
			case "read":
				spec.Read = &b
			case "write":
				spec.Write = &b
			default:
				spec.AccessAllEngines = &b
			}
		case "engines":
			l, ok := asStringList(v)
			if !ok {
				msgs = append(msgs, "engines must be an array of engine names")
			}
			spec.Engines = l
		case "id", "key", "api_key_name":
		default:
			msgs = append(msgs, "Options contains invalid key: "+k)
		}
	}
	if len(msgs) > 0 {
		return spec, appsearch.Errors(eserr.Invalid, msgs...)
	}
	return spec, nil
}

// ListCredentials lists the keys (masked).
func (h *appSearchServer) ListCredentials(c echo.Context, _ asgen.ListCredentialsParams) error {
	req, err := readASRequest(c)
	if err != nil {
		return err
	}
	page, err := pageParams(req.Params, 25, 1000)
	if err != nil {
		return err
	}
	keys := h.svc.Keys()
	results := []appsearch.KeyView{}
	for i := (page.Current - 1) * page.Size; i < len(keys) && i < page.Current*page.Size; i++ {
		results = append(results, keys[i].View(""))
	}
	return writeJSON(c, http.StatusOK, map[string]any{
		"meta":    map[string]any{"page": appsearch.NewPageMeta(page, int64(len(keys)))},
		"results": results,
	})
}

// CreateCredential creates a key; the answer is the only one showing its secret.
func (h *appSearchServer) CreateCredential(c echo.Context) error {
	return h.writeKey(c, h.svc.CreateKey)
}

// GetCredential returns a key (masked).
func (h *appSearchServer) GetCredential(c echo.Context, name string) error {
	k, err := h.svc.KeyByName(name)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, k.View(""))
}

// UpdateCredential replaces a key's definition.
func (h *appSearchServer) UpdateCredential(c echo.Context, name string) error {
	return h.writeKey(c, func(ctx context.Context, spec appsearch.KeySpec) (appsearch.KeyView, error) {
		return h.svc.UpdateKey(ctx, name, spec)
	})
}

// writeKey reads a key definition, runs f and answers with the key.
func (h *appSearchServer) writeKey(c echo.Context, f func(context.Context, appsearch.KeySpec) (appsearch.KeyView, error)) error {
	req, err := readASRequest(c)
	if err != nil {
		return err
	}
	spec, err := keySpec(req)
	if err != nil {
		return err
	}
	v, err := f(c.Request().Context(), spec)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, v)
}

// DeleteCredential deletes a key.
func (h *appSearchServer) DeleteCredential(c echo.Context, name string) error {
	if err := h.svc.DeleteKey(c.Request().Context(), name); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]bool{"deleted": true})
}
