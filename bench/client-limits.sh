#!/usr/bin/env bash
# Ingest with client limits off and on, alternating, a fresh node each run: `on` has tiers far above the load, so
# every EVENT pays the accounting (the address's and the author's buckets) and none is refused. Then the cost of one
# check in process (bench/ClientLimitsCost.java).
# usage: bench/client-limits.sh [events] [rounds]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/meshnode" build
N="${1:-100000}"; ROUNDS="${2:-3}"
BIG="60000000000/60000000000/60000000000/1000000"
pid=""; DATA=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if [ -n "$DATA" ]; then rm -rf "$DATA" "$DATA.relay.log"; fi
  pid=""; DATA=""
}
trap cleanup EXIT
run() {
  DATA=$(mktemp -d)
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  env "$@" QUARKUS_HTTP_PORT=$PORT FLEETMESH_DATA_DIR="$DATA" "$ROOT/meshnode" relay > "$DATA.relay.log" 2>&1 &
  pid=$!
  until curl -sf "http://127.0.0.1:$PORT/q/health/ready" > /dev/null; do
    kill -0 "$pid" 2>/dev/null || { echo "the relay did not start:" >&2; cat "$DATA.relay.log" >&2; exit 1; }
    sleep 0.2
  done
  curl -s -H 'Accept: application/nostr+json' "http://127.0.0.1:$PORT/" \
    | python3 -c 'import json,sys; print("client limits enabled:", json.load(sys.stdin)["fleetmesh"]["client_limits"]["enabled"])'
  "$ROOT/meshnode" bench ingest --url "ws://127.0.0.1:$PORT/" --events "$N" --connections 8 --inflight 200
  cleanup
}
for round in $(seq 1 "$ROUNDS"); do
  echo "== round $round: off" >&2; run FLEETMESH_CLIENT_LIMITS=off
  echo "== round $round: on" >&2; run FLEETMESH_CLIENT_LIMITS=on FLEETMESH_CLIENTS_TIERS=$BIG
done
echo "== one check in process" >&2
java -cp "$ROOT/runtime/target/classes" "$ROOT/bench/ClientLimitsCost.java"
