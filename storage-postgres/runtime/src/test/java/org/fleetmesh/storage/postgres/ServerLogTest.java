package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerLogTest {
    @TempDir
    Path dir;

    /** As the server writes: one append-mode descriptor, open across the cut. */
    @Test
    void aLogPastItsCapIsKeptAsThePreviousPartAndTheWriterGoesOnAtTheNewEnd() throws Exception {
        Path log = dir.resolve("postgres.log");
        byte[] first = new byte[3000];
        Arrays.fill(first, (byte) 'a');
        try (FileOutputStream server = new FileOutputStream(log.toFile(), true)) {
            server.write(first);
            server.flush();
            assertFalse(ServerLog.cut(log, 3000), "at the cap: kept");
            server.write('b');
            server.flush();
            assertTrue(ServerLog.cut(log, 3000));
            assertEquals(0, Files.size(log));
            byte[] previous = Files.readAllBytes(dir.resolve("postgres.log.1"));
            assertEquals(3001, previous.length);
            assertEquals('b', previous[3000]);
            server.write("next line\n".getBytes(StandardCharsets.UTF_8));
        }
        assertArrayEquals("next line\n".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(log),
                "the server's next write lands at the start of the cut file, not after a hole");
    }

    @Test
    void theNextCutReplacesThePreviousPart() throws Exception {
        Path log = dir.resolve("postgres.log");
        Files.write(log, new byte[200]);
        assertTrue(ServerLog.cut(log, 100));
        Files.writeString(log, "x".repeat(150));
        assertTrue(ServerLog.cut(log, 100));
        assertEquals("x".repeat(150), Files.readString(dir.resolve("postgres.log.1")));
        assertFalse(ServerLog.cut(dir.resolve("absent.log"), 100));
    }

    /** The JVM that starts the server holds its log to the bound from the start: a log left too large is cut. */
    @Test
    void theClusterCutsALogLeftPastTheCapWhenItStartsTheServer() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(dir)) {
            assertTrue(c.owner());
        }
        Path log = dir.resolve(EmbeddedCluster.LOG_FILE);
        byte[] old = new byte[(int) ServerLog.CAP + 1];
        Arrays.fill(old, (byte) '#');
        Files.write(log, old);
        try (PostgresStorage s = PostgresStorage.openFromConfig(dir, Optional.empty(), Optional.empty(),
                Optional.empty())) {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (Files.size(log) > ServerLog.CAP && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(Files.size(log) < ServerLog.CAP, "cut at start: " + Files.size(log));
            assertTrue(Files.size(dir.resolve(EmbeddedCluster.LOG_FILE + ".1")) > ServerLog.CAP);
        }
    }
}
