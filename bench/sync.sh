#!/usr/bin/env bash
# NIP-77 sync between two nodes on loopback: node A holds N events, node B the same minus 1 %
# (every 100th event, scattered). Times `./meshnode sync ws://A --dir down` run against B's data
# dir until B holds everything, then a second, idempotent run (nothing to move).
# usage: bench/sync.sh [events]   (default 1,000,000; corpus and both stores are cached under $BENCH_DIR)
#        bench/sync.sh prepare [events]   only generate and import (slow: two imports)
set -euo pipefail
# the load comes from one address (127.0.0.1): client limits off unless the caller says otherwise
export FLEETMESH_CLIENT_LIMITS="${FLEETMESH_CLIENT_LIMITS:-off}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREPARE_ONLY=0
if [ "${1:-}" = prepare ]; then PREPARE_ONLY=1; shift; fi
N="${1:-1000000}"
WORK="${BENCH_DIR:-/tmp/fleetmesh-bench}/sync-$N"
mkdir -p "$WORK"
if [ ! -d "$WORK/app" ]; then
  "$ROOT/meshnode" build
  cp -r "$ROOT/meshnode-app/target/quarkus-app" "$WORK/app"
fi
export MESHNODE_APP="$WORK/app"
if [ ! -f "$WORK/prepared" ]; then
  rm -rf "$WORK/a" "$WORK/b"
  echo "generating $N events ..." >&2
  "$ROOT/meshnode" bench corpus --events "$N" > "$WORK/corpus.jsonl"
  awk 'NR % 100 != 0' "$WORK/corpus.jsonl" > "$WORK/corpus-b.jsonl"
  echo "importing into A and B ..." >&2
  FLEETMESH_DATA_DIR="$WORK/a" "$ROOT/meshnode" import < "$WORK/corpus.jsonl" > "$WORK/import-a.json"
  FLEETMESH_DATA_DIR="$WORK/b" "$ROOT/meshnode" import < "$WORK/corpus-b.jsonl" > "$WORK/import-b.json"
  touch "$WORK/prepared"
fi
[ "$PREPARE_ONLY" = 1 ] && exit 0
# work on copies so that the benchmark can be repeated from the same starting point
rm -rf "$WORK/run-a" "$WORK/run-b"
cp -a "$WORK/a" "$WORK/run-a"
cp -a "$WORK/b" "$WORK/run-b"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PA=$(free_port)
PB=$(free_port)
QUARKUS_HTTP_PORT=$PA FLEETMESH_DATA_DIR="$WORK/run-a" "$ROOT/meshnode" relay > "$WORK/relay-a.log" 2>&1 &
pa=$!
QUARKUS_HTTP_PORT=$PB FLEETMESH_DATA_DIR="$WORK/run-b" "$ROOT/meshnode" relay > "$WORK/relay-b.log" 2>&1 &
pb=$!
trap 'kill $pa $pb 2>/dev/null; wait $pa $pb 2>/dev/null || true' EXIT
until curl -sf "http://127.0.0.1:$PA/q/health/ready" > /dev/null && curl -sf "http://127.0.0.1:$PB/q/health/ready" > /dev/null; do sleep 0.2; done
# let A finish building its live Negentropy index (logged) before timing
until grep -q "negentropy index" "$WORK/relay-a.log"; do sleep 0.5; done
grep -o "negentropy index.*" "$WORK/relay-a.log" | tail -1 >&2
for run in "1: B lacks 1 %" "2: already converged"; do
  echo "--- sync $run" >&2
  /usr/bin/time -f '{"wall_seconds":%e,"user_cpu_seconds":%U,"sys_cpu_seconds":%S}' \
    env FLEETMESH_DATA_DIR="$WORK/run-b" "$ROOT/meshnode" sync "ws://127.0.0.1:$PA/" --dir down 2>&1 | tail -2
done
# the same converged sync on a filter A has no live index for: A reads and sorts the 1M events per session
echo '--- sync 3: already converged, filter {"since":0} (not registered: per-session snapshot on A)' >&2
/usr/bin/time -f '{"wall_seconds":%e,"user_cpu_seconds":%U,"sys_cpu_seconds":%S}' \
  env FLEETMESH_DATA_DIR="$WORK/run-b" "$ROOT/meshnode" sync "ws://127.0.0.1:$PA/" --dir down --filter '{"since":0}' 2>&1 | tail -2
