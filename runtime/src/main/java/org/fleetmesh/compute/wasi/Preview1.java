package org.fleetmesh.compute.wasi;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.fleetmesh.spi.compute.Guest;
import org.fleetmesh.spi.compute.GuestExit;
import org.fleetmesh.spi.compute.Host;
import org.fleetmesh.spi.compute.HostAbort;
import org.fleetmesh.spi.compute.HostImport;
import org.fleetmesh.spi.compute.ValType;

/**
 * fleetmesh's WASI preview 1 host for one run (docs/spec/compute-sandbox.md, "Host"): argv = "main" and the job's
 * arguments, no environment, stdin = the input, stdout and stderr captured (together at most the output limit), both
 * clocks pinned to the job's time, random from SHA-256(seed ‖ counter), no preopened directories; every other
 * preview1 function answers an errno. Each call charges {@link #CALL_FUEL} plus {@link #BYTE_FUEL} per data byte it
 * copies into or out of the guest's memory. One instance serves one run (it holds the run's streams).
 */
public final class Preview1 implements Host {
    public static final String MODULE = "wasi_snapshot_preview1";
    /** Fuel every host call costs. */
    public static final long CALL_FUEL = 100;
    /** Fuel per data byte a host call copies (argument strings, stdin read, stdout/stderr written, random bytes). */
    public static final long BYTE_FUEL = 1;
    /** iovec arrays longer than this are refused with EINVAL (POSIX IOV_MAX). */
    public static final int IOV_MAX = 1024;

    /** Errno values as preview1 defines them. */
    public static final int SUCCESS = 0, EBADF = 8, EFAULT = 21, EINVAL = 28, ENOSYS = 52, ENOTSUP = 58,
            ESPIPE = 70, ENOTCAPABLE = 76;

    private static final List<HostImport> FUNCTIONS;
    private static final Map<String, Integer> INDEX = new HashMap<>();

    static {
        // name, params (i = i32, I = i64), results
        String[][] table = {
                {"args_get", "ii", "i"}, {"args_sizes_get", "ii", "i"},
                {"environ_get", "ii", "i"}, {"environ_sizes_get", "ii", "i"},
                {"clock_res_get", "ii", "i"}, {"clock_time_get", "iIi", "i"},
                {"fd_advise", "iIIi", "i"}, {"fd_allocate", "iII", "i"}, {"fd_close", "i", "i"},
                {"fd_datasync", "i", "i"}, {"fd_fdstat_get", "ii", "i"}, {"fd_fdstat_set_flags", "ii", "i"},
                {"fd_fdstat_set_rights", "iII", "i"}, {"fd_filestat_get", "ii", "i"},
                {"fd_filestat_set_size", "iI", "i"}, {"fd_filestat_set_times", "iIIi", "i"},
                {"fd_pread", "iiiIi", "i"}, {"fd_prestat_get", "ii", "i"}, {"fd_prestat_dir_name", "iii", "i"},
                {"fd_pwrite", "iiiIi", "i"}, {"fd_read", "iiii", "i"}, {"fd_readdir", "iiiIi", "i"},
                {"fd_renumber", "ii", "i"}, {"fd_seek", "iIii", "i"}, {"fd_sync", "i", "i"},
                {"fd_tell", "ii", "i"}, {"fd_write", "iiii", "i"},
                {"path_create_directory", "iii", "i"}, {"path_filestat_get", "iiiii", "i"},
                {"path_filestat_set_times", "iiiiIIi", "i"}, {"path_link", "iiiiiii", "i"},
                {"path_open", "iiiiiIIii", "i"}, {"path_readlink", "iiiiii", "i"},
                {"path_remove_directory", "iii", "i"}, {"path_rename", "iiiiii", "i"},
                {"path_symlink", "iiiii", "i"}, {"path_unlink_file", "iii", "i"},
                {"poll_oneoff", "iiii", "i"}, {"proc_exit", "i", ""}, {"proc_raise", "i", "i"},
                {"sched_yield", "", "i"}, {"random_get", "ii", "i"},
                {"sock_accept", "iii", "i"}, {"sock_recv", "iiiiii", "i"}, {"sock_send", "iiiii", "i"},
                {"sock_shutdown", "ii", "i"},
        };
        List<HostImport> f = new ArrayList<>();
        for (String[] row : table) {
            INDEX.put(row[0], f.size());
            f.add(new HostImport(MODULE, row[0], types(row[1]), types(row[2])));
        }
        FUNCTIONS = List.copyOf(f);
    }

    private static List<ValType> types(String s) {
        List<ValType> t = new ArrayList<>();
        for (char c : s.toCharArray()) {
            t.add(c == 'i' ? ValType.I32 : ValType.I64);
        }
        return t;
    }

