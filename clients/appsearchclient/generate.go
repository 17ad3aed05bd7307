// Package appsearchclient is the typed Go client of Quarry's App Search API,
// generated from openapi/appsearch.yaml. Create it with the base URL including
// the API prefix: NewClient("http://127.0.0.1:9200/api/as/v1"). Do not edit
// appsearchclient.gen.go; edit the spec and run `make generate`.
package appsearchclient

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen --config=cfg.yaml ../../openapi/appsearch.yaml
