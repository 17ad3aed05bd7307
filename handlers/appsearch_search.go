package handlers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	asgen "github.com/quarry-search/quarry/gen/appsearch"
	"github.com/quarry-search/quarry/searchcore/appsearch"
)

// searchParams reads the merged parameters (bracketed query string and
// JSON body) of a search-side request as one JSON object.
func searchParams(c echo.Context) ([]byte, error) {
	req, err := readASRequest(c)
	if err != nil {
		return nil, err
	}
	if req.Array != nil {
		return nil, decodingError()
	}
	return json.Marshal(req.Params)
}

// newRequestID returns a UUID-shaped request id and sets X-Request-Id.
func newRequestID(c echo.Context) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	id := h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	c.Response().Header().Set("X-Request-Id", id)
	return id
}

// Search answers GET .../search.
func (h *appSearchServer) SearchGet(c echo.Context, engine asgen.EngineNamePath) error {
	return h.Search(c, engine)
}

// Search runs a search.
func (h *appSearchServer) Search(c echo.Context, engine asgen.EngineNamePath) error {
	body, err := searchParams(c)
	if err != nil {
		return err
	}
	out, err := h.search.Search(c.Request().Context(), engine, body, newRequestID(c))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, out)
}

// MultiSearchGet answers GET .../multi_search.
func (h *appSearchServer) MultiSearchGet(c echo.Context, engine asgen.EngineNamePath) error {
	return h.MultiSearch(c, engine)
}

// MultiSearch runs up to 10 searches; when a query is invalid the answer
// is the array of per-query errors (status 200, like every request error).
func (h *appSearchServer) MultiSearch(c echo.Context, engine asgen.EngineNamePath) error {
	body, err := searchParams(c)
	if err != nil {
		return err
	}
	newRequestID(c)
	entries, _, err := h.search.MultiSearch(c.Request().Context(), engine, body)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, entries)
}

// QuerySuggestionGet answers GET .../query_suggestion.
func (h *appSearchServer) QuerySuggestionGet(c echo.Context, engine asgen.EngineNamePath) error {
	return h.QuerySuggestion(c, engine)
}

// QuerySuggestion completes a partial query.
func (h *appSearchServer) QuerySuggestion(c echo.Context, engine asgen.EngineNamePath) error {
	body, err := searchParams(c)
	if err != nil {
		return err
	}
	out, err := h.search.QuerySuggestion(c.Request().Context(), engine, body, newRequestID(c))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, out)
}

// LogClickthrough records a click; the answer has an empty body.
func (h *appSearchServer) LogClickthrough(c echo.Context, engine asgen.EngineNamePath) error {
	body, err := searchParams(c)
	if err != nil {
		return err
	}
	if err := h.search.Click(c.Request().Context(), engine, body); err != nil {
		return err
	}
	return c.Blob(http.StatusOK, "application/json; charset=UTF-8", nil)
}

// GetSearchSettings returns the search settings.
func (h *appSearchServer) GetSearchSettings(c echo.Context, engine asgen.EngineNamePath) error {
	out, err := h.search.SearchSettings(c.Request().Context(), engine)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, out)
}

// PutSearchSettings updates the search settings.
func (h *appSearchServer) PutSearchSettings(c echo.Context, engine asgen.EngineNamePath) error {
	body, err := searchParams(c)
	if err != nil {
		return err
	}
	out, err := h.search.UpdateSearchSettings(c.Request().Context(), engine, body)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, out)
}

// ResetSearchSettings restores the default search settings.
func (h *appSearchServer) ResetSearchSettings(c echo.Context, engine asgen.EngineNamePath) error {
	out, err := h.search.ResetSearchSettings(c.Request().Context(), engine)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, out)
}

// listPage reads the paging of a synonyms or curations list (size 25 by
// default) and rejects other options.
func listPage(c echo.Context) (appsearch.Page, error) {
	req, err := readASRequest(c)
	if err != nil {
		return appsearch.Page{}, err
	}
	for _, k := range sortedAnyKeys(req.Params) {
		if k != "page" {
			return appsearch.Page{}, appsearch.RequestErrors("Options contains invalid key: " + k)
		}
	}
	return pageParams(req.Params, appsearch.DefaultListPageSize, 1000)
}

// ListSynonymSets lists the synonym sets.
func (h *appSearchServer) ListSynonymSets(c echo.Context, engine asgen.EngineNamePath, _ asgen.ListSynonymSetsParams) error {
	if _, err := h.svc.Engine(engine); err != nil {
		return err
	}
	page, err := listPage(c)
	if err != nil {
		return err
	}
	sets, meta, err := h.search.Synonyms(c.Request().Context(), engine, page)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]any{"meta": map[string]any{"page": meta}, "results": sets})
}

// CreateSynonymSet creates a synonym set.
func (h *appSearchServer) CreateSynonymSet(c echo.Context, engine asgen.EngineNamePath) error {
	return h.putSynonymSet(c, engine, "")
}

