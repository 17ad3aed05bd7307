package appsearch

import (
	"fmt"
	"strings"
)

// fmtSscan reads "lat,lon".
func fmtSscan(p string, lat, lon *float64) (int, error) {
	return fmt.Sscan(strings.Replace(p, ",", " ", 1), lat, lon)
}
