package org.fleetmesh.compute.wasmtime;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.spi.compute.Metered;

/**
 * Adds three exported functions to a metered module: {@code fleetmesh_fuel_get () -> i64}, {@code fleetmesh_fuel_set
 * (i64) -> ()} and {@code fleetmesh_flags_get () -> i32}, each one {@code global.get}/{@code global.set} of the
 * exported globals {@link Metered#FUEL_GLOBAL} and {@link Metered#FLAGS_GLOBAL}. wasmtime-java 0.19 gives the host no
 * handle on an instance's globals outside a host call, and the fuel must be set before {@code _start} runs and read
 * after it ends. The functions are appended after every other function, type and export (no index moves), and the
 * metered code never calls them, so {@code fuel_used} is that of the module every other engine runs.
 */
final class Accessors {
    static final String FUEL_GET = "fleetmesh_fuel_get";
    static final String FUEL_SET = "fleetmesh_fuel_set";
    static final String FLAGS_GET = "fleetmesh_flags_get";

    private static final int TYPE = 1;
    private static final int IMPORT = 2;
    private static final int FUNCTION = 3;
    private static final int MEMORY = 5;
    private static final int EXPORT = 7;
    private static final int CODE = 10;

    /** What the rewrite found: the rewritten bytes and the memory's initial size in pages (-1 when it has none). */
    record Rewritten(byte[] module, long initialPages) {
    }

    private Accessors() {
    }

    /** @throws IllegalArgumentException when the module is not one the core's metering wrote (says why) */
    static Rewritten add(byte[] module) {
        if (module.length < 8 || module[0] != 0 || module[1] != 'a' || module[2] != 's' || module[3] != 'm'
                || module[4] != 1 || module[5] != 0 || module[6] != 0 || module[7] != 0) {
            throw new IllegalArgumentException("not a WebAssembly 1.0 binary");
        }
        List<int[]> sections = new ArrayList<>(); // {id, payload start, payload end}
        Reader r = new Reader(module, 8);
        while (r.pos < module.length) {
            int id = r.u8();
            long size = r.u32();
            if (size > module.length - r.pos) {
                throw new IllegalArgumentException("section " + id + " runs past the end");
            }
            sections.add(new int[] {id, r.pos, r.pos + (int) size});
            r.pos += (int) size;
        }
        long types = 0;
        long importedFunctions = 0;
        long functions = 0;
        long fuelGlobal = -1;
        long flagsGlobal = -1;
        long initialPages = -1;
        for (int[] s : sections) {
            Reader p = new Reader(module, s[1]);
            switch (s[0]) {
                case TYPE:
                    types = p.u32();
                    break;
                case IMPORT: {
                    long n = p.u32();
                    for (long i = 0; i < n; i++) {
                        p.name();
                        p.name();
                        int kind = p.u8();
                        switch (kind) {
                            case 0:
                                p.u32();
                                importedFunctions++;
                                break;
                            case 1:
                                p.u8();
                                p.limits();
                                break;
                            case 2:
                                initialPages = p.limits();
                                break;
                            case 3:
                                p.u8();
                                p.u8();
                                break;
                            default:
                                throw new IllegalArgumentException("import kind " + kind);
                        }
                    }
                    break;
                }
                case FUNCTION:
                    functions = p.u32();
                    break;
                case MEMORY:
                    if (p.u32() > 0) {
                        initialPages = p.limits();
                    }
                    break;
                case EXPORT: {
                    long n = p.u32();
                    for (long i = 0; i < n; i++) {
                        String name = p.name();
                        int kind = p.u8();
                        long index = p.u32();
                        if (kind == 3 && name.equals(Metered.FUEL_GLOBAL)) {
                            fuelGlobal = index;
                        } else if (kind == 3 && name.equals(Metered.FLAGS_GLOBAL)) {
                            flagsGlobal = index;
                        }
                    }
                    break;
                }
                default:
                    break;
            }
        }
        if (fuelGlobal < 0 || flagsGlobal < 0) {
            throw new IllegalArgumentException("the module does not export the globals " + Metered.FUEL_GLOBAL
                    + " and " + Metered.FLAGS_GLOBAL + " (is it metered?)");
        }
        long first = importedFunctions + functions;
        ByteArrayOutputStream out = new ByteArrayOutputStream(module.length + 128);
        out.write(module, 0, 8);
        boolean[] done = new boolean[13];
        for (int[] s : sections) {
            int id = s[0];
            // a section this rewrite needs but the module lacks goes before the first known section after it
            for (int missing : new int[] {TYPE, FUNCTION, EXPORT, CODE}) {
                if (!done[missing] && id != 0 && order(id) > order(missing) && !has(sections, missing)) {
                    section(out, missing, extend(missing, new byte[] {0}, 0, 1, types, fuelGlobal, flagsGlobal,
                            first));
                    done[missing] = true;
                }
            }
            if (id == TYPE || id == FUNCTION || id == EXPORT || id == CODE) {
                section(out, id, extend(id, module, s[1], s[2], types, fuelGlobal, flagsGlobal, first));
                done[id] = true;
            } else {
                section(out, id, java.util.Arrays.copyOfRange(module, s[1], s[2]));
            }
        }
        for (int missing : new int[] {TYPE, FUNCTION, EXPORT, CODE}) {
            if (!done[missing]) {
                section(out, missing, extend(missing, new byte[] {0}, 0, 1, types, fuelGlobal, flagsGlobal, first));
            }
        }
        return new Rewritten(out.toByteArray(), initialPages);
    }

