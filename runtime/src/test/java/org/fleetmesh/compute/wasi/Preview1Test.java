package org.fleetmesh.compute.wasi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;

import org.fleetmesh.spi.compute.Guest;
import org.fleetmesh.spi.compute.GuestExit;
import org.fleetmesh.spi.compute.HostAbort;
import org.fleetmesh.spi.compute.HostImport;
import org.junit.jupiter.api.Test;

/** The preview1 host against an in-memory guest: answers, errnos, fuel, limits. */
class Preview1Test {

    /** One page of little-endian memory and a fuel counter. */
    static final class Memory implements Guest {
        final ByteBuffer b = ByteBuffer.allocate(65536).order(ByteOrder.LITTLE_ENDIAN);
        long fuel = 1_000_000;

        public long memorySize() {
            return b.capacity();
        }

        void check(int a, long n) {
            if (a < 0 || a + n > b.capacity()) {
                throw new HostAbort(HostAbort.Reason.MEMORY_FAULT, "out");
            }
        }

        public byte[] read(int a, int n) {
            check(a, n);
            return Arrays.copyOfRange(b.array(), a, a + n);
        }

        public void write(int a, byte[] x) {
            check(a, x.length);
            System.arraycopy(x, 0, b.array(), a, x.length);
        }

        public int readI32(int a) {
            check(a, 4);
            return b.getInt(a);
        }

        public void writeI32(int a, int v) {
            check(a, 4);
            b.putInt(a, v);
        }

        public void writeI64(int a, long v) {
            check(a, 8);
            b.putLong(a, v);
        }

        public long fuel() {
            return fuel;
        }

        public void fuel(long left) {
            fuel = left;
        }
    }

