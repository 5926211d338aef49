#!/usr/bin/env bash
# Rebuild of a wiped node by shard replication (docs/spec/replication.md), next to a plain `./meshnode sync` and an
# export/import of the same events. A holds N events of `bench corpus` (85 % kind 1, 15 % kind 7) and declares two
# shards, notes {"kinds":[1]} and reactions {"kinds":[7]}; B starts empty with the same shards and A as its peer
# (federate [], so only replication moves events). Timed: from B ready to B's two shards holding A's counts; the
# event bytes B took (its custody receipts of A); then `./meshnode sync ws://A --dir down` into a fresh data dir,
# and `export` from A + `import` into a fresh data dir.
# usage: bench/rebuild.sh [events]   (default 100000; KEEP=1 keeps the work dir and logs)
set -euo pipefail
export FLEETMESH_CLIENT_LIMITS=off
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/meshnode" build
N="${1:-100000}"
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
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(now)"; }

SHARDS='[{"id":"notes","filter":{"kinds":[1]},"mode":"asserted"},{"id":"reactions","filter":{"kinds":[7]},"mode":"replicated"}]'
# grants far above the load (tier 0 is 60 events a minute by default)
COMMON=(FLEETMESH_GRANTS_TIER_BYTES=50000000000,50000000000 FLEETMESH_GRANTS_TIER_EVENTS=1000000000,1000000000
  FLEETMESH_MESH_REDIAL_BASE=100ms FLEETMESH_MESH_REDIAL_CAP=1s FLEETMESH_FEDERATE='[]' FLEETMESH_SHARDS="$SHARDS")

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

# counts <port>: "<notes count> <reactions count>" from /mesh/status (None while an index builds)
counts() {
  curl -sf "http://127.0.0.1:$1/mesh/status" | python3 -c '
import json, sys
s = {x["id"]: x for x in json.load(sys.stdin).get("shards", [])}
print(s.get("notes", {}).get("count"), s.get("reactions", {}).get("count"))'
}

echo "== generating and importing $N events into A" >&2
"$ROOT/meshnode" bench corpus --events "$N" > "$WORK/corpus.jsonl"
A="$WORK/a"; mkdir -p "$A"
FLEETMESH_DATA_DIR="$A" "$ROOT/meshnode" import < "$WORK/corpus.jsonl" > /dev/null
PA=$(free_port)
start_node "$A" "$PA" "$WORK/a.log"
until [ "$(counts "$PA" | grep -c None)" = 0 ]; do sleep 0.2; done
WANT=$(counts "$PA")
ADID=$(curl -sf "http://127.0.0.1:$PA/mesh/status" | python3 -c 'import json,sys; print(json.load(sys.stdin)["did"])')
echo "A holds notes, reactions: $WANT" >&2

echo "== rebuild: B starts empty with the same shards" >&2
B="$WORK/b"; mkdir -p "$B"
PB=$(free_port)
t0=$(now)
start_node "$B" "$PB" "$WORK/b.log" FLEETMESH_PEERS="$ADID@ws://127.0.0.1:$PA/mesh"
ready=$(since "$t0")
t1=$(now)
until [ "$(counts "$PB")" = "$WANT" ]; do sleep 0.2; done
rebuild=$(since "$t1")
BDID=$(curl -sf "http://127.0.0.1:$PB/mesh/status" | python3 -c 'import json,sys; print(json.load(sys.stdin)["did"])')
bytes=$(FLEETMESH_DATA_DIR="$B" "$ROOT/meshnode" receipts export --peer "$ADID" --side received | tail -1 | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())["receipt"]
print(next(t[1] for t in r["tags"] if t[0] == "bytes"))')
passes=$(grep -c "replication of shard" "$WORK/b.log" || true)
echo "MEASURE rebuild by replication: $N events (2 shards) in $rebuild s after B was ready ($ready s start), $bytes event bytes in custody receipts, $passes pass log lines"

echo "== ./meshnode sync ws://A --dir down into a fresh data dir" >&2
C="$WORK/c"; mkdir -p "$C"
t2=$(now)
FLEETMESH_DATA_DIR="$C" "$ROOT/meshnode" sync "ws://127.0.0.1:$PA/" --dir down > "$WORK/sync.out" 2>&1
echo "MEASURE plain sync: $N events in $(since "$t2") s ($(tail -1 "$WORK/sync.out"))"

kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true; pids=("${pids[@]:1}")
echo "== export from A, import into a fresh data dir" >&2
t3=$(now)
FLEETMESH_DATA_DIR="$A" "$ROOT/meshnode" export > "$WORK/export.jsonl"
exp=$(since "$t3")
D="$WORK/d"; mkdir -p "$D"
t4=$(now)
FLEETMESH_DATA_DIR="$D" "$ROOT/meshnode" import < "$WORK/export.jsonl" > /dev/null
echo "MEASURE export + import: $N events, export $exp s + import $(since "$t4") s, $(wc -c < "$WORK/export.jsonl") bytes of JSONL"
