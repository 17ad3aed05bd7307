package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
)

// IndicesStats answers GET /_stats.
func (s *Server) IndicesStats(c echo.Context, p cluster.IndicesStatsParams) error {
	return s.indicesStats(c, "_all", "", p)
}

// IndicesStatsMetric answers GET /_stats/{metric}.
func (s *Server) IndicesStatsMetric(c echo.Context, metric cluster.IndicesStatsMetricPath, p cluster.IndicesStatsMetricParams) error {
	return s.indicesStats(c, "_all", string(metric), cluster.IndicesStatsParams(p))
}

// IndicesStatsIndex answers GET /{index}/_stats.
func (s *Server) IndicesStatsIndex(c echo.Context, index cluster.IndexListPath, p cluster.IndicesStatsIndexParams) error {
	return s.indicesStats(c, string(index), "", cluster.IndicesStatsParams(p))
}

// IndicesStatsIndexMetric answers GET /{index}/_stats/{metric}.
func (s *Server) IndicesStatsIndexMetric(c echo.Context, index cluster.IndexListPath, metric cluster.IndicesStatsMetricPath, p cluster.IndicesStatsIndexMetricParams) error {
	return s.indicesStats(c, string(index), string(metric), cluster.IndicesStatsParams(p))
}

// indicesStats renders the measured statistics of the resolved indices:
// _all and per index, primaries and total (equal on one node).
func (s *Server) indicesStats(c echo.Context, index, metric string, p cluster.IndicesStatsParams) error {
	want, err := parseStatsList(c, metric, "metric", indexStatsMetrics, esIndexMetrics)
	if err != nil {
		return err
	}
	indices, err := s.resolve(index, p.IgnoreUnavailable, p.AllowNoIndices, p.ExpandWildcards)
	if err != nil {
		return err
	}
	search := s.core.SearchContextStats()
	var all indexSums
	per := orderedJSON{}
	shards, copies := 0, 0
	for _, idx := range indices {
		var sums indexSums
		for _, st := range s.core.ShardStats([]*searchcore.Index{idx}) {
			sums.add(st)
			shards++
			copies += 1 + idx.Settings().NumberOfReplicas
		}
		all.merge(sums)
		stats := sums.json(want, nil)
		per = append(per, kvPair{idx.Name(), orderedJSON{{"uuid", idx.UUID()}, {"primaries", stats}, {"total", stats}}})
	}
	allStats := all.json(want, &search)
	return writeJSON(c, http.StatusOK, orderedJSON{
		{"_shards", orderedJSON{{"total", copies}, {"successful", shards}, {"failed", 0}}},
		{"_all", orderedJSON{{"primaries", allStats}, {"total", allStats}}},
		{"indices", per},
	})
}
