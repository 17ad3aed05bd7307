package handlers

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/quarry-search/quarry/gen/cluster"
	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/security"
)

func (s *Server) license() security.License {
	return security.NodeLicense(s.core.ClusterUUID(), s.core.ClusterName())
}

// LicenseGet answers GET /_license.
func (s *Server) LicenseGet(c echo.Context, p cluster.LicenseGetParams) error {
	l := s.license()
	typ, maxNodes, units := l.Reported(boolParam(p.AcceptEnterprise, false))
	body := orderedJSON{
		{"status", l.Status},
		{"uid", l.UID},
		{"type", typ},
		{"issue_date", l.IssueDate.Format("2006-01-02T15:04:05.000Z")},
		{"issue_date_in_millis", l.IssueDate.UnixMilli()},
		{"max_nodes", maxNodes},
	}
	if units != nil {
		body = append(body, kvPair{"max_resource_units", units})
	}
	body = append(body,
		kvPair{"issued_to", l.IssuedTo},
		kvPair{"issuer", l.Issuer},
		kvPair{"start_date_in_millis", -1},
	)
	return writeJSON(c, http.StatusOK, orderedJSON{{"license", body}})
}

// extFeatures are the features GET /_ext/ reports.
var extFeatures = []string{"ccr", "enrich", "graph", "ilm", "logstash", "ml", "monitoring", "rollup", "security", "slm", "sql", "transform", "voting_only", "watcher"}

// ExtInfo answers GET /_ext/: build, licence (the real type: the 7.8.1
// platinum mapping does not apply here) and features.
func (s *Server) ExtInfo(c echo.Context, p cluster.ExtInfoParams) error {
	want := map[string]bool{"build": true, "license": true, "features": true}
	if cats := str(p.Categories); cats != "" {
		want = map[string]bool{}
		for _, cat := range strings.Split(cats, ",") {
			switch cat = strings.TrimSpace(cat); cat {
			case "build", "license", "features":
				want[cat] = true
			case "_none":
			default:
				return searchcore.IllegalArgument("unknown category [%s]. valid categories are [build, license, features]", cat)
			}
		}
	}
	out := orderedJSON{}
	if want["build"] {
		out = append(out, kvPair{"build", orderedJSON{{"hash", buildHash}, {"date", "2026-11-01T00:00:00.000000000Z"}}})
	}
	if want["license"] {
		l := s.license()
		out = append(out, kvPair{"license", orderedJSON{{"uid", l.UID}, {"type", l.Type}, {"mode", l.Type}, {"status", l.Status}}})
	}
	if want["features"] {
		f := orderedJSON{}
		for _, name := range extFeatures {
			enabled := true
			switch name {
			case "security":
				enabled = s.sec != nil
			case "ml", "watcher", "ccr", "graph", "rollup", "sql", "logstash":
				enabled = false
			}
			f = append(f, kvPair{name, orderedJSON{{"available", enabled || name == "security"}, {"enabled", enabled}}})
		}
		out = append(out, kvPair{"features", f})
	}
	out = append(out, kvPair{"tagline", "You know, for X"})
	return writeJSON(c, http.StatusOK, out)
}
