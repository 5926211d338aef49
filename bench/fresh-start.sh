#!/usr/bin/env bash
# One start of a node on a fresh data dir: milliseconds from exec to "relay ready" in its log (docs/BENCHMARKS.md,
# "A fresh data dir"). bench/fresh-start.sh APP LABEL [java17|launcher]
#   APP: a packaged build's quarkus-app directory; java17: `java -Xmx512m -jar` as the integration tests start a node,
#   launcher: `./meshnode relay` with MESHNODE_APP=APP (JDK 25 and its AOT cache when present).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
APP=$1; LABEL=$2; MODE=${3:-java17}
d=$(mktemp -d "${TMPDIR:-/tmp}/fresh-start.XXXXXX")
env=(FLEETMESH_DATA_DIR="$d" QUARKUS_HTTP_PORT=0 QUARKUS_HTTP_HOST=127.0.0.1 FLEETMESH_CLIENT_LIMITS=off
     FLEETMESH_MONITOR_ENABLED=false)
t0=$(date +%s%N)
if [ "$MODE" = launcher ]; then
  (cd "$d" && env "${env[@]}" MESHNODE_APP="$APP" setsid "$ROOT/meshnode" relay > "$d/log" 2>&1 &)
else
  (cd "$d" && env "${env[@]}" setsid java -Xmx512m -jar "$APP/quarkus-run.jar" > "$d/log" 2>&1 &)
fi
until grep -q 'relay ready' "$d/log" 2>/dev/null; do
  sleep 0.01
  [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 120000 ] || { echo "$LABEL $MODE timeout" >&2; break; }
done
echo "$LABEL $MODE $(( ($(date +%s%N) - t0) / 1000000 ))"
pkill -INT -f "$APP/quarkus-run.jar" || true
while pgrep -f "$APP/quarkus-run.jar" > /dev/null; do sleep 0.1; done
rm -rf "$d"
