package handlers

import (
	"strings"

	"github.com/labstack/echo/v4"
)

// deprecationWarning adds Elasticsearch's deprecation header
// (`Warning: 299 Elasticsearch-7.17.0-<build> "message"`) to the response
// and logs the message to the deprecation logger.
func (s *Server) deprecationWarning(c echo.Context, msg string) {
	quoted := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(msg)
	c.Response().Header().Add("Warning", `299 Elasticsearch-`+Version+`-`+buildHash+` "`+quoted+`"`)
	s.log.Warn(msg, "logger", "deprecation", "path", c.Request().URL.Path)
}
