#!/usr/bin/env bash
# Rebuilding a wiped node from its peers (docs/OPERATING.md, "Keys backup and restore"), next to the other ways to
# refill an empty node. Three nodes A, B, C hold the same N events (the `bench corpus`: 85 % kind 1, 15 % kind 7)
# and declare 4 shards over them (kind 1 / kind 7, each split at the median created_at); C links to A and B. Then
#   1. rebuild: C's keys exported, C killed (SIGKILL), its data dir wiped, the keys imported, C started again: the time
#      from its start to its 4 claims equalling A's, and the bytes its mesh links carried (in + out, from
#      fleetmesh_mesh_peer_bytes_total);
#   2. sync: `./meshnode sync ws://A --dir down` into an empty data dir (NIP-77; bytes through a counting proxy);
#   3. export/import: `./meshnode export` at A into a file, `./meshnode import` of it into an empty data dir (bytes:
#      the file).
#   4. steady state (last, so that 1-3 see the same N events): live writes into A at R events/s for S seconds
#      (bench/LiveWrites.java), replication only: link bytes per event and copy (all three nodes'
#      fleetmesh_mesh_peer_bytes_total / 2) and each node's CPU;
# usage: bench/restore.sh [events] [live rate] [live seconds]   (default 1,000,000, 1000, 60; corpus and stores cached
#        under $BENCH_DIR; KEEP=1 keeps logs)
set -euo pipefail
export FLEETMESH_CLIENT_LIMITS="${FLEETMESH_CLIENT_LIMITS:-off}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
N="${1:-1000000}"; RATE="${2:-1000}"; LIVE="${3:-60}"
WORK="${BENCH_DIR:-/tmp/fleetmesh-bench}/restore-$N"
mkdir -p "$WORK"
if [ ! -d "$WORK/app" ]; then
  "$ROOT/meshnode" build
  cp -r "$ROOT/meshnode-app/target/quarkus-app" "$WORK/app"
