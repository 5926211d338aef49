#!/usr/bin/env bash
# meshnode next to strfry on the same corpus, in one run (issue 17; docs/BENCHMARKS.md "Reads, memory and disk
# against strfry"). For each round and each relay (alternating which goes first): a fresh data dir, the corpus ingested
# by the Node.js driver (ingest rate, RSS/PSS, CPU, disk), then the relay restarted on that data and REQ -> EOSE
# latency per filter shape with and without permessage-deflate offered. One JSON line per measurement on stdout.
#
# usage: STRFRY=/path/to/strfry TOOLS=/path/to/side-by-side-tools bench/side-by-side.sh CORPUS.jsonl [ROUNDS] [TIMED]
#   TOOLS: the folder with relaybench.py, ingest.mjs and req-latency.mjs (the team's shared tools; not part of this
#   repository); STRFRY: a strfry binary built beside the project (how is up to you; nothing here builds it).
#   CORPUS: pre-signed events, one JSON object per line (the shared tools' GenCorpus.java writes one).
#   RELAYS="meshnode strfry" picks the relays; DEFLATE_MODES="0 1" the client's permessage-deflate offers.
#   WARM (default 200): queries per shape before the timed ones (a JVM compiles its hot paths first).
#   PASSES (default "first warm"): "first" measures right after the restart (seed = round); "warm" runs one unmeasured
#   pass of every shape (seed round+100, no deflate) and then measures again (seed round+200), the same for both relays,
#   so each pass draws its own queries. Each line says which pass it is ("pass").
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CORPUS="$(realpath "${1:?usage: bench/side-by-side.sh CORPUS.jsonl [ROUNDS] [TIMED]}")"
ROUNDS="${2:-1}"; TIMED="${3:-200}"; WARM="${WARM:-200}"
: "${STRFRY:?set STRFRY to a strfry binary}"; : "${TOOLS:?set TOOLS to the folder holding relaybench.py}"
RELAYS="${RELAYS:-meshnode strfry}"; DEFLATE_MODES="${DEFLATE_MODES:-0 1}"; PASSES="${PASSES:-first warm}"
SCRATCH="${SCRATCH:-/tmp/fleetmesh-side-by-side}"
N=$(wc -l < "$CORPUS")
mkdir -p "$SCRATCH/tools"
cp "$TOOLS/relaybench.py" "$TOOLS/ingest.mjs" "$TOOLS/req-latency.mjs" "$SCRATCH/tools/"
# the drivers import ws from next to themselves
[ -d "$SCRATCH/tools/node_modules/ws" ] || (cd "$SCRATCH/tools" && npm install --silent --no-audit --no-fund ws@8 >/dev/null)
"$ROOT/meshnode" build
export FLEETMESH_CLIENT_LIMITS=off NODE_PATH="$SCRATCH/tools/node_modules"
RB=("python3" "$SCRATCH/tools/relaybench.py")

one() { # relay round
  local relay=$1 round=$2 before dir pid port
  before=$(ls -d "$SCRATCH/runs/$relay-js-"* 2>/dev/null | sort | tail -1 || true)
  (cd "$ROOT" && "${RB[@]}" ingest --relay "$relay" --driver js --events "$CORPUS" --n "$N" \
      --js-ingest "$SCRATCH/tools/ingest.mjs" --scratch "$SCRATCH/runs" --strfry "$STRFRY" --strfry-verbosity=-1) \
    | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r["round"]='"$round"'; r["corpus"]='"$N"'; print(json.dumps(r))'
  dir=$(ls -d "$SCRATCH/runs/$relay-js-"* | sort | tail -1)
  [ "$dir" != "$before" ] || { echo "no run dir for $relay" >&2; exit 1; }
  read -r pid port < <(cd "$ROOT" && "${RB[@]}" start --relay "$relay" --data "$dir/data" --strfry "$STRFRY" --strfry-verbosity=-1 \
    | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["pid"], r["port"])')
  for pass in $PASSES; do
    local seed=$round
    if [ "$pass" = warm ]; then
      DEFLATE=0 node "$SCRATCH/tools/req-latency.mjs" "$port" "$CORPUS" "$TIMED" "$WARM" $((round + 100)) > /dev/null
      seed=$((round + 200))
    fi
    for d in $DEFLATE_MODES; do
      DEFLATE=$d node "$SCRATCH/tools/req-latency.mjs" "$port" "$CORPUS" "$TIMED" "$WARM" "$seed" \
        | python3 -c 'import json,sys
for l in sys.stdin:
    r=json.loads(l); r.update(relay="'"$relay"'", round='"$round"', deflate='"$d"', corpus='"$N"')
    r["pass"]="'"$pass"'"; print(json.dumps(r))'
    done
  done
  "${RB[@]}" stop --pid "$pid"
  rm -rf "$dir"
}

for ((r = 1; r <= ROUNDS; r++)); do
  order=($RELAYS)
  if (( r % 2 == 0 )); then order=($(printf '%s\n' "${order[@]}" | tac)); fi
  for relay in "${order[@]}"; do one "$relay" "$r"; done
done
