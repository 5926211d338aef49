#!/usr/bin/env bash
# Cashu wallet benchmark (docs/BENCHMARKS.md, "Cashu (issue 16)"). Builds nothing: it runs a COPY of the packaged
# node (meshnode-app/target/quarkus-app, or MESHNODE_APP), so a rebuild elsewhere cannot change it mid-run.
#   1. starts the SIMULATED test mint (integration-tests/src/test/js/cashu-mint.mjs, @cashu/crypto in Node) on
#      127.0.0.1, port 0, no state file;
#   2. ./meshnode bench cashu --mint <url>: the primitives next to BIP-340 verify, then the swap round trip
#      through our Wallet;
#   3. the same round trip by @cashu/cashu-ts in one Node process (bench/cashu-ts-swaps.mjs), same mint;
#   4. stops the mint.
# The npm packages are the ones CashuMintSim pins; integration-tests/target/js-cashu is reused when it holds exactly
# those versions, else they are installed into a temporary directory (removed at exit).
# usage: bench/cashu.sh [--swaps N] [--warmup-swaps N] [--seconds S] [--rounds R]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SWAPS=300 WARM=50 SECONDS_=1 ROUNDS=5
while [ $# -gt 0 ]; do
  case "$1" in
    --swaps) SWAPS="$2"; shift 2 ;;
    --warmup-swaps) WARM="$2"; shift 2 ;;
    --seconds) SECONDS_="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    *) echo "usage: bench/cashu.sh [--swaps N] [--warmup-swaps N] [--seconds S] [--rounds R]" >&2; exit 2 ;;
  esac
done

APP="${MESHNODE_APP:-$ROOT/meshnode-app/target/quarkus-app}"
[ -f "$APP/quarkus-run.jar" ] || { echo "cashu.sh: no packaged node at $APP (build it: mvn -pl meshnode-app package)" >&2; exit 1; }
command -v node >/dev/null && command -v npm >/dev/null || { echo "cashu.sh: needs node (>= 20.19) and npm" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/fleetmesh-cashu-bench.XXXXXX")"
MINT_PID=""
cleanup() {
  if [ -n "$MINT_PID" ]; then kill "$MINT_PID" 2>/dev/null || true; wait "$MINT_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# the pinned versions, read from the Java driver so there is one list
SIM="$ROOT/integration-tests/src/test/java/org/fleetmesh/it/CashuMintSim.java"
pin() { sed -n "s/.*static final String $1 = \"\([^\"]*\)\".*/\1/p" "$SIM"; }
PKGS=("@cashu/crypto@$(pin CASHU_CRYPTO)" "@cashu/cashu-ts@$(pin CASHU_TS)" "@noble/curves@$(pin NOBLE_CURVES)"
      "@scure/base@$(pin SCURE_BASE)" "light-bolt11-decoder@$(pin BOLT11_DECODER)")
JS="$ROOT/integration-tests/target/js-cashu"
pinned() {
  local spec name want got
  for spec in "${PKGS[@]}"; do
    name="${spec%@*}"; want="${spec##*@}"
    got=$(node -e "try{console.log(require('$1/node_modules/$name/package.json').version)}catch{console.log('')}")
    [ "$got" = "$want" ] || return 1
  done
}
if ! pinned "$JS"; then
  JS="$WORK/js"
  mkdir -p "$JS"
  echo '{"name":"fleetmesh-cashu-bench","private":true,"type":"module"}' > "$JS/package.json"
  echo "cashu.sh: installing ${PKGS[*]} into $JS" >&2
  (cd "$JS" && npm install --no-audit --no-fund --save-exact "${PKGS[@]}" >&2)
fi
# ESM resolves packages from the script's directory: run copies of both scripts next to the packages
mkdir -p "$WORK/run"
ln -s "$JS/node_modules" "$WORK/run/node_modules"
echo '{"type":"module"}' > "$WORK/run/package.json"
cp "$ROOT/integration-tests/src/test/js/cashu-mint.mjs" "$ROOT/bench/cashu-ts-swaps.mjs" "$WORK/run/"
cp -r "$APP" "$WORK/app"

(cd "$WORK/run" && exec node cashu-mint.mjs --port 0 >"$WORK/mint.out" 2>"$WORK/mint.err") &
MINT_PID=$!
URL=""
for _ in $(seq 1 300); do
  URL=$(sed -n 's/^MINT_URL \(http:\/\/127\.0\.0\.1:[0-9]*\)$/\1/p' "$WORK/mint.out")
  [ -n "$URL" ] && break
  kill -0 "$MINT_PID" 2>/dev/null || { echo "cashu.sh: the mint exited:" >&2; cat "$WORK/mint.err" >&2; exit 1; }
  sleep 0.1
done
[ -n "$URL" ] || { echo "cashu.sh: the mint did not print MINT_URL within 30 s" >&2; exit 1; }

echo "# machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(java -version 2>&1 | head -1),"\
  "node $(node --version), load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# mint: $URL (simulated, @cashu/crypto $(pin CASHU_CRYPTO))"
echo "## meshnode"
MESHNODE_APP="$WORK/app" "$ROOT/meshnode" bench cashu --seconds "$SECONDS_" --rounds "$ROUNDS" \
  --mint "$URL" --swaps "$SWAPS" --warmup-swaps "$WARM"
echo "## cashu-ts $(pin CASHU_TS)"
(cd "$WORK/run" && node cashu-ts-swaps.mjs "$URL" "$SWAPS" "$WARM") 2>&1
