//go:build tools

// This file pins the code generators used by `make generate` in go.mod; it is
// never compiled into the binary.
package quarry

import (
	_ "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"
)
