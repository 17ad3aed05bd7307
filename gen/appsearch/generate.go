// Package appsearch holds the code generated from openapi/appsearch.yaml: the
// echo ServerInterface of the App Search API (served under /api/as/v1), its
// models and the embedded spec (GetSwagger). Do not edit appsearch.gen.go; edit
// the spec and run `make generate`.
package appsearch

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen --config=cfg.yaml ../../openapi/appsearch.yaml
