package org.fleetmesh.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeLockTest {
    @TempDir
    Path tmp;

    /** The lock another process holds: what a second relay on the data dir, or {@code keys rotate}, runs into. */
    @Test
    void anotherProcessHoldsTheDataDirUntilItDies() throws Exception {
        Path dataDir = tmp.resolve("data");
        Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), Holder.class.getName(), dataDir.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.US_ASCII));
            assertEquals("held", r.readLine());

            assertEquals(OptionalLong.of(holder.pid()), NodeLock.holder(dataDir));
            NodeLock.HeldException e = assertThrows(NodeLock.HeldException.class, () -> NodeLock.acquire(dataDir));
            assertEquals(OptionalLong.of(holder.pid()), e.pid());
            assertTrue(e.getMessage().startsWith("another meshnode relay is running on " + dataDir.toAbsolutePath()
                    + " (pid " + holder.pid() + "): "), e.getMessage());
            // asking did not take the lock from the holder
            assertEquals(OptionalLong.of(holder.pid()), NodeLock.holder(dataDir));
        } finally {
            holder.destroyForcibly();
            assertTrue(holder.waitFor(30, TimeUnit.SECONDS));
        }
        // kill -9 leaves its pid in the file but no lock: nobody holds it, and the next node takes it
        assertEquals(Long.toString(holder.pid()), Files.readString(dataDir.resolve(NodeLock.FILE)).strip());
        assertEquals(OptionalLong.empty(), NodeLock.holder(dataDir));
        try (NodeLock l = NodeLock.acquire(dataDir)) {
            assertEquals(Long.toString(ProcessHandle.current().pid()), Files.readString(dataDir.resolve(NodeLock.FILE))
                    .strip());
        }
    }

    @Test
    void oneHolderInAJvmAndTakenAgainAfterRelease() throws Exception {
        Path dataDir = tmp.resolve("fresh").resolve("data");
        NodeLock first = NodeLock.acquire(dataDir);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dataDir)));
        NodeLock.HeldException e = assertThrows(NodeLock.HeldException.class, () -> NodeLock.acquire(dataDir));
        assertEquals(OptionalLong.of(ProcessHandle.current().pid()), e.pid());
        first.close();
        first.close(); // idempotent
        NodeLock.acquire(dataDir).close();
        assertEquals(OptionalLong.empty(), NodeLock.holder(tmp.resolve("never")));
    }

    /** A process that takes the lock, says so, and waits to be killed. */
    public static final class Holder {
        public static void main(String[] args) throws Exception {
            NodeLock.acquire(Path.of(args[0]));
            System.out.println("held");
            System.out.flush();
            Thread.sleep(120_000);
        }
    }
}
