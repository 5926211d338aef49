#!/usr/bin/env bash
# Time from `./meshnode relay` to ready (/q/health/ready = 200) and the JVM's resident memory then.
# usage: bench/startup.sh [data-dir]   (default: a fresh temporary data dir)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/meshnode" build  # build first (not inside the background relay) when missing or stale
DATA="${1:-$(mktemp -d)}"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
start=$(date +%s.%N)
QUARKUS_HTTP_PORT=$PORT FLEETMESH_DATA_DIR="$DATA" "$ROOT/meshnode" relay > "$DATA.startup.log" 2>&1 &
pid=$!
until curl -sf "http://127.0.0.1:$PORT/q/health/ready" > /dev/null; do
  kill -0 $pid 2>/dev/null || { echo "node exited; see $DATA.startup.log" >&2; exit 1; }
  sleep 0.05
done
ready=$(date +%s.%N)
jpid=$(pgrep -P $pid java || echo $pid)
rss=$(awk '/VmRSS/ {print $2}' /proc/$jpid/status)
printf '{"time_to_ready_s":%.2f,"jvm_rss_mib":%.0f,"data_dir":"%s"}\n' "$(echo "$ready - $start" | bc)" "$(echo "$rss/1024" | bc -l)" "$DATA"
kill $pid; wait $pid 2>/dev/null || true
