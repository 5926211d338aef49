#!/usr/bin/env bash
# Time from `./meshnode relay` to ready (/q/health/ready = 200) and the node's memory then.
#
# usage: bench/startup.sh [data-dir]
#          one start (default: a fresh temporary data dir), one JSON line
#        bench/startup.sh --compare [runs] [baseline-app-dir]
#          docs/BENCHMARKS.md "Start and footprint (issue 18)": today's main (its launcher and its build, copied:
#          $BASE_APP or the given dir, default /work/main/meshnode-app/target/quarkus-app; its launcher from git
#          $BASE_REV, default main) against this checkout's, on JDK 17 and 25, with and without the class archive (the
#          AOT cache on 25, a CDS archive on 17), each on a
#          fresh and on an existing data dir; the variants alternate within each of `runs` rounds (default 5), medians.
#          Per start: seconds to ready, the JVM's CPU seconds by then (user+system: contention on a shared machine
#          stretches the wall time but hardly the CPU), and after $IDLE s idle (default 5) the JVM's RSS and PSS and
#          the embedded PostgreSQL's (postmaster and its children) RSS and PSS, in MiB.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
kib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
pss_of() { awk '/^Pss:/ {print $2}' "/proc/$1/smaps_rollup" 2>/dev/null || echo 0; }
rss_of() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

# start <launcher> <data-dir> [env...]: one start; prints ready_s cpu_s jvm_rss jvm_pss pg_rss pg_pss (KiB for memory)
start_one() {
  local launcher=$1 data=$2; shift 2
  local port pid jpid start ready cpu pgpid pg_rss=0 pg_pss=0 p
  port=$(free_port)
  start=$(date +%s.%N)
  env "$@" QUARKUS_HTTP_PORT="$port" FLEETMESH_DATA_DIR="$data" FLEETMESH_MONITOR_ENABLED=false \
    "$launcher" relay > "$data.startup.log" 2>&1 &
  pid=$!
  until curl -sf "http://127.0.0.1:$port/q/health/ready" > /dev/null; do
    kill -0 $pid 2>/dev/null || { echo "node exited; see $data.startup.log" >&2; return 1; }
    sleep 0.01
  done
  ready=$(date +%s.%N)
  jpid=$pid  # the launcher execs the JVM
  cpu=$(awk '{print ($14 + $15) / 100}' "/proc/$jpid/stat")
  sleep "${IDLE:-5}"
  pgpid=$(head -1 "$data/pg/postmaster.pid" 2>/dev/null || echo)
  if [ -n "$pgpid" ]; then
    for p in $pgpid $(pgrep -P "$pgpid" || true); do
      pg_rss=$((pg_rss + $(rss_of "$p"))); pg_pss=$((pg_pss + $(pss_of "$p")))
    done
  fi
  echo "$(echo "$ready - $start" | bc) $cpu $(rss_of $jpid) $(pss_of $jpid) $pg_rss $pg_pss"
  kill $pid; wait $pid 2>/dev/null || true
}

if [ "${1:-}" != --compare ]; then
  "$ROOT/meshnode" build  # build first (not inside the background relay) when missing or stale
  DATA="${1:-$(mktemp -d)}"
  read -r r cpu rss pss pgr pgp < <(IDLE=0 start_one "$ROOT/meshnode" "$DATA")
  printf '{"time_to_ready_s":%.2f,"cpu_s":%.2f,"jvm_rss_mib":%s,"jvm_pss_mib":%s,"pg_rss_mib":%s,"pg_pss_mib":%s,"data_dir":"%s"}\n' \
    "$r" "$cpu" "$(kib $rss)" "$(kib $pss)" "$(kib $pgr)" "$(kib $pgp)" "$DATA"
  exit 0
fi

