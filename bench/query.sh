#!/usr/bin/env bash
# REQ latency (p50/p99, REQ -> EOSE over a WebSocket) on a large store.
# usage: bench/query.sh [events]   builds a deterministic corpus of N events (default 1,000,000),
# imports it into a fresh data dir (reused on later runs), starts a node and times the filter shapes.
set -euo pipefail
# the load comes from one address (127.0.0.1): client limits off unless the caller says otherwise
export FLEETMESH_CLIENT_LIMITS="${FLEETMESH_CLIENT_LIMITS:-off}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/meshnode" build  # build first (not inside the background relay) when missing or stale
N="${1:-1000000}"
WORK="${BENCH_DIR:-/tmp/fleetmesh-bench}/query-$N"
mkdir -p "$WORK"
if [ ! -f "$WORK/imported" ]; then
  rm -rf "$WORK/data"
  echo "generating $N events ..." >&2
  "$ROOT/meshnode" bench corpus --events "$N" > "$WORK/corpus.jsonl"
  echo "importing ..." >&2
  /usr/bin/time -f '{"import_seconds":%e}' env FLEETMESH_DATA_DIR="$WORK/data" "$ROOT/meshnode" import < "$WORK/corpus.jsonl"
  touch "$WORK/imported"
fi
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
QUARKUS_HTTP_PORT=$PORT FLEETMESH_DATA_DIR="$WORK/data" "$ROOT/meshnode" relay > "$WORK/relay.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
until curl -sf "http://127.0.0.1:$PORT/q/health/ready" > /dev/null; do sleep 0.1; done
"$ROOT/meshnode" bench query --url "ws://127.0.0.1:$PORT/" --runs "${RUNS:-200}"
