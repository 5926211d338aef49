#!/usr/bin/env bash
# Sustained ingest over WebSocket: N pre-signed events from C connections with F in flight each,
# OK true counted, against a node on a fresh data dir; prints the single-core BIP-340 rate too.
# usage: bench/ingest.sh [events] [connections] [inflight]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/meshnode" build  # build first (not inside the background relay) when missing or stale
N="${1:-200000}"; C="${2:-8}"; F="${3:-200}"
DATA=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
QUARKUS_HTTP_PORT=$PORT FLEETMESH_DATA_DIR="$DATA" "$ROOT/meshnode" relay > "$DATA.relay.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null || true; rm -rf "$DATA"' EXIT
until curl -sf "http://127.0.0.1:$PORT/q/health/ready" > /dev/null; do sleep 0.1; done
"$ROOT/meshnode" bench ingest --url "ws://127.0.0.1:$PORT/" --events "$N" --connections "$C" --inflight "$F"
curl -s "http://127.0.0.1:$PORT/q/health/ready" | tr -d ' \n' | sed 's/.*"data":\({[^}]*}\).*/\1\n/'
