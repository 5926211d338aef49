#!/usr/bin/env bash
# Receipted forwarding between two nodes on loopback (docs/spec/delivery.md). A is pre-loaded with N kind 1 events
# (signed by `bench ingest` into a seed node once, exported, then imported into each fresh A); B federates
# [{"kinds":[1]}] from A. For frame sizes 1, 10, 100, 1000, with receipts on and off in the same run (alternating, a
# fresh pair each case), the throughput is N / (time from the link coming up to A's queue for B reaching 0). Then
# the end-to-end latency EVENT at A -> live at B, p50/p99 (bench/DeliveryLatency.java).
# usage: bench/delivery.sh [events] [frame sizes, comma-separated] [latency events]   (KEEP=1 keeps the work dir and logs)
set -euo pipefail
export FLEETMESH_CLIENT_LIMITS=off
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/meshnode" build
APP="${MESHNODE_APP:-$ROOT/meshnode-app/target/quarkus-app}"
CP="$APP/lib/boot/*:$APP/lib/main/*:$APP/app/*"
N="${1:-50000}"; FRAMES="${2:-1,10,100,1000}"; LAT="${3:-200}"
WORK=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]:-}"; do
    if [ -n "$p" ]; then kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; fi
  done
  pids=()
  if [ -n "${KEEP:-}" ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# grants far above the load, frames up to 1000 events (about 350 KB here: a link message is at most 2 MiB, what
# either side of a link reads), a send budget that holds 16 such frames in flight
COMMON=(FLEETMESH_GRANTS_TIER_BYTES=50000000000,50000000000 FLEETMESH_GRANTS_TIER_EVENTS=1000000000,1000000000
  FLEETMESH_GRANTS_MAX_FRAME_EVENTS=1000 FLEETMESH_GRANTS_MAX_FRAME_BYTES=2097152 FLEETMESH_MESH_SEND_BUDGET=268435456
  FLEETMESH_DELIVERY_FRAME_BYTES=1048576 FLEETMESH_MESH_REDIAL_BASE=100ms FLEETMESH_MESH_REDIAL_CAP=1s)

# start_node <dir> <port> <log> [VAR=value ...]: a node in the background, its pid appended to pids, ready
start_node() {
  local dir="$1" port="$2" log="$3"; shift 3
  env "${COMMON[@]}" "$@" QUARKUS_HTTP_PORT="$port" QUARKUS_HTTP_HOST=127.0.0.1 FLEETMESH_DATA_DIR="$dir" \
    "$ROOT/meshnode" relay > "$log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  until curl -sf "http://127.0.0.1:$port/q/health/ready" > /dev/null; do
    kill -0 "$pid" 2>/dev/null || { echo "a node did not start:" >&2; tail -40 "$log" >&2; exit 1; }
    sleep 0.1
  done
}

stop_all() {
  for p in "${pids[@]:-}"; do
    if [ -n "$p" ]; then kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; fi
  done
  pids=()
}

did_of() { curl -sf "http://127.0.0.1:$1/mesh/status" | python3 -c 'import json,sys; print(json.load(sys.stdin)["did"])'; }

# peer_field <port> <peer did> <python expression over p, the peer's status entry>
peer_field() {
  curl -sf "http://127.0.0.1:$1/mesh/status" | python3 -c '
import json, sys
s = json.load(sys.stdin)
for p in s["peers"]:
    if p["did"] == sys.argv[1]:
        print(eval(sys.argv[2]))
        break
else:
    print("none")' "$2" "$3"
}

echo "== signing and exporting $N events once" >&2
SEED="$WORK/seed"; mkdir -p "$SEED"; PORT=$(free_port)
start_node "$SEED" "$PORT" "$WORK/seed.log"
"$ROOT/meshnode" bench ingest --url "ws://127.0.0.1:$PORT/" --events "$N" --connections 4 --inflight 200 >&2
stop_all
FLEETMESH_DATA_DIR="$SEED" "$ROOT/meshnode" export > "$WORK/events.jsonl"
grep -c '"kind":1,' "$WORK/events.jsonl" >&2 || true

# run_case <frame events> <receipts true|false>: prints one result line
run_case() {
  local frame="$1" receipts="$2"
  local A="$WORK/a-$frame-$receipts" B="$WORK/b-$frame-$receipts"
  mkdir -p "$A" "$B"
  FLEETMESH_DATA_DIR="$A" "$ROOT/meshnode" import < "$WORK/events.jsonl" > /dev/null 2> "$WORK/import.log" \
    || { cat "$WORK/import.log" >&2; exit 1; }
  local pa pb; pa=$(free_port)
  start_node "$A" "$pa" "$A.log" FLEETMESH_FEDERATE='[]' FLEETMESH_DELIVERY_FRAME_EVENTS="$frame" \
    FLEETMESH_DELIVERY_RECEIPTS="$receipts"
  local adid; adid=$(did_of "$pa")
  pb=$(free_port)
  start_node "$B" "$pb" "$B.log" FLEETMESH_FEDERATE='[{"kinds":[1]}]' FLEETMESH_DELIVERY_RECEIPTS="$receipts" \
    FLEETMESH_DELIVERY_FRAME_EVENTS="$frame" FLEETMESH_PEERS="$adid@ws://127.0.0.1:$pa/mesh"
  local bdid; bdid=$(did_of "$pb")
  until [ "$(peer_field "$pa" "$bdid" 'p["state"]')" = up ]; do sleep 0.02; done
  local t0; t0=$(date +%s.%N)
  local q
  while true; do
    q=$(peer_field "$pa" "$bdid" 'p.get("queue")')
    [ "$q" = 0 ] && break
    local halted; halted=$(peer_field "$pa" "$bdid" '(p.get("custody") or {}).get("halted")')
    if [ "$halted" != None ] && [ "$halted" != none ]; then  # none: b is not linked right now (it redials)
      echo "forwarding halted: $(peer_field "$pa" "$bdid" 'p.get("custody")')" >&2; exit 1
    fi
    sleep 0.05
  done
  local t1; t1=$(date +%s.%N)
  local sent; sent=$(peer_field "$pa" "$bdid" '(p.get("custody") or {}).get("sent")')
  python3 -c "import sys; n=int(sys.argv[1]); dt=float(sys.argv[3])-float(sys.argv[2]); print(f'frame-events {sys.argv[4]:>4}  receipts {sys.argv[5]:<5}  {n} events in {dt:.2f} s: {n/dt:,.0f} events/s  (sent tree: {sys.argv[6]})')" \
    "$N" "$t0" "$t1" "$frame" "$receipts" "$sent"
  if [ "$frame" = "${FRAMES##*,}" ] && [ "$receipts" = true ]; then
    echo "== latency (frame-events $frame, receipts on)" >&2
    java -cp "$CP" "$ROOT/bench/DeliveryLatency.java" "ws://127.0.0.1:$pa/" "ws://127.0.0.1:$pb/" "$LAT"
  fi
  stop_all
  rm -rf "$A" "$B" "$A.log" "$B.log"
}

IFS=, read -r -a SIZES <<< "$FRAMES"
for f in "${SIZES[@]}"; do
  echo "== frame-events $f: receipts on, then off" >&2
  run_case "$f" true
  run_case "$f" false
done