    private static boolean has(List<int[]> sections, int id) {
        for (int[] s : sections) {
            if (s[0] == id) {
                return true;
            }
        }
        return false;
    }

    /** Position of a section id in the binary's required order (custom sections 0 go anywhere). */
    private static int order(int id) {
        // type import function table memory global export start element datacount code data
        int[] rank = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 10};
        return id < rank.length ? rank[id] : 99;
    }

    /** The payload {@code [from, to)} of section {@code id} with the three accessors' entries appended. */
    private static byte[] extend(int id, byte[] b, int from, int to, long types, long fuel, long flags, long first) {
        Reader p = new Reader(b, from);
        long count = p.u32();
        ByteArrayOutputStream o = new ByteArrayOutputStream(to - from + 64);
        u32(o, count + 3);
        o.write(b, p.pos, to - p.pos);
        switch (id) {
            case TYPE:
                o.writeBytes(new byte[] {0x60, 0, 1, 0x7E}); // () -> i64
                o.writeBytes(new byte[] {0x60, 1, 0x7E, 0}); // (i64) -> ()
                o.writeBytes(new byte[] {0x60, 0, 1, 0x7F}); // () -> i32
                break;
            case FUNCTION:
                u32(o, types);
                u32(o, types + 1);
                u32(o, types + 2);
                break;
            case EXPORT:
                export(o, FUEL_GET, first);
                export(o, FUEL_SET, first + 1);
                export(o, FLAGS_GET, first + 2);
                break;
            case CODE:
                body(o, new byte[] {0x23}, fuel); // global.get
                body(o, new byte[] {0x20, 0, 0x24}, fuel); // local.get 0; global.set
                body(o, new byte[] {0x23}, flags);
                break;
            default:
                throw new IllegalStateException();
        }
        return o.toByteArray();
    }

    private static void export(ByteArrayOutputStream o, String name, long function) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        u32(o, n.length);
        o.writeBytes(n);
        o.write(0);
        u32(o, function);
    }

    private static void body(ByteArrayOutputStream o, byte[] op, long global) {
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        f.write(0); // no locals
        f.writeBytes(op);
        u32(f, global);
        f.write(0x0B);
        u32(o, f.size());
        o.writeBytes(f.toByteArray());
    }

    private static void section(ByteArrayOutputStream out, int id, byte[] payload) {
        out.write(id);
        u32(out, payload.length);
        out.writeBytes(payload);
    }

    private static void u32(ByteArrayOutputStream o, long v) {
        do {
            int b = (int) (v & 0x7F);
            v >>>= 7;
            o.write(v != 0 ? b | 0x80 : b);
        } while (v != 0);
    }

    private static final class Reader {
        final byte[] b;
        int pos;

        Reader(byte[] b, int pos) {
            this.b = b;
            this.pos = pos;
        }

        int u8() {
            if (pos >= b.length) {
                throw new IllegalArgumentException("unexpected end of the module");
            }
            return b[pos++] & 0xFF;
        }

        long u32() {
            long v = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                int x = u8();
                v |= (long) (x & 0x7F) << shift;
                if ((x & 0x80) == 0) {
                    if (v > 0xFFFFFFFFL) {
                        throw new IllegalArgumentException("a u32 over 32 bits");
                    }
                    return v;
                }
            }
            throw new IllegalArgumentException("a u32 longer than 5 bytes");
        }

        String name() {
            long n = u32();
            if (n > b.length - pos) {
                throw new IllegalArgumentException("a name runs past the end");
            }
            String s = new String(b, pos, (int) n, StandardCharsets.UTF_8);
            pos += (int) n;
            return s;
        }

        /** Reads limits; returns the minimum. */
        long limits() {
            int flags = u8();
            long min = u32();
            if ((flags & 1) != 0) {
                u32();
            }
            return min;
        }
    }
}
