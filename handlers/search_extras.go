package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/aggs"
)

// writeHitExtras renders the members a hit gains from explain, named
// queries and collapse inner hits.
func writeHitExtras(b *bytes.Buffer, h *searchcore.Hit, req *searchcore.SearchRequest, totalAsInt bool) {
	if h.Shard != "" {
		b.WriteString(`,"_shard":`)
		writeString(b, h.Shard)
		b.WriteString(`,"_node":`)
		writeString(b, h.Node)
	}
	if len(h.MatchedQueries) > 0 {
		b.WriteString(`,"matched_queries":`)
		mb, _ := json.Marshal(h.MatchedQueries)
		b.Write(mb)
	}
	if len(h.CollapseInnerHits) > 0 {
		b.WriteString(`,"inner_hits":{`)
		for i, ih := range h.CollapseInnerHits {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, ih.Name)
			b.WriteString(`:{"hits":`)
			b.Write(hitsSection(encodeSearch(ih.Result, ih.Request, totalAsInt)))
			b.WriteByte('}')
		}
		b.WriteByte('}')
	}
	if req.Explain {
		b.WriteString(`,"_explanation":`)
		writeExplanation(b, h.Explanation)
	}
}

// hitsSection extracts the "hits" member of an encoded search response.
func hitsSection(resp []byte) []byte {
	var m struct {
		Hits json.RawMessage `json:"hits"`
	}
	if err := json.Unmarshal(resp, &m); err != nil || m.Hits == nil {
		return []byte(`{"hits":[]}`)
	}
	return m.Hits
}

// writeExplanation renders {value, description, details} recursively.
func writeExplanation(b *bytes.Buffer, e *searchcore.Explanation) {
	if e == nil {
		b.WriteString(`{"value":0.0,"description":"no matching term","details":[]}`)
		return
	}
	b.WriteString(`{"value":`)
	writeFloat(b, e.Value)
	b.WriteString(`,"description":`)
	writeString(b, e.Description)
	b.WriteString(`,"details":[`)
	for i, d := range e.Details {
		if i > 0 {
			b.WriteByte(',')
		}
		writeExplanation(b, d)
	}
	b.WriteString(`]}`)
}

// writeSearchExtras renders the response's suggest and profile sections.
func writeSearchExtras(b *bytes.Buffer, res *searchcore.SearchResult) {
	if res.Suggest != nil {
		b.WriteString(`,"suggest":{`)
		for i, s := range res.Suggest {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, s.Name)
			b.WriteString(`:[`)
			for j, e := range s.Entries {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`{"text":`)
				writeString(b, e.Text)
				b.WriteString(`,"offset":` + strconv.Itoa(e.Offset) + `,"length":` + strconv.Itoa(e.Length) + `,"options":[`)
				for k, o := range e.Options {
					if k > 0 {
						b.WriteByte(',')
					}
					b.WriteString(`{"text":`)
					writeString(b, o.Text)
					b.WriteString(`,"score":`)
					writeFloat(b, float64(o.Score))
					b.WriteString(`,"freq":` + strconv.FormatInt(o.Freq, 10) + `}`)
				}
				b.WriteString(`]}`)
			}
			b.WriteByte(']')
		}
		b.WriteByte('}')
	}
	if res.Profile != nil {
		b.WriteString(`,"profile":{"shards":[`)
		for i, sp := range res.Profile {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"id":`)
			writeString(b, sp.ID)
			b.WriteString(`,"searches":[{"query":`)
			writeProfileQueries(b, sp.Query)
			b.WriteString(`,"rewrite_time":` + strconv.FormatInt(sp.RewriteNanos, 10) + `,"collector":[`)
			for j, c := range sp.Collector {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`{"name":`)
				writeString(b, c.Name)
				b.WriteString(`,"reason":`)
				writeString(b, c.Reason)
				b.WriteString(`,"time_in_nanos":` + strconv.FormatInt(c.TimeNanos, 10) + `}`)
			}
			b.WriteString(`]}],"aggregations":`)
			writeProfileAggs(b, sp.Aggregations)
			b.WriteByte('}')
		}
		b.WriteString(`]}`)
	}
}

// writeProfileAggs renders a shard's aggregation timings with ES's
// breakdown keys (the phases not measured separately stay 0).
func writeProfileAggs(b *bytes.Buffer, list []aggs.AggTiming) {
	b.WriteByte('[')
	for i, a := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":`)
		writeString(b, aggregatorName(a.Type))
		b.WriteString(`,"description":`)
		writeString(b, a.Name)
		b.WriteString(`,"time_in_nanos":` + strconv.FormatInt(a.InitializeNanos+a.CollectNanos, 10))
		b.WriteString(`,"breakdown":{"initialize":` + strconv.FormatInt(a.InitializeNanos, 10) + `,"initialize_count":1` +
			`,"collect":` + strconv.FormatInt(a.CollectNanos, 10) + `,"collect_count":` + strconv.FormatInt(a.CollectCount, 10) +
			`,"build_leaf_collector":0,"build_leaf_collector_count":0,"post_collection":0,"post_collection_count":0` +
			`,"build_aggregation":0,"build_aggregation_count":0,"reduce":0,"reduce_count":0}}`)
	}
	b.WriteByte(']')
}

