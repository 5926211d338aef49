#!/usr/bin/env bash
# Sustained ingest over WebSocket: N pre-signed events from C connections with F in flight each,
# OK true counted, against a node on a fresh data dir; prints the single-core BIP-340 rate too.
# Two cases in one run, each on a fresh node: no subscriber, then S live subscriptions over K more
# connections, a fraction M of them matching (each matching one sees a fiftieth of the events).
# usage: bench/ingest.sh [events] [connections] [inflight] [subscribers] [subscriber-connections] [matching]
set -euo pipefail
# the load comes from one address (127.0.0.1): client limits off unless the caller says otherwise
export FLEETMESH_CLIENT_LIMITS="${FLEETMESH_CLIENT_LIMITS:-off}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/meshnode" build  # build first (not inside the background relay) when missing or stale
N="${1:-200000}"; C="${2:-8}"; F="${3:-200}"; S="${4:-1000}"; K="${5:-100}"; M="${6:-0.1}"
pid=""; DATA=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if [ -n "$DATA" ]; then rm -rf "$DATA" "$DATA.relay.log"; fi
  pid=""; DATA=""
}
trap cleanup EXIT

# one case: a fresh node, the driver with the given extra options, the node's readiness counters
run_case() {
  DATA=$(mktemp -d)
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  QUARKUS_HTTP_PORT=$PORT FLEETMESH_DATA_DIR="$DATA" "$ROOT/meshnode" relay > "$DATA.relay.log" 2>&1 &
  pid=$!
  until curl -sf "http://127.0.0.1:$PORT/q/health/ready" > /dev/null; do
    kill -0 "$pid" 2>/dev/null || { echo "the relay did not start:" >&2; cat "$DATA.relay.log" >&2; exit 1; }
    sleep 0.1
  done
  "$ROOT/meshnode" bench ingest --url "ws://127.0.0.1:$PORT/" --events "$N" --connections "$C" --inflight "$F" "$@"
  # the relay's write counters (group commit) from its readiness check
  curl -s "http://127.0.0.1:$PORT/q/health/ready" | python3 -c 'import json,sys
for c in json.load(sys.stdin)["checks"]:
    if "committed_events" in c.get("data", {}): print(json.dumps(c["data"]))'
  cleanup
}

echo "== no subscribers" >&2
run_case
echo "== $S live subscriptions over $K connections, $M matching" >&2
run_case --subscribers "$S" --subscriber-connections "$K" --matching "$M"
