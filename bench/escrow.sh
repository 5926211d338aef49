#!/usr/bin/env bash
# Escrow round trips against two SIMULATED LND nodes (gRPC, TLS, macaroons) and the PostgreSQL ledger.
# The simulation is not part of the node: this builds the bench module (settlement-lightning/escrow-bench)
# with its reactor dependencies (no install) and runs it on its own classpath.
# usage: bench/escrow.sh [--escrows N] [--parallel P]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MOD="$ROOT/settlement-lightning/escrow-bench"
(cd "$ROOT" && mvn -q -B -ntp -DskipTests package -pl settlement-lightning/escrow-bench -am) >&2
exec java ${JAVA_OPTS:-} -Djava.util.logging.manager=org.jboss.logmanager.LogManager -cp "$MOD/target/classes:$(cat "$MOD/target/run.classpath")" \
  org.fleetmesh.settlement.lightning.bench.EscrowBench "$@"
