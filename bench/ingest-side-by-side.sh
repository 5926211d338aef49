#!/usr/bin/env bash
# Ingest into meshnode and strfry at several load settings, in one run, alternating which relay goes first (issue 17;
# docs/BENCHMARKS.md "Reads, memory and disk against strfry"). Each case is a fresh relay on a fresh data dir driven by
# `./meshnode bench ingest` (it signs N events, then sends them over C connections with F in flight each, counting
# OK true; the node's own driver, which speaks plain NIP-01 to either relay), one JSON line per case on stdout.
# The last case adds S live subscriptions over K more connections, a fraction M of them matching a fiftieth of the
# events each (every expected delivery must arrive).
#
# usage: STRFRY=/path/to/strfry TOOLS=/path/to/side-by-side-tools bench/ingest-side-by-side.sh [N] [ROUNDS]
#   TOOLS: the folder with relaybench.py (the team's shared tools, used to start strfry with its benchmark config).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
N="${1:-200000}"; ROUNDS="${2:-1}"
: "${STRFRY:?set STRFRY to a strfry binary}"; : "${TOOLS:?set TOOLS to the folder holding relaybench.py}"
SCRATCH="${SCRATCH:-/tmp/fleetmesh-ingest-side-by-side}"
CASES=("8 200" "16 400" "8 200 --subscribers 1000 --subscriber-connections 100 --matching 0.1")
mkdir -p "$SCRATCH"
"$ROOT/meshnode" build
export FLEETMESH_CLIENT_LIMITS=off

one() { # relay round case...
  local relay=$1 round=$2 conns=$3 inflight=$4; shift 4
  local dir pid port out
  dir=$(mktemp -d "$SCRATCH/$relay-XXXX")
  read -r pid port < <(cd "$ROOT" && python3 "$TOOLS/relaybench.py" start --relay "$relay" --data "$dir/data" \
    --strfry "$STRFRY" --strfry-verbosity=-1 | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["pid"], r["port"])')
  out=$("$ROOT/meshnode" bench ingest --url "ws://127.0.0.1:$port/" --events "$N" --connections "$conns" \
    --inflight "$inflight" "$@" 2>/dev/null | tail -1)
  python3 "$TOOLS/relaybench.py" stop --pid "$pid"
  rm -rf "$dir"
  python3 -c 'import json,sys; r=json.loads(sys.argv[1]); r.update(relay=sys.argv[2], round=int(sys.argv[3]), case=sys.argv[4]); print(json.dumps(r))' \
    "$out" "$relay" "$round" "$conns x $inflight${*:+ $*}"
}

for ((r = 1; r <= ROUNDS; r++)); do
  for c in "${CASES[@]}"; do
    order=(meshnode strfry)
    if (( r % 2 == 0 )); then order=(strfry meshnode); fi
    for relay in "${order[@]}"; do one "$relay" "$r" $c; done
  done
done
