# Quarry — build, generation and test entry points.
GO  ?= go
BIN ?= bin/quarry

.PHONY: all generate check-generate build run test conformance bench vet

all: build

# Regenerate the echo server interfaces (gen/) and the typed clients (clients/)
# from openapi/*.yaml with the oapi-codegen version pinned in go.mod (tools.go).
generate:
	$(GO) generate ./gen/... ./clients/...

# CI: fail when the committed generated code is not what the specs produce
# (modified files, or new generated files that are not committed yet).
check-generate: generate
	git diff --exit-code -- gen clients
	@untracked="$$(git ls-files --others --exclude-standard -- gen clients)"; \
	if [ -n "$$untracked" ]; then echo "untracked generated files:"; echo "$$untracked"; exit 1; fi

build:
	$(GO) build -o $(BIN) ./cmd/quarry

# One node on 127.0.0.1:9200 with data under ./data (the binary's defaults).
# On a fresh ./data the elastic superuser's password is ELASTIC_PASSWORD,
# "changeme" unless set (a development default; the binary alone generates one).
run: build
	ELASTIC_PASSWORD="$${ELASTIC_PASSWORD:-changeme}" ./$(BIN)

test:
	$(GO) test ./...
	$(MAKE) conformance
	bash .ci/node-clients.sh

# Elasticsearch YAML REST tests against a freshly built server.
conformance: build
	bash .ci/conformance.sh

# The issue #9 benchmark (ceiling, HTTP ingest, queries, footprint; verdict
# per target, raw figures in bin/bench.json), then the micro-benchmarks.
# BENCHFLAGS passes options, e.g. BENCHFLAGS=-quick.
bench: build
	$(GO) build -o bin/quarry-bench ./cmd/quarry-bench
	./bin/quarry-bench -quarry $(BIN) $(BENCHFLAGS)
	$(GO) test -run '^$$' -bench . -benchmem ./...

vet:
	$(GO) vet ./...