fi
export MESHNODE_APP="$WORK/app"
M="$ROOT/meshnode"
pids=()
cleanup() {
  for p in "${pids[@]:-}"; do
    if [ -n "$p" ]; then kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; fi
  done
  if [ -z "${KEEP:-}" ]; then rm -rf "$WORK"/run-* "$WORK"/*.log "$WORK"/backup.json "$WORK"/export.jsonl; fi
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
now() { date +%s.%N; }

if [ ! -f "$WORK/prepared" ]; then
  rm -rf "$WORK/a"
  echo "generating $N events ..." >&2
  "$M" bench corpus --events "$N" > "$WORK/corpus.jsonl"
  echo "importing into A (B and C are copies with their own keys) ..." >&2
  FLEETMESH_DATA_DIR="$WORK/a" "$M" import < "$WORK/corpus.jsonl" > /dev/null
  rm -rf "$WORK/a/keys"
  python3 -c '
import json, sys
ts = sorted(json.loads(l)["created_at"] for l in open(sys.argv[1]))
print(ts[len(ts) // 2])' "$WORK/corpus.jsonl" > "$WORK/median"
  touch "$WORK/prepared"
fi
MID=$(cat "$WORK/median")
SHARDS="[{\"id\":\"notes-old\",\"filter\":{\"kinds\":[1],\"until\":$MID},\"mode\":\"asserted\"},
{\"id\":\"notes-new\",\"filter\":{\"kinds\":[1],\"since\":$((MID + 1))},\"mode\":\"asserted\"},
{\"id\":\"reactions-old\",\"filter\":{\"kinds\":[7],\"until\":$MID},\"mode\":\"replicated\"},
{\"id\":\"reactions-new\",\"filter\":{\"kinds\":[7],\"since\":$((MID + 1))},\"mode\":\"replicated\"}]"
SHARDS=$(echo "$SHARDS" | tr -d '\n')
rm -rf "$WORK"/run-*
for n in a b c; do cp -a "$WORK/a" "$WORK/run-$n"; done # the embedded cluster is stopped: a plain copy
COMMON=(FLEETMESH_GRANTS_TIER_BYTES=50000000000,50000000000 FLEETMESH_GRANTS_TIER_EVENTS=1000000000,1000000000
  FLEETMESH_MESH_REDIAL_BASE=200ms FLEETMESH_MESH_REDIAL_CAP=2s FLEETMESH_FEDERATE='[]' FLEETMESH_SHARDS="$SHARDS"
  FLEETMESH_SHARDS_CLAIM_INTERVAL=2s FLEETMESH_REPLICATION_INTERVAL=10s)

# start_node <name> <port> [VAR=value ...]: a node in the background, its pid in pids[<index>], ready
declare -A PID
start_node() {
  local name="$1" port="$2"; shift 2
  env "${COMMON[@]}" "$@" QUARKUS_HTTP_PORT="$port" QUARKUS_HTTP_HOST=127.0.0.1 FLEETMESH_DATA_DIR="$WORK/run-$name" \
    "$M" relay >> "$WORK/$name.log" 2>&1 &
  PID[$name]=$!
  pids+=("$!")
  until curl -sf "http://127.0.0.1:$port/q/health/ready" > /dev/null; do
    kill -0 "${PID[$name]}" 2>/dev/null || { echo "$name did not start:" >&2; tail -40 "$WORK/$name.log" >&2; exit 1; }
    sleep 0.2
  done
}
did_of() { curl -sf "http://127.0.0.1:$1/mesh/status" | python3 -c 'import json,sys; print(json.load(sys.stdin)["did"])'; }
# claimed <port>: the figures the node's latest claims state (what a peer would read), sorted
claimed() {
  curl -sf "http://127.0.0.1:$1/mesh/status" | python3 -c '
import json, sys
for s in sorted(json.load(sys.stdin).get("shards", []), key=lambda s: s["id"]):
    print(s["id"], s["count"], s["fingerprint"], s["root"])'
}
mesh_bytes() {
  curl -sf "http://127.0.0.1:$1/q/metrics" | awk '/^fleetmesh_mesh_peer_bytes_total/ { s += $2 } END { printf "%d\n", s }'
}

PA=$(free_port); PB=$(free_port); PC=$(free_port)
start_node a "$PA"; ADID=$(did_of "$PA")
start_node b "$PB" FLEETMESH_PEERS="$ADID@ws://127.0.0.1:$PA/mesh"; BDID=$(did_of "$PB")
start_node c "$PC" FLEETMESH_PEERS="$ADID@ws://127.0.0.1:$PA/mesh,$BDID@ws://127.0.0.1:$PB/mesh"
echo "== waiting for the three nodes' shard figures to agree" >&2
until [ "$(claimed "$PA")" = "$(claimed "$PC")" ] && [ "$(claimed "$PA")" = "$(claimed "$PB")" ] \
  && [ "$(claimed "$PA" | awk '{ s += $2 } END { print s }')" = "$N" ]; do sleep 1; done
claimed "$PA" >&2

echo "== 1. rebuild of a wiped C from A and B" >&2
FLEETMESH_DATA_DIR="$WORK/run-c" "$M" keys export "$WORK/backup.json" > /dev/null
kill -9 "${PID[c]}"; wait "${PID[c]}" 2>/dev/null || true
# the killed node's embedded postmaster survives it: stop it before wiping its data
pg=$(find "$WORK/run-c" -name postmaster.pid -exec head -1 {} \; 2>/dev/null | head -1)
if [ -n "$pg" ]; then kill "$pg" 2>/dev/null || true; while kill -0 "$pg" 2>/dev/null; do sleep 0.1; done; fi
rm -rf "$WORK/run-c"; mkdir -p "$WORK/run-c"
FLEETMESH_DATA_DIR="$WORK/run-c" "$M" keys import "$WORK/backup.json" > /dev/null
t0=$(now)
start_node c "$PC" FLEETMESH_PEERS="$ADID@ws://127.0.0.1:$PA/mesh,$BDID@ws://127.0.0.1:$PB/mesh"
until [ "$(claimed "$PC")" = "$(claimed "$PA")" ]; do sleep 0.5; done
t1=$(now)
rebuild_bytes=$(mesh_bytes "$PC")
# what each peer's replication passes pulled, per shard (the split between the two peers)
curl -sf "http://127.0.0.1:$PC/mesh/status" | python3 -c '
import json, sys
for p in json.load(sys.stdin)["peers"]:
    print("  from", p["did"][:24] + "...", {k: v.get("pulled") for k, v in (p.get("shards") or {}).items()})' >&2
python3 -c "import sys; print(f'rebuild   {int(sys.argv[1]):,} events over 4 shards from 2 peers: {float(sys.argv[3])-float(sys.argv[2]):.1f} s (start to equal claims), {int(sys.argv[4])/1e6:,.1f} MB on its mesh links')" \
  "$N" "$t0" "$t1" "$rebuild_bytes"

echo "== 2. ./meshnode sync from A into an empty data dir (bytes through a counting proxy)" >&2
PP=$(free_port)
python3 - "$PP" "$PA" > "$WORK/proxy.out" 2>&1 <<'EOF' &
import signal, socket, sys, threading
listen, target = int(sys.argv[1]), int(sys.argv[2])
total = [0]
lock = threading.Lock()
def done(*_):
    print(total[0], flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, done)
def pipe(a, b):
    try:
        while True:
            d = a.recv(1 << 16)
            if not d:
                break
            with lock:
                total[0] += len(d)
            b.sendall(d)
    except OSError:
        pass
    finally:
        for x in (a, b):
            try:
                x.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", listen))
srv.listen(16)
while True:
    c, _ = srv.accept()
    u = socket.create_connection(("127.0.0.1", target))
    threading.Thread(target=pipe, args=(c, u), daemon=True).start()
    threading.Thread(target=pipe, args=(u, c), daemon=True).start()
EOF
proxy=$!; pids+=("$proxy")
sleep 0.5
t0=$(now)
FLEETMESH_DATA_DIR="$WORK/run-d" "$M" sync "ws://127.0.0.1:$PP/" --dir down > "$WORK/sync.out" 2> "$WORK/sync.err"
t1=$(now)
kill "$proxy" 2>/dev/null || true; wait "$proxy" 2>/dev/null || true
echo "sync summary: $(grep '^{' "$WORK/sync.out" | tail -1)" >&2
python3 -c "import sys; print(f'sync      {float(sys.argv[2])-float(sys.argv[1]):.1f} s, {int(sys.argv[3])/1e6:,.1f} MB over the connection')" \
  "$t0" "$t1" "$(tail -1 "$WORK/proxy.out")"

echo "== 3. export at A, import into an empty data dir" >&2
t0=$(now)
FLEETMESH_DATA_DIR="$WORK/run-a" "$M" export > "$WORK/export.jsonl" 2> /dev/null
t1=$(now)
FLEETMESH_DATA_DIR="$WORK/run-e" "$M" import < "$WORK/export.jsonl" > /dev/null 2> "$WORK/import.err"
t2=$(now)
python3 -c "import sys,os; print(f'export/import  export {float(sys.argv[2])-float(sys.argv[1]):.1f} s + import {float(sys.argv[3])-float(sys.argv[2]):.1f} s, {os.path.getsize(sys.argv[4])/1e6:,.1f} MB of JSONL')" \
  "$t0" "$t1" "$t2" "$WORK/export.jsonl"

echo "== 4. steady state: $RATE events/s of live writes into A for $LIVE s, replication only (federate [])" >&2
cpu_of() { awk '{ print $14 + $15 }' "/proc/$1/stat"; } # utime + stime of the node's JVM, clock ticks
jvm_of() { pgrep -P "$1" java || echo "$1"; }           # ./meshnode execs java; the pid may be the script's
TICK=$(getconf CLK_TCK)
all_bytes() { echo $(( $(mesh_bytes "$PA") + $(mesh_bytes "$PB") + $(mesh_bytes "$PC") )); }
total_claimed() { claimed "$1" | awk '{ s += $2 } END { print s }'; }
b0=$(all_bytes); ja=$(jvm_of "${PID[a]}"); jb=$(jvm_of "${PID[b]}"); jc=$(jvm_of "${PID[c]}")
ca0=$(cpu_of "$ja"); cb0=$(cpu_of "$jb"); cc0=$(cpu_of "$jc"); n0=$(total_claimed "$PA")
t0=$(now)
APP="$WORK/app"
java -cp "$APP/lib/boot/*:$APP/lib/main/*:$APP/app/*" "$ROOT/bench/LiveWrites.java" "ws://127.0.0.1:$PA/" "$RATE" "$LIVE" >&2
until [ "$(claimed "$PC")" = "$(claimed "$PA")" ] && [ "$(claimed "$PB")" = "$(claimed "$PA")" ] \
  && [ "$(total_claimed "$PA")" -ge $((n0 + RATE * LIVE)) ]; do sleep 0.5; done
t1=$(now)
b1=$(all_bytes); ca1=$(cpu_of "$ja"); cb1=$(cpu_of "$jb"); cc1=$(cpu_of "$jc")
python3 -c "import sys
b0,b1,ca0,ca1,cb0,cb1,cc0,cc1,tick,t0,t1=map(float,sys.argv[1:12]); n=int(sys.argv[12]); dt=t1-t0
link=(b1-b0)/2  # each link's bytes are counted at both ends
print(f'steady    {n:,} live events at A reached B and C (claims equal) {dt:.1f} s after the first; '
      f'{link/(2*n):,.0f} link bytes per event and copy; CPU A {(ca1-ca0)/tick/dt*100:.0f} %, B {(cb1-cb0)/tick/dt*100:.0f} %, C {(cc1-cc0)/tick/dt*100:.0f} % of a core')" \
  "$b0" "$b1" "$ca0" "$ca1" "$cb0" "$cb1" "$cc0" "$cc1" "$TICK" "$t0" "$t1" "$((RATE * LIVE))"
