#!/usr/bin/env bash
# REQ -> EOSE latency of strfry and meshnode side by side with one JDK client (bench/ReqProbe.java: no
# permessage-deflate), relays alternating within each round, the same seeded filters for both.
#
# usage: [SHAPES="window1h ids10"] STRFRY=/tmp/perf/strfry/strfry bench/probe-side-by-side.sh CORPUS WORK [rounds] [warm] [timed]
#   CORPUS: JSONL from `./meshnode bench corpus --events N` (kinds 1 and 7, e/p tags, created_at from 1,700,000,000)
#   WORK:   a scratch dir; imported once into WORK/strfry (strfry import) and WORK/meshnode (./meshnode import
#           $IMPORT_ARGS, e.g. IMPORT_ARGS=--reorder)
# strfry runs with the configuration below (the team's side-by-side tools use the same: 3-year-old events accepted,
# compression on, 500 events a filter at most); meshnode with the launcher's defaults and FLEETMESH_CLIENT_LIMITS=off (one client sending thousands of REQs).
# One line per round, relay and shape: p50 p90 p99 p99.9 max in ms over `timed` REQs after `warm` untimed ones, and
# the CPU the relay used per REQ over all warm + timed REQs (ms; /proc/PID/stat, 10 ms ticks): strfry's process; the
# meshnode JVM, and separately its PostgreSQL (the postmaster and its backends).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CORPUS=$(readlink -f "$1"); WORK=$(mkdir -p "$2" && readlink -f "$2"); ROUNDS=${3:-2}; WARM=${4:-3000}; N=${5:-5000}
STRFRY=${STRFRY:?set STRFRY to a strfry binary}
cpu_of() { awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat" 2> /dev/null || echo 0; }
db_cpu() {  # meshnode's PostgreSQL: the postmaster (with its exited children) and its live backends
  local pm t=0 c
  pm=$(head -1 "$WORK/meshnode/pg/postmaster.pid" 2> /dev/null || true)
  [ -n "$pm" ] || { echo 0; return; }
  t=$(cpu_of "$pm")
  for c in $(ps -o pid= --ppid "$pm" || true); do t=$((t + $(cpu_of "$c"))); done
  echo "$t"
}
per_req() { awk -v t="$1" -v n="$2" 'BEGIN {printf "%.3f", t * 10 / n}'; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
mkdir -p "$WORK/probe" "$WORK/strfry/db"
javac -d "$WORK/probe" "$ROOT/bench/ReqProbe.java"
conf="$WORK/strfry/strfry.conf"
cat > "$conf" <<CONF
db = "$WORK/strfry/db/"
dbParams { maxreaders = 256
  mapsize = 10995116277760
  noReadAhead = false }
events { maxEventSize = 65536
  rejectEventsNewerThanSeconds = 900
  rejectEventsOlderThanSeconds = 94608000
  rejectEphemeralEventsOlderThanSeconds = 60
  ephemeralEventsLifetimeSeconds = 300
  maxNumTags = 2000
  maxTagValSize = 1024 }
relay { bind = "127.0.0.1"
  port = 0
  nofiles = 0
  maxWebsocketPayloadSize = 131072
  maxReqFilterSize = 200
  maxFilterLimit = 500
  maxSubsPerConnection = 200
  auth { enabled = false }
  compression { enabled = true
    slidingWindow = true }
  logging { invalidEvents = true }
}
CONF
if [ ! -f "$WORK/strfry/imported" ]; then
  "$STRFRY" --config="$conf" import < "$CORPUS" > "$WORK/strfry/import.log" 2>&1 && touch "$WORK/strfry/imported"
fi
if [ ! -f "$WORK/meshnode.imported" ]; then
  # IMPORT_ARGS=--reorder: the imported events rewritten in time order afterwards (docs/OPERATING.md "Import and export")
  # shellcheck disable=SC2086
  FLEETMESH_DATA_DIR="$WORK/meshnode" "$ROOT/meshnode" import ${IMPORT_ARGS:-} < "$CORPUS" > "$WORK/meshnode.import.log" 2>&1
  touch "$WORK/meshnode.imported"
fi
python3 - "$CORPUS" "$WORK" <<'PY'
import json, sys
pk, e, p, ids = set(), set(), set(), set()
for line in open(sys.argv[1]):
    ev = json.loads(line); pk.add(ev['pubkey']); ids.add(ev['id'])
    for t in ev['tags']:
        (e if t[0] == 'e' else p if t[0] == 'p' else set()).add(t[1])
for name, vals in (('authors', pk), ('e', e), ('p', p), ('ids', ids)):
    open(f'{sys.argv[2]}/{name}.txt', 'w').write('\n'.join(sorted(vals)))
PY
shapes=(
  "limit0|{\"kinds\":[1],\"limit\":0}|-"
  "authors|{\"authors\":[\"%V\"],\"limit\":100}|$WORK/authors.txt"
  "kinds+until|{\"kinds\":[7],\"until\":%T,\"limit\":100}|-"
  "#e|{\"#e\":[\"%V\"],\"limit\":100}|$WORK/e.txt"
  "#p|{\"#p\":[\"%V\"],\"limit\":100}|$WORK/p.txt"
  "window1h|{\"since\":%T,\"until\":%U,\"limit\":500}|-"
  "ids10|{\"ids\":[%10V]}|$WORK/ids.txt"
)
for r in $(seq 1 "$ROUNDS"); do
  order="strfry meshnode"; [ $((r % 2)) = 0 ] && order="meshnode strfry"
  for relay in $order; do
    port=$(free_port)
    if [ "$relay" = strfry ]; then
      sed -i "s/port = [0-9]*/port = $port/" "$conf"
      (cd "$WORK/strfry" && exec "$STRFRY" --config="$conf" --verbosity=-1 relay > "$WORK/strfry/relay.log" 2>&1) &
    else
      (cd "$ROOT" && QUARKUS_HTTP_PORT=$port FLEETMESH_DATA_DIR="$WORK/meshnode" FLEETMESH_CLIENT_LIMITS=off \
        FLEETMESH_MONITOR_ENABLED=false exec ./meshnode relay > "$WORK/meshnode.relay.log" 2>&1) &
    fi
    pid=$!
    until curl -sf -H 'Accept: application/nostr+json' "http://127.0.0.1:$port/" > /dev/null; do
      kill -0 $pid 2> /dev/null || { echo "$relay exited; see its log in $WORK" >&2; exit 1; }
      sleep 0.05
    done
    for s in "${shapes[@]}"; do
      IFS='|' read -r name tmpl vals <<< "$s"
      # SHAPES="window1h ids10": only those shapes
      [ -z "${SHAPES:-}" ] || [[ " $SHAPES " == *" $name "* ]] || continue
      c0=$(cpu_of $pid); d0=$(db_cpu)
      res=$(java -XX:+UseSerialGC -Xmx256m -cp "$WORK/probe" ReqProbe "ws://127.0.0.1:$port/" "$tmpl" "$WARM" "$N" "$vals" "$r" 2> /dev/null)
      c1=$(cpu_of $pid); d1=$(db_cpu)
      cpu="cpu/req $(per_req $((c1 - c0)) $((WARM + N))) ms"
      [ "$relay" = meshnode ] && cpu="$cpu + postgres $(per_req $((d1 - d0)) $((WARM + N))) ms"
      echo "round=$r relay=$relay shape=$name $res $cpu"
    done
    kill $pid; wait $pid 2> /dev/null || true
    sleep 1
  done
done
