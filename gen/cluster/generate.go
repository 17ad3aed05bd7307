// Package cluster holds the code generated from openapi/cluster.yaml: the echo
// ServerInterface of the Elasticsearch-compatible cluster API, its models and
// the embedded spec (GetSwagger). Do not edit cluster.gen.go; edit the spec and
// run `make generate`.
package cluster

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen --config=cfg.yaml ../../openapi/cluster.yaml