// PutSynonymSet replaces a synonym set.
func (h *appSearchServer) PutSynonymSet(c echo.Context, engine asgen.EngineNamePath, id asgen.SynonymSetIDPath) error {
	return h.putSynonymSet(c, engine, id)
}

func (h *appSearchServer) putSynonymSet(c echo.Context, engine, id string) error {
	body, err := readASRequest(c)
	if err != nil {
		return err
	}
	// Older clients echo the id as a parameter.
	delete(body.Params, "synonym_set_id")
	raw, _ := json.Marshal(body.Params)
	set, err := h.search.PutSynonym(c.Request().Context(), engine, id, raw)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, set)
}

// GetSynonymSet returns a synonym set.
func (h *appSearchServer) GetSynonymSet(c echo.Context, engine asgen.EngineNamePath, id asgen.SynonymSetIDPath) error {
	set, err := h.search.Synonym(c.Request().Context(), engine, id)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, set)
}

// DeleteSynonymSet deletes a synonym set.
func (h *appSearchServer) DeleteSynonymSet(c echo.Context, engine asgen.EngineNamePath, id asgen.SynonymSetIDPath) error {
	if err := h.search.DeleteSynonym(c.Request().Context(), engine, id); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]bool{"deleted": true})
}

// ListCurations lists the curations.
func (h *appSearchServer) ListCurations(c echo.Context, engine asgen.EngineNamePath, _ asgen.ListCurationsParams) error {
	if _, err := h.svc.Engine(engine); err != nil {
		return err
	}
	page, err := listPage(c)
	if err != nil {
		return err
	}
	list, meta, err := h.search.Curations(c.Request().Context(), engine, page)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]any{"meta": map[string]any{"page": meta}, "results": list})
}

// CreateCuration creates a curation.
func (h *appSearchServer) CreateCuration(c echo.Context, engine asgen.EngineNamePath) error {
	return h.putCuration(c, engine, "")
}

// PutCuration replaces a curation.
func (h *appSearchServer) PutCuration(c echo.Context, engine asgen.EngineNamePath, id asgen.CurationIDPath) error {
	return h.putCuration(c, engine, id)
}

func (h *appSearchServer) putCuration(c echo.Context, engine, id string) error {
	raw, err := searchParams(c)
	if err != nil {
		return err
	}
	newID, err := h.search.PutCuration(c.Request().Context(), engine, id, raw)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]string{"id": newID})
}

// GetCuration returns a curation.
func (h *appSearchServer) GetCuration(c echo.Context, engine asgen.EngineNamePath, id asgen.CurationIDPath) error {
	cur, err := h.search.CurationByID(c.Request().Context(), engine, id)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, cur)
}

// DeleteCuration deletes a curation.
func (h *appSearchServer) DeleteCuration(c echo.Context, engine asgen.EngineNamePath, id asgen.CurationIDPath) error {
	if err := h.search.DeleteCuration(c.Request().Context(), engine, id); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]bool{"deleted": true})
}

// analyticsReportFunc is one of the analytics reports of appsearch.Searches.
type analyticsReportFunc func(*appsearch.Searches, context.Context, string, []byte) (json.Marshaler, error)

// The analytics reports.
var (
	topQueries analyticsReportFunc = (*appsearch.Searches).TopQueries
	topClicks  analyticsReportFunc = (*appsearch.Searches).TopClicks
	counts     analyticsReportFunc = (*appsearch.Searches).Counts
)

// analyticsReport runs one analytics report over the merged parameters.
func (h *appSearchServer) analyticsReport(c echo.Context, engine string, report analyticsReportFunc) error {
	body, err := searchParams(c)
	if err != nil {
		return err
	}
	out, err := report(h.search, c.Request().Context(), engine, body)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, out)
}

// GetTopQueriesAnalytics reports the top queries.
func (h *appSearchServer) GetTopQueriesAnalytics(c echo.Context, engine asgen.EngineNamePath) error {
	return h.analyticsReport(c, engine, topQueries)
}

// PostTopQueriesAnalytics reports the top queries.
func (h *appSearchServer) PostTopQueriesAnalytics(c echo.Context, engine asgen.EngineNamePath) error {
	return h.analyticsReport(c, engine, topQueries)
}

// GetTopClicksAnalytics reports the most clicked documents.
func (h *appSearchServer) GetTopClicksAnalytics(c echo.Context, engine asgen.EngineNamePath) error {
	return h.analyticsReport(c, engine, topClicks)
}

// PostTopClicksAnalytics reports the most clicked documents.
func (h *appSearchServer) PostTopClicksAnalytics(c echo.Context, engine asgen.EngineNamePath) error {
	return h.analyticsReport(c, engine, topClicks)
}

// GetCountAnalytics reports queries and clicks per interval.
func (h *appSearchServer) GetCountAnalytics(c echo.Context, engine asgen.EngineNamePath) error {
	return h.analyticsReport(c, engine, counts)
}

// PostCountAnalytics reports queries and clicks per interval.
func (h *appSearchServer) PostCountAnalytics(c echo.Context, engine asgen.EngineNamePath) error {
	return h.analyticsReport(c, engine, counts)
}