// aggregatorName names an aggregation type like ES's aggregator classes
// ("date_histogram" -> "DateHistogramAggregator").
func aggregatorName(typ string) string {
	var sb strings.Builder
	up := true
	for _, r := range typ {
		if r == '_' {
			up = true
			continue
		}
		if up {
			sb.WriteRune(unicode.ToUpper(r))
			up = false
		} else {
			sb.WriteRune(r)
		}
	}
	return sb.String() + "Aggregator"
}

func writeProfileQueries(b *bytes.Buffer, qs []*searchcore.ProfileQuery) {
	b.WriteByte('[')
	for i, q := range qs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":`)
		writeString(b, q.Type)
		b.WriteString(`,"description":`)
		writeString(b, q.Description)
		b.WriteString(`,"time_in_nanos":` + strconv.FormatInt(q.TimeNanos(), 10) + `,"breakdown":`)
		bb, _ := json.Marshal(q.Breakdown)
		b.Write(bb)
		if len(q.Children) > 0 {
			b.WriteString(`,"children":`)
			writeProfileQueries(b, q.Children)
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
}

// ExplainGet answers GET /{index}/_explain/{id}.
func (s *Server) ExplainGet(c echo.Context, index, id string, p cluster.ExplainGetParams) error {
	return s.explain(c, index, id, cluster.ExplainParams(p))
}

// Explain answers POST /{index}/_explain/{id}.
func (s *Server) Explain(c echo.Context, index, id string, p cluster.ExplainParams) error {
	return s.explain(c, index, id, p)
}

func (s *Server) explain(c echo.Context, index, id string, p cluster.ExplainParams) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var rawQuery json.RawMessage
	if len(bytes.TrimSpace(body)) > 0 {
		var b cluster.ExplainRequest
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&b); err != nil {
			return searchcore.ParsingError("request body must be {\"query\": ...}: %s", err.Error())
		}
		if b.Query != nil {
			rawQuery = *b.Query
		}
	}
	if p.Q != nil {
		rawQuery = uriQuery(*p.Q, str(p.Df), str(p.DefaultOperator), str(p.Analyzer), (*cluster.EsBoolean)(p.Lenient))
	}
	res, err := s.core.Explain(c.Request().Context(), index, id, str(p.Routing), rawQuery)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString(`{"_index":`)
	writeString(&b, res.Index)
	b.WriteString(`,"_type":"_doc","_id":`)
	writeString(&b, res.ID)
	b.WriteString(`,"matched":` + strconv.FormatBool(res.Matched))
	if res.Explanation != nil {
		b.WriteString(`,"explanation":`)
		writeExplanation(&b, res.Explanation)
	}
	b.WriteByte('}')
	status := http.StatusOK
	if !res.Found {
		status = http.StatusNotFound
	}
	return writeRaw(c, status, b.Bytes())
}