    static int index(String name) {
        List<HostImport> f = Preview1.functions();
        for (int i = 0; i < f.size(); i++) {
            if (f.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException(name);
    }

    static long call(Preview1 h, Memory m, String name, long... args) {
        long[] r = h.call(index(name), m, args);
        return r.length == 0 ? -1 : r[0];
    }

    final Memory m = new Memory();

    Preview1 host(byte[] stdin, int outputLimit) {
        return new Preview1(List.of("a", "bc"), stdin, 7, new byte[32], outputLimit);
    }

    @Test
    void offersAllFortySixPreview1Functions() {
        assertEquals(46, Preview1.functions().size());
        assertEquals(46, Preview1.functions().stream().map(HostImport::name).distinct().count());
    }

    @Test
    void argsAreMainThenTheJobsAndEachCallCostsFuel() {
        Preview1 h = host(new byte[0], 100);
        assertEquals(0, call(h, m, "args_sizes_get", 0, 4));
        assertEquals(3, m.b.getInt(0));
        assertEquals(5 + 2 + 3, m.b.getInt(4));
        assertEquals(1_000_000 - 100, m.fuel);
        assertEquals(0, call(h, m, "args_get", 100, 200));
        assertEquals(1_000_000 - 100 - 100 - 10, m.fuel);
        assertEquals(200, m.b.getInt(100));
        assertEquals("main\0a\0bc\0", new String(m.read(200, 10)));
    }

    @Test
    void noEnvironmentNoPreopensNoFilesNoSockets() {
        Preview1 h = host(new byte[0], 100);
        assertEquals(0, call(h, m, "environ_sizes_get", 0, 4));
        assertEquals(0, m.b.getInt(0));
        assertEquals(Preview1.EBADF, call(h, m, "fd_prestat_get", 3, 0));
        assertEquals(Preview1.ENOTCAPABLE, call(h, m, "path_open", 3, 0, 0, 0, 0, 0, 0, 0, 0));
        assertEquals(Preview1.ENOTCAPABLE, call(h, m, "sock_accept", 3, 0, 0));
        assertEquals(Preview1.ENOSYS, call(h, m, "poll_oneoff", 0, 0, 0, 0));
        assertEquals(Preview1.ESPIPE, call(h, m, "fd_seek", 1, 0, 0, 0));
        assertEquals(Preview1.EBADF, call(h, m, "fd_seek", 5, 0, 0, 0));
        assertEquals(Preview1.EBADF, call(h, m, "fd_write", 5, 0, 0, 0));
        assertEquals(Preview1.EBADF, call(h, m, "fd_read", 1, 0, 0, 0));
        assertEquals(Preview1.EINVAL, call(h, m, "fd_write", 1, 0, 1025, 0));
        assertEquals(0, call(h, m, "sched_yield"));
    }

    @Test
    void clocksArePinnedToTheJobsTime() {
        Preview1 h = host(new byte[0], 100);
        assertEquals(0, call(h, m, "clock_time_get", 0, 1, 8));
        assertEquals(7_000_000_000L, m.b.getLong(8));
        assertEquals(0, call(h, m, "clock_time_get", 1, 1, 8));
        assertEquals(7_000_000_000L, m.b.getLong(8));
        assertEquals(Preview1.EINVAL, call(h, m, "clock_time_get", 9, 1, 8));
    }

    @Test
    void randomIsTheSeedsHashStreamAcrossCalls() throws Exception {
        Preview1 h = host(new byte[0], 100);
        assertEquals(0, call(h, m, "random_get", 0, 20));
        assertEquals(0, call(h, m, "random_get", 20, 20));
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        byte[] b0 = d.digest(new byte[40]);
        byte[] in1 = new byte[40];
        in1[39] = 1;
        byte[] b1 = d.digest(in1);
        byte[] expected = new byte[40];
        System.arraycopy(b0, 0, expected, 0, 32);
        System.arraycopy(b1, 0, expected, 32, 8);
        assertArrayEquals(expected, m.read(0, 40));
        assertThrows(HostAbort.class, () -> call(h, m, "random_get", 65530, 20));
    }

    @Test
    void stdinIsReadThenEndOfFile() {
        Preview1 h = host("hello".getBytes(), 100);
        m.writeI32(0, 100);
        m.writeI32(4, 3);
        assertEquals(0, call(h, m, "fd_read", 0, 0, 1, 8));
        assertEquals(3, m.readI32(8));
        assertEquals(0, call(h, m, "fd_read", 0, 0, 1, 8));
        assertEquals(2, m.readI32(8));
        assertEquals(0, call(h, m, "fd_read", 0, 0, 1, 8));
        assertEquals(0, m.readI32(8));
        assertEquals("lol", new String(m.read(100, 3))); // the second read put "lo" over "hel"
    }

    /**
     * fd_read reads its whole iovec array before any byte lands (POSIX readv, node:wasi, wasmtime): the first buffer
     * here overlaps the second iovec, and the input rewrites that iovec to point at 2000; the second read still goes
     * to 1000.
     */
    @Test
    void fdReadTakesItsIovecsBeforeFillingThem() {
        byte[] in = new byte[12];
        ByteBuffer.wrap(in).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 2000).putInt(4, 4).put(8, "QRST".getBytes());
        Preview1 h = host(in, 100);
        m.writeI32(0, 8); // iov[0]: 8 bytes over iov[1]
        m.writeI32(4, 8);
        m.writeI32(8, 1000); // iov[1]: 4 bytes at 1000
        m.writeI32(12, 4);
        assertEquals(0, call(h, m, "fd_read", 0, 0, 2, 40));
        assertEquals(12, m.readI32(40));
        assertEquals("QRST", new String(m.read(1000, 4)));
        assertArrayEquals(new byte[4], m.read(2000, 4));
    }

    /**
     * An fd_read buffer that lies past the memory stops the job however many input bytes are left to fill it (before,
     * only the bytes actually read were checked: 3 bytes of input into [65530, 65540) succeeded, and at end of file any
     * buffer did).
     */
    @Test
    void anFdReadBufferPastTheMemoryIsAFaultWhateverTheInputLeft() {
        Preview1 h = host("xyz".getBytes(), 100);
        m.writeI32(0, 65530);
        m.writeI32(4, 10);
        HostAbort a = assertThrows(HostAbort.class, () -> call(h, m, "fd_read", 0, 0, 1, 8));
        assertEquals(HostAbort.Reason.MEMORY_FAULT, a.reason());
        assertEquals("host access at 65530+10 past the memory", a.getMessage());
        Preview1 empty = host(new byte[0], 100);
        m.writeI32(0, 0x7FFFFFF0);
        assertEquals(HostAbort.Reason.MEMORY_FAULT,
                assertThrows(HostAbort.class, () -> call(empty, m, "fd_read", 0, 0, 1, 8)).reason());
        m.writeI32(0, 65526); // ends exactly at the memory's end: fine
        assertEquals(0, call(h, m, "fd_read", 0, 0, 1, 8));
        assertEquals(3, m.readI32(8));
        assertEquals("xyz", new String(m.read(65526, 3)));
    }

    @Test
    void stdoutAndStderrShareTheOutputLimit() {
        Preview1 h = host(new byte[0], 10);
        m.write(100, "123456".getBytes());
        m.writeI32(0, 100);
        m.writeI32(4, 6);
        assertEquals(0, call(h, m, "fd_write", 1, 0, 1, 8));
        assertEquals(6, m.readI32(8));
        HostAbort a = assertThrows(HostAbort.class, () -> call(h, m, "fd_write", 2, 0, 1, 8));
        assertEquals(HostAbort.Reason.OUTPUT_LIMIT, a.reason());
        assertEquals("123456", new String(h.stdout()));
        assertEquals(0, h.stderr().length);
    }

    /** A write whose buffer lies past the memory is a memory fault, even when it is also more than the output limit. */
    @Test
    void aWritePastTheMemoryIsAFaultBeforeItIsTooMuchOutput() {
        Preview1 h = host(new byte[0], 10);
        m.writeI32(0, 100);
        m.writeI32(4, 0xFFFFFFFF); // 4 GiB - 1 from address 100
        HostAbort a = assertThrows(HostAbort.class, () -> call(h, m, "fd_write", 1, 0, 1, 8));
        assertEquals(HostAbort.Reason.MEMORY_FAULT, a.reason());
        assertEquals("host access at 100+4294967295 past the memory", a.getMessage());
        m.writeI32(4, 65536 - 100 + 1); // one byte past the end, within no output limit either
        assertEquals(HostAbort.Reason.MEMORY_FAULT,
                assertThrows(HostAbort.class, () -> call(h, m, "fd_write", 1, 0, 1, 8)).reason());
        assertEquals(0, h.stdout().length);
    }

    /**
     * A zero-length fd_write iovec at an address past the memory's end stops the job as random_get's and fd_read's do
     * (before, it was skipped unchecked); one that starts exactly at the end is within the memory.
     */
    @Test
    void aZeroLengthWritePastTheMemoryIsAFault() {
        Preview1 h = host(new byte[0], 10);
        m.writeI32(0, 65536);
        m.writeI32(4, 0);
        assertEquals(0, call(h, m, "fd_write", 1, 0, 1, 8));
        assertEquals(0, m.readI32(8));
        m.writeI32(0, 0x7FFFFFF0);
        HostAbort a = assertThrows(HostAbort.class, () -> call(h, m, "fd_write", 1, 0, 1, 8));
        assertEquals(HostAbort.Reason.MEMORY_FAULT, a.reason());
        assertEquals("host access at 2147483632+0 past the memory", a.getMessage());
    }

    @Test
    void aCallThatCostsMoreThanIsLeftStopsTheJob() {
        Preview1 h = host(new byte[0], 1000);
        m.fuel = 150;
        m.write(100, new byte[60]);
        m.writeI32(0, 100);
        m.writeI32(4, 60);
        HostAbort a = assertThrows(HostAbort.class, () -> call(h, m, "fd_write", 1, 0, 1, 8));
        assertEquals(HostAbort.Reason.FUEL_EXHAUSTED, a.reason());
        assertTrue(m.fuel < 0);
    }

    @Test
    void procExitEndsTheJobWithItsCode() {
        Preview1 h = host(new byte[0], 100);
        assertEquals(42, assertThrows(GuestExit.class, () -> call(h, m, "proc_exit", 42)).code());
    }
}
