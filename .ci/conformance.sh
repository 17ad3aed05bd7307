#!/usr/bin/env bash
# Runs the Elasticsearch YAML REST conformance tests (../shared/conformance)
# against a freshly built quarry on a free port with a scratch data folder.
# Folders come from .ci/conformance-folders.txt (or the arguments); tests
# listed in .ci/conformance-skip.txt are skipped with the reason beside them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
suite="${CONFORMANCE_DIR:-$root/../shared/conformance}"
if [ ! -d "$suite/tests" ]; then
  echo "conformance suite not found at $suite" >&2
  exit 1
fi
cache="${XDG_CACHE_HOME:-$HOME/.cache}/quarry/conformance-runner"
mkdir -p "$cache"
# The shared folder is read-only: install the runner's one dependency in a cache.
cp "$suite/runner/package.json" "$suite/runner/package-lock.json" "$suite/runner/runner.js" "$cache/"
if [ ! -d "$cache/node_modules/js-yaml" ]; then
  (cd "$cache" && npm ci --no-audit --no-fund --silent)
fi

folders=("$@")
if [ ${#folders[@]} -eq 0 ]; then
  mapfile -t folders < <(grep -v '^\s*#' "$root/.ci/conformance-folders.txt" | sed '/^\s*$/d')
fi

mkdir -p "$root/bin"
go build -o "$root/bin/quarry" "$root/cmd/quarry"
data="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
# Security is on by default: the elastic user's password comes from
# ELASTIC_PASSWORD at first start and the runner sends it with --user.
password="conformance-pw"
ELASTIC_PASSWORD="$password" "$root/bin/quarry" -E http.port="$port" -E path.data="$data" -E log.level=warn -E cluster.name=conformance -E node.attr.testattr=test >"$data/quarry.log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT
for _ in $(seq 1 100); do
  if curl -fsS -u "elastic:$password" "http://127.0.0.1:$port/_cluster/health" >/dev/null 2>&1; then break; fi
  sleep 0.1
done

args=()
for f in "${folders[@]}"; do args+=(--tests "$suite/tests/$f"); done
filter=()
skips=$( (grep -v "^\s*#" "$root/.ci/conformance-skip.txt" 2>/dev/null || true) | sed "/^\s*$/d" | cut -d"|" -f1 | sed "s/[[:space:]]*$//" | sed "s/[][\.*^$()+?{}|/]/\\\\&/g" | paste -sd"|" -)
if [ -n "$skips" ]; then filter=(--filter "^(?!.*($skips))"); fi
status=0
node "$cache/runner.js" --url "http://127.0.0.1:$port" --user "elastic:$password" --api "$suite/api" "${args[@]}" "${filter[@]}" --quiet || status=$?
if [ $status -ne 0 ]; then
  echo "--- server log (tail) ---"
  tail -n 40 "$data/quarry.log"
fi
exit $status
