#!/usr/bin/env bash
# Backup and restore time and size (docs/BENCHMARKS.md "Backup and restore"), against `./meshnode export` of the same
# store as the baseline (a full JSONL dump of the events alone), all on a stopped data dir of N events, same run.
# usage: bench/backup.sh [events]   (default 100,000; the corpus is the one bench/query.sh builds)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/meshnode" build
N="${1:-100000}"
WORK="${BENCH_DIR:-/tmp/fleetmesh-bench}/backup-$N"
mkdir -p "$WORK"
if [ ! -f "$WORK/imported" ]; then
  rm -rf "$WORK/data"
  "$ROOT/meshnode" bench corpus --events "$N" > "$WORK/corpus.jsonl"
  FLEETMESH_DATA_DIR="$WORK/data" "$ROOT/meshnode" import < "$WORK/corpus.jsonl" 2>&1 | tail -1 >&2
  FLEETMESH_DATA_DIR="$WORK/data" "$ROOT/meshnode" did show > /dev/null  # the keys, as a first start makes them
  touch "$WORK/imported"
fi
[ -d "$WORK/data/keys" ] || FLEETMESH_DATA_DIR="$WORK/data" "$ROOT/meshnode" did show > /dev/null
rm -rf "$WORK/b" "$WORK/restored" "$WORK/export.jsonl"
T="/usr/bin/time -f %e -o"
$T "$WORK/export.s" env FLEETMESH_DATA_DIR="$WORK/data" "$ROOT/meshnode" export > "$WORK/export.jsonl" 2>/dev/null
$T "$WORK/backup.s" env FLEETMESH_DATA_DIR="$WORK/data" "$ROOT/meshnode" backup "$WORK/b" > /dev/null 2> "$WORK/backup.log"
$T "$WORK/restore.s" env FLEETMESH_DATA_DIR="$WORK/restored" "$ROOT/meshnode" restore "$WORK/b" > /dev/null 2> "$WORK/restore.log"
$T "$WORK/export2.s" env FLEETMESH_DATA_DIR="$WORK/data" "$ROOT/meshnode" export > "$WORK/export.jsonl" 2>/dev/null
export_s=$(cat "$WORK/export.s"); backup_s=$(cat "$WORK/backup.s"); restore_s=$(cat "$WORK/restore.s")
export2_s=$(cat "$WORK/export2.s")
echo "{\"events\":$N,\"export_s\":[$export_s,$export2_s],\"backup_s\":$backup_s,\"restore_s\":$restore_s," \
  "\"export_bytes\":$(stat -c %s "$WORK/export.jsonl"),\"backup_bytes\":$(du -sb "$WORK/b" | cut -f1)," \
  "\"restored_events\":$(FLEETMESH_DATA_DIR="$WORK/restored" "$ROOT/meshnode" export 2>/dev/null | wc -l)}"