    private final byte[][] argv;
    private final byte[] stdin;
    private int stdinPos;
    private final long timeNanos;
    private final byte[] seed;
    private final int outputLimit;
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private long randomCounter;
    private byte[] randomBlock = new byte[0];
    private int randomPos;

    /**
     * @param args        the job's arguments (argv[1..]; argv[0] is {@code main})
     * @param timeSeconds the job's time: both clocks read it, in nanoseconds
     * @param seed        32 bytes
     */
    public Preview1(List<String> args, byte[] stdin, long timeSeconds, byte[] seed, int outputLimit) {
        argv = new byte[args.size() + 1][];
        argv[0] = "main".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < args.size(); i++) {
            argv[i + 1] = args.get(i).getBytes(StandardCharsets.UTF_8);
        }
        this.stdin = stdin;
        this.timeNanos = Math.multiplyExact(timeSeconds, 1_000_000_000L);
        this.seed = seed.clone();
        this.outputLimit = outputLimit;
    }

    /** Every preview1 function with its signature, in a fixed order. */
    public static List<HostImport> functions() {
        return FUNCTIONS;
    }

    /** Whether {@code name} with these types is a preview1 function (admission's import check). */
    public static boolean offers(String name, List<ValType> params, List<ValType> results) {
        Integer i = INDEX.get(name);
        return i != null && FUNCTIONS.get(i).params().equals(params) && FUNCTIONS.get(i).results().equals(results);
    }

    @Override
    public List<HostImport> imports() {
        return FUNCTIONS;
    }

    public byte[] stdout() {
        return stdout.toByteArray();
    }

    public byte[] stderr() {
        return stderr.toByteArray();
    }

    @Override
    public long[] call(int index, Guest guest, long[] a) {
        charge(guest, CALL_FUEL);
        String name = FUNCTIONS.get(index).name();
        int r = switch (name) {
            case "args_sizes_get" -> {
                long bytes = 0;
                for (byte[] s : argv) {
                    bytes += s.length + 1;
                }
                guest.writeI32(i(a[0]), argv.length);
                guest.writeI32(i(a[1]), (int) bytes);
                yield SUCCESS;
            }
            case "args_get" -> argsGet(guest, i(a[0]), i(a[1]));
            case "environ_sizes_get" -> {
                guest.writeI32(i(a[0]), 0);
                guest.writeI32(i(a[1]), 0);
                yield SUCCESS;
            }
            case "environ_get" -> SUCCESS;
            case "clock_res_get" -> {
                if (a[0] < 0 || a[0] > 3) {
                    yield EINVAL;
                }
                guest.writeI64(i(a[1]), 1);
                yield SUCCESS;
            }
            case "clock_time_get" -> {
                int id = i(a[0]);
                if (id < 0 || id > 3) {
                    yield EINVAL;
                }
                // realtime and monotonic read the job's time; the CPU-time clocks read 0
                guest.writeI64(i(a[2]), id <= 1 ? timeNanos : 0);
                yield SUCCESS;
            }
            case "fd_read" -> fdRead(guest, i(a[0]), i(a[1]), i(a[2]), i(a[3]));
            case "fd_write" -> fdWrite(guest, i(a[0]), i(a[1]), i(a[2]), i(a[3]));
            case "fd_fdstat_get" -> {
                int fd = i(a[0]);
                if (fd < 0 || fd > 2) {
                    yield EBADF;
                }
                byte[] st = new byte[24]; // filetype unknown, no flags, rights: read on 0, write on 1 and 2
                long rights = fd == 0 ? 1L << 1 : 1L << 6;
                ByteBuffer.wrap(st).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(8, rights);
                guest.write(i(a[1]), st);
                yield SUCCESS;
            }
            case "fd_close" -> stdio(a[0]) ? SUCCESS : EBADF;
            case "fd_seek", "fd_tell" -> stdio(a[0]) ? ESPIPE : EBADF;
            case "fd_prestat_get", "fd_prestat_dir_name" -> EBADF;
            case "fd_advise", "fd_allocate", "fd_datasync", "fd_fdstat_set_flags", "fd_fdstat_set_rights",
                    "fd_filestat_get", "fd_filestat_set_size", "fd_filestat_set_times", "fd_pread", "fd_pwrite",
                    "fd_readdir", "fd_renumber", "fd_sync" -> stdio(a[0]) ? ENOTCAPABLE : EBADF;
            case "proc_exit" -> throw new GuestExit(i(a[0]));
            case "proc_raise", "poll_oneoff" -> ENOSYS;
            case "sched_yield" -> SUCCESS;
            case "random_get" -> randomGet(guest, i(a[0]), i(a[1]));
            default -> ENOTCAPABLE; // path_* and sock_*: no filesystem, no sockets
        };
        return new long[] {r};
    }

    private static int i(long v) {
        return (int) v;
    }

    private static boolean stdio(long fd) {
        return fd >= 0 && fd <= 2;
    }

    private static void charge(Guest guest, long cost) {
        long left = guest.fuel() - cost;
        guest.fuel(left);
        if (left < 0) {
            throw new HostAbort(HostAbort.Reason.FUEL_EXHAUSTED, "fuel exhausted in a host call");
        }
    }

    private int argsGet(Guest guest, int argvPtr, int bufPtr) {
        long bytes = 0;
        for (byte[] s : argv) {
            bytes += s.length + 1;
        }
        charge(guest, bytes * BYTE_FUEL);
        int p = bufPtr;
        for (int k = 0; k < argv.length; k++) {
            guest.writeI32(argvPtr + 4 * k, p);
            byte[] z = new byte[argv[k].length + 1];
            System.arraycopy(argv[k], 0, z, 0, argv[k].length);
            guest.write(p, z);
            p += z.length;
        }
        return SUCCESS;
    }

    private int fdRead(Guest guest, int fd, int iovs, int iovsLen, int nreadPtr) {
        if (fd != 0) {
            return EBADF;
        }
        if (iovsLen < 0 || iovsLen > IOV_MAX) {
            return EINVAL;
        }
        // the whole iovec array is read before any byte lands, as readv does: a buffer that overlaps the array
        // does not change which buffers this call fills
        int[] bufs = new int[iovsLen];
        int[] lens = new int[iovsLen];
        for (int k = 0; k < iovsLen; k++) {
            bufs[k] = guest.readI32(iovs + 8 * k);
            lens[k] = guest.readI32(iovs + 8 * k + 4);
            // a buffer past the memory stops the job whatever the input left fills of it (as fd_write)
            pastTheMemory(guest, bufs[k], Integer.toUnsignedLong(lens[k]));
        }
        long total = 0;
        for (int k = 0; k < iovsLen; k++) {
            int n = (int) Math.min(Integer.toUnsignedLong(lens[k]), stdin.length - stdinPos);
            if (n > 0) {
                charge(guest, n * BYTE_FUEL);
                byte[] chunk = new byte[n];
                System.arraycopy(stdin, stdinPos, chunk, 0, n);
                guest.write(bufs[k], chunk);
                stdinPos += n;
                total += n;
            }
            if (stdinPos == stdin.length) {
                break;
            }
        }
        guest.writeI32(nreadPtr, (int) total);
        return SUCCESS;
    }

    private int fdWrite(Guest guest, int fd, int iovs, int iovsLen, int nwrittenPtr) {
        if (fd != 1 && fd != 2) {
            return EBADF;
        }
        if (iovsLen < 0 || iovsLen > IOV_MAX) {
            return EINVAL;
        }
        ByteArrayOutputStream out = fd == 1 ? stdout : stderr;
        long total = 0;
        for (int k = 0; k < iovsLen; k++) {
            int buf = guest.readI32(iovs + 8 * k);
            long len = Integer.toUnsignedLong(guest.readI32(iovs + 8 * k + 4));
            // a pointer past the memory is the guest's fault before it is too much output (compute-sandbox.md)
            pastTheMemory(guest, buf, len);
            if (len == 0) {
                continue;
            }
            if (stdout.size() + (long) stderr.size() + len > outputLimit) {
                throw new HostAbort(HostAbort.Reason.OUTPUT_LIMIT, "stdout and stderr would pass " + outputLimit
                        + " bytes");
            }
            charge(guest, len * BYTE_FUEL);
            out.writeBytes(guest.read(buf, (int) len));
            total += len;
        }
        guest.writeI32(nwrittenPtr, (int) total);
        return SUCCESS;
    }

    /** Stops the job when [buf, buf + len) is not within the memory (so len 0 at an address past its end too). */
    private static void pastTheMemory(Guest guest, int buf, long len) {
        if (Integer.toUnsignedLong(buf) + len > guest.memorySize()) {
            throw new HostAbort(HostAbort.Reason.MEMORY_FAULT, "host access at " + Integer.toUnsignedString(buf) + "+"
                    + len + " past the memory");
        }
    }

    private int randomGet(Guest guest, int buf, int len) {
        long n = Integer.toUnsignedLong(len);
        pastTheMemory(guest, buf, n);
        charge(guest, n * BYTE_FUEL);
        byte[] out = new byte[len];
        for (int k = 0; k < len; k++) {
            if (randomPos == randomBlock.length) {
                randomBlock = block(randomCounter++);
                randomPos = 0;
            }
            out[k] = randomBlock[randomPos++];
        }
        guest.write(buf, out);
        return SUCCESS;
    }

    /** SHA-256(seed ‖ counter as 8 bytes big-endian): block {@code counter} of the random stream. */
    private byte[] block(long counter) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(seed);
            d.update(ByteBuffer.allocate(8).putLong(counter).array());
            return d.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
