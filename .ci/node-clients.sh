#!/usr/bin/env bash
# Runs the official @elastic/elasticsearch 7.17, @elastic/app-search-node 8.3.2
# and @elastic/enterprise-search 8.18.0 (client.app) Node client tests
# (.ci/clients/node) against a freshly built quarry on a free port with a
# scratch data folder.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tests="$root/.ci/clients/node"
if [ ! -d "$tests/node_modules/@elastic/elasticsearch" ] || [ ! -d "$tests/node_modules/@elastic/app-search-node" ] || [ ! -d "$tests/node_modules/@elastic/enterprise-search" ]; then
  (cd "$tests" && npm ci --no-audit --no-fund --silent)
fi

mkdir -p "$root/bin"
go build -o "$root/bin/quarry" "$root/cmd/quarry"
data="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
cluster=node-clients
# Security is on by default: start with a known elastic password and pass
# it in the URL (the client sends it as basic auth).
password="node-clients-pw"
ELASTIC_PASSWORD="$password" "$root/bin/quarry" -E http.port="$port" -E path.data="$data" -E log.level=warn -E cluster.name="$cluster" >"$data/quarry.log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT
up=0
for _ in $(seq 1 100); do
  if curl -fsS -u "elastic:$password" "http://127.0.0.1:$port/_cluster/health" >/dev/null 2>&1; then up=1; break; fi
  sleep 0.1
done
if [ $up -ne 1 ]; then
  echo "quarry did not answer on port $port" >&2
  tail -n 40 "$data/quarry.log" >&2
  exit 1
fi

status=0
QUARRY_URL="http://elastic:$password@127.0.0.1:$port" QUARRY_PLAIN_URL="http://127.0.0.1:$port" QUARRY_ELASTIC_PASSWORD="$password" QUARRY_CLUSTER_NAME="$cluster" node --test "$tests/" || status=$?
if [ $status -ne 0 ]; then
  echo "--- server log (tail) ---"
  tail -n 40 "$data/quarry.log"
fi
exit $status
