#!/usr/bin/env bash
# One build's warm REQ latency and young collections on an existing data dir (docs/BENCHMARKS.md "Stored events as
# bytes"). Run it alternately for two builds on the same data dir.
# usage: TOOLS=<shared tools> NODE_MODULES=<dir with ws> bench/ab-reads.sh LABEL APP_DIR|"" DATA_DIR CORPUS SEED
#   APP_DIR: a quarkus-app directory (MESHNODE_APP) for the baseline, "" for this checkout's build.
set -euo pipefail
label=$1; app=$2; data=$3; corpus=$(realpath "$4"); seed=$5
ROOT="$(cd "$(dirname "$0")/.." && pwd)"; cd "$ROOT"
[ -n "$app" ] && export MESHNODE_APP=$app
out=$(MESHNODE_AOT=off python3 "$TOOLS/relaybench.py" start --relay meshnode --data "$data")
pid=$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
port=$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["port"])')
jpid=$(pgrep -f "quarkus-run.jar" | head -1)
cp "$TOOLS/req-latency.mjs" "$NODE_MODULES/../"; cd "$NODE_MODULES/.."
DEFLATE=0 node req-latency.mjs "$port" "$corpus" 300 200 $((seed + 100)) > /dev/null
g0=$(jstat -gc "$jpid" | tail -1 | awk '{print $(NF-6), $(NF-5)}')
DEFLATE=0 node req-latency.mjs "$port" "$corpus" 2000 0 $((seed + 200)) | grep shape | sed "s/^{/{\"label\":\"$label\",/"
g1=$(jstat -gc "$jpid" | tail -1 | awk '{print $(NF-6), $(NF-5)}')
echo "{\"label\":\"$label\",\"young_gc_count_time_before\":\"$g0\",\"after\":\"$g1\"}"
python3 "$TOOLS/relaybench.py" stop --pid "$pid" > /dev/null
