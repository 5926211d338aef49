#!/usr/bin/env bash
# An idle node's footprint once its first quiet heap trim has run (docs/BENCHMARKS.md "Idle footprint").
# usage: TOOLS=<shared tools> bench/idle-footprint.sh LABEL DATA_DIR [WAIT_S=20]
#   Starts `./meshnode relay` on DATA_DIR (the shared tools' relaybench.py: a free port, until ready), waits WAIT_S
#   seconds, prints one line: seconds to ready, the JVM's RSS, anonymous RSS and PSS, the embedded PostgreSQL's PSS
#   (postmaster and its children), MiB, and how many quiet heap trims the log shows; then stops the node.
#   MESHNODE_APP / MESHNODE_JVM / FLEETMESH_* in the environment pick the build, the JVM options and the settings,
#   e.g. for the build before (a copied quarkus-app with its own AOT cache) with the old heap floor:
#   MESHNODE_APP=/tmp/app-before MESHNODE_JVM="-XX:+UseSerialGC -Xms48m ..." FLEETMESH_MEMORY_HEAP_TRIM_FLOOR_MIB=64
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"; cd "$ROOT"
label=$1; data=$2; wait_s=${3:-20}
out=$(python3 "$TOOLS/relaybench.py" start --relay meshnode --data "$data")
field() { echo "$out" | python3 -c "import json,sys; print(json.load(sys.stdin)[\"$1\"])"; }
pid=$(field pid); ready=$(field ready_s)
jpid=$(pgrep -f "quarkus-run.jar" | head -1)
sleep "$wait_s"
read -r rss anon < <(awk '/^VmRSS/{r=$2} /^RssAnon/{a=$2} END{print int(r/1024), int(a/1024)}' "/proc/$jpid/status")
pss=$(awk '/^Pss:/{print int($2/1024)}' "/proc/$jpid/smaps_rollup")
pg_pss=0
post=$(pgrep -f "postgres -D $data/pg" | head -1 || true)
for p in $post $( [ -n "$post" ] && pgrep -P "$post" ); do
  v=$(awk '/^Pss:/{print $2}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0); pg_pss=$((pg_pss + ${v:-0}))
done
trims=$(grep -c "heap trim (quiet)" "$data/relay.log" 2>/dev/null || true)
echo "$label ready_s=$ready jvm_rss=$rss jvm_anon=$anon jvm_pss=$pss pg_pss=$((pg_pss / 1024)) quiet_trims=${trims:-0}"
python3 "$TOOLS/relaybench.py" stop --pid "$pid" > /dev/null
