package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * Issue 18, fast start: the embedded PostgreSQL starts on a thread of its own while the rest of the node boots. A
 * start that fails elsewhere must not leave that database running, and a database that cannot start must fail the
 * start loudly, as it did when it was started on first use.
 */
class EarlyStorageIT {

    /** Runs the packaged node with {@code env} until it exits (it must, within 90 s); returns its exit code. */
    static int runToExit(Path dataDir, Path log, Map<String, String> env) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-jar", MeshnodeProcess.appDir().resolve("quarkus-run.jar").toAbsolutePath().toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dataDir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
        pb.environment().put("QUARKUS_HTTP_PORT", "0");
        pb.environment().put("QUARKUS_HTTP_HOST", "127.0.0.1");
        pb.environment().put("FLEETMESH_DATA_DIR", dataDir.toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            assertTrue(p.waitFor(90, TimeUnit.SECONDS), "the node should have stopped; log " + log);
            return p.exitValue();
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void aStartFailingElsewhereStopsTheDatabaseItStartedEarly() throws Exception {
        Path dir = MeshnodeProcess.newDataDir("early-abort");
        Path log = MeshnodeProcess.outputFile("early-abort", ".log");
        try {
            // a malformed peer list stops the start (MeshPeers, a start-up observer): by then the database runs and
            // CDI holds it. (EarlyStorage.closeUntaken, for a failure before anything took the store, has no
            // outside trigger: every start-up failure found from outside came after RelayRuntime took it.)
            int exit = runToExit(dir, log, Map.of("FLEETMESH_PEERS", "not-a-peer"));
            String text = Files.readString(log);
            assertNotEquals(0, exit, text);
            assertTrue(text.contains("not-a-peer"), "the reason is logged:\n" + text);
            assertTrue(Files.exists(dir.resolve("pg").resolve("PG_VERSION")), "the database was started early:\n" + text);
            assertEquals(List.of(), MeshnodeProcess.livePostmasters(dir), "no postmaster outlives the failed start:\n" + text);
        } finally {
            MeshnodeProcess.stopLeftoverPostmasters(dir);
            MeshnodeProcess.deleteDataDir(dir);
        }
    }

    @Test
    void aDatabaseThatCannotStartFailsTheStartWithItsReason() throws Exception {
        Path dir = MeshnodeProcess.newDataDir("early-fail");
        Path log = MeshnodeProcess.outputFile("early-fail", ".log");
        try {
            int exit = runToExit(dir, log, Map.of("FLEETMESH_PG_SETTINGS", "fsync=off"));
            String text = Files.readString(log);
            assertNotEquals(0, exit, text);
            assertTrue(text.contains("the event store could not be opened"), "logged by the storage thread:\n" + text);
            assertTrue(text.contains("fsync is fixed by the node"), "with the reason:\n" + text);
            assertEquals(List.of(), MeshnodeProcess.livePostmasters(dir));
        } finally {
            MeshnodeProcess.stopLeftoverPostmasters(dir);
            MeshnodeProcess.deleteDataDir(dir);
        }
    }
}
