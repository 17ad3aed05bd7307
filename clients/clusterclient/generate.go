// Package clusterclient is the typed Go client of Quarry's Elasticsearch-compatible
// cluster API, generated from openapi/cluster.yaml. Do not edit
// clusterclient.gen.go; edit the spec and run `make generate`.
package clusterclient

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen --config=cfg.yaml ../../openapi/cluster.yaml