RUNS="${2:-5}"
BASE_APP="${3:-${BASE_APP:-/work/main/meshnode-app/target/quarkus-app}}"
J25="${J25:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}"
J17="${J17:-$(readlink -f "$(command -v java)")}"
WORK=$(mktemp -d "${BENCH_DIR:-/tmp}/startup-compare.XXXXXX")
"$ROOT/meshnode" build
# frozen copies: a rebuild elsewhere cannot change them mid-run
cp -r "$BASE_APP" "$WORK/base-app"; rm -f "$WORK/base-app"/meshnode.aot* "$WORK/base-app"/meshnode.jsa*
cp -r "$ROOT/meshnode-app/target/quarkus-app" "$WORK/new-app"; rm -f "$WORK/new-app"/meshnode.aot* "$WORK/new-app"/meshnode.jsa*
mkdir -p "$WORK/base" "$WORK/new" "$WORK/jdk25-path"
git -C "$ROOT" show "${BASE_REV:-main}:meshnode" > "$WORK/base/meshnode"; chmod +x "$WORK/base/meshnode"
cp "$ROOT/meshnode" "$WORK/new/meshnode"
ln -s "$J25" "$WORK/jdk25-path/java"  # the baseline launcher runs `java` from the PATH
# the AOT cache (JDK 25) and the CDS archive (JDK 17) of the new build, trained once each (not timed)
MESHNODE_APP="$WORK/new-app" MESHNODE_JAVA="$J25" "$WORK/new/meshnode" aot
MESHNODE_APP="$WORK/new-app" MESHNODE_JAVA="$J17" "$WORK/new/meshnode" aot
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

VARIANTS=(base-17 base-25 new-17 new-17-cds new-25 new-25-aot)
launch() {  # variant data-dir
  case "$1" in
    # MESHNODE_JAVA for a baseline launcher that prefers JDK 25 by itself (since issue 18), PATH for an older one
    base-17)    start_one "$WORK/base/meshnode" "$2" MESHNODE_APP="$WORK/base-app" MESHNODE_JAVA="$J17" ;;
    base-25)    start_one "$WORK/base/meshnode" "$2" MESHNODE_APP="$WORK/base-app" MESHNODE_JAVA="$J25" PATH="$WORK/jdk25-path:$PATH" ;;
    new-17)     start_one "$WORK/new/meshnode" "$2" MESHNODE_APP="$WORK/new-app" MESHNODE_JAVA="$J17" MESHNODE_AOT=off ;;
    new-17-cds) start_one "$WORK/new/meshnode" "$2" MESHNODE_APP="$WORK/new-app" MESHNODE_JAVA="$J17" ;;
    new-25)     start_one "$WORK/new/meshnode" "$2" MESHNODE_APP="$WORK/new-app" MESHNODE_JAVA="$J25" MESHNODE_AOT=off ;;
    new-25-aot) start_one "$WORK/new/meshnode" "$2" MESHNODE_APP="$WORK/new-app" MESHNODE_JAVA="$J25" ;;
  esac
}
# an existing data dir per variant, made by one untimed start
for v in "${VARIANTS[@]}"; do mkdir -p "$WORK/existing-$v"; IDLE=0 launch "$v" "$WORK/existing-$v/data" > /dev/null; done
for i in $(seq 1 "$RUNS"); do
  for v in "${VARIANTS[@]}"; do
    echo "$v existing $(launch "$v" "$WORK/existing-$v/data")" >> "$WORK/results"
    d=$(mktemp -d "$WORK/fresh.XXXXXX")
    echo "$v fresh $(launch "$v" "$d/data")" >> "$WORK/results"
    rm -rf "$d"
  done
  echo "round $i of $RUNS done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
echo "raw: $WORK/results" >&2
python3 - "$WORK/results" <<'EOF'
import sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    v, d, *x = line.split()
    rows.setdefault((v, d), []).append([float(a) for a in x])
print("| variant | data dir | runs | ready s | JVM CPU s | JVM RSS MiB | JVM PSS MiB | PG RSS MiB | PG PSS MiB | JVM+PG PSS MiB |")
print("|---|---|---|---|---|---|---|---|---|---|")
base = {}
for (v, d), xs in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    m = [st.median(c) for c in zip(*xs)]
    if v == "base-17":
        base[d] = m[0]
    ratio = f" ({m[0] / base[d]:.2f}x)" if d in base and v != "base-17" else ""
    print(f"| {v} | {d} | {len(xs)} | {m[0]:.2f}{ratio} | {m[1]:.2f} | {m[2]/1024:.0f} | {m[3]/1024:.0f} | {m[4]/1024:.0f} | {m[5]/1024:.0f} | {(m[3]+m[5])/1024:.0f} |")
EOF
