package org.fleetmesh.compute.wasm;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.fleetmesh.spi.compute.Metered;

/**
 * Injects deterministic fuel metering into an admitted module (docs/spec/compute-sandbox.md, "Fuel"), the way
 * paritytech's wasm-instrument {@code gas_metering} does: the code of each function is cut into metered blocks
 * (straight runs that end at a control instruction: block, loop, if, else, end, br, br_if, br_table, return,
 * unreachable), and each block starts with a charge of the sum of its instructions' {@link #cost}s. Dynamic costs
 * are charged right before the instruction: {@code memory.grow} per page (and past the job's memory cap it sets
 * flags bit 0 and traps), bulk memory per 8 bytes, table bulk operations per element. The fuel and flags globals are
 * appended at the end of the global index space and exported, so no existing index moves. The output depends only on
 * the input bytes and the memory cap: every engine is given the same bytes.
 */
public final class Metering {
    /** Fuel per page {@code memory.grow} asks for (64 KiB it has to zero). */
    public static final long GROW_PAGE_FUEL = 1024;
    /** memory.copy / memory.fill / memory.init: fuel per started... per full 8 bytes (n >> 3). */
    public static final int BULK_BYTE_SHIFT = 3;
    /** table.copy / table.init / table.fill / table.grow: fuel per element. */
    public static final long TABLE_ELEMENT_FUEL = 1;

    private Metering() {
    }

    /**
     * The static cost of one instruction (opcode as {@link ModuleReader} gives it): 0 for the structure that does no
     * work (nop, block, loop, else, end), 4 for calls, 8 for call_indirect, 4 for integer division and remainder and
     * float division and square root, 16 for memory.grow (plus its per-page charge) and the bulk operations (plus
     * theirs), 1 for everything else.
     */
    public static long cost(int op) {
        switch (op) {
            case 0x01, 0x02, 0x03, 0x05, 0x0B:
                return 0;
            case 0x10:
                return 4;
            case 0x11:
                return 8;
            case 0x6D, 0x6E, 0x6F, 0x70, 0x7F, 0x80, 0x81, 0x82, 0x91, 0x95, 0x9F, 0xA3:
                return 4;
            case 0x40:
                return 16;
            default:
                if (op >= (ModuleReader.PREFIX_FC | 8) && op <= (ModuleReader.PREFIX_FC | 17)) {
                    return 16;
                }
                return 1;
        }
    }

    /** Whether a metered block ends after this instruction. */
    static boolean endsBlock(int op) {
        return switch (op) {
            case 0x00, 0x02, 0x03, 0x04, 0x05, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F -> true;
            default -> false;
        };
    }

    /** Instructions with a charge of their own right before them (they take a count as their last operand). */
    static boolean dynamic(int op) {
        return op == 0x40 || op == (ModuleReader.PREFIX_FC | 8) || op == (ModuleReader.PREFIX_FC | 10)
                || op == (ModuleReader.PREFIX_FC | 11) || op == (ModuleReader.PREFIX_FC | 12)
                || op == (ModuleReader.PREFIX_FC | 14) || op == (ModuleReader.PREFIX_FC | 15)
                || op == (ModuleReader.PREFIX_FC | 17);
    }

    /** The metered module for a job whose memory cap is {@code memoryPages}. */
    public static byte[] instrument(ModuleReader.Module module, int memoryPages) {
        return rewrite(module, true, memoryPages);
    }

    /** The module with the two exported globals added and no instruction metered (for measuring metering). */
    public static byte[] exportsOnly(ModuleReader.Module module) {
        return rewrite(module, false, 0);
    }

    private static byte[] rewrite(ModuleReader.Module m, boolean meter, int memoryPages) {
        byte[] in = m.bytes();
        int fuel = m.globalTypes().length; // no imported globals: admission refused them
        int flags = fuel + 1;
        Out out = new Out();
        out.raw(in, 0, 8);
        boolean globalsWritten = false;
        for (ModuleReader.Section s : m.sections()) {
            if (!globalsWritten && s.id() != ModuleReader.CUSTOM && ModuleReader.rank(s.id()) > 7) {
                if (s.id() != ModuleReader.GLOBAL) {
                    section(out, ModuleReader.GLOBAL, globals(in, null));
                }
                globalsWritten = true;
            }
            switch (s.id()) {
                case ModuleReader.GLOBAL -> {
                    section(out, ModuleReader.GLOBAL, globals(in, s));
                    globalsWritten = true;
                }
                case ModuleReader.EXPORT -> section(out, ModuleReader.EXPORT, exports(in, s, fuel, flags));
                case ModuleReader.CODE -> section(out, ModuleReader.CODE, meter
                        ? code(m, fuel, flags, memoryPages)
                        : slice(in, s.start(), s.end()));
                default -> {
                    out.u8(s.id());
                    out.u32(s.end() - s.start());
                    out.raw(in, s.start(), s.end() - s.start());
                }
            }
        }
        return out.toByteArray();
    }

    private static byte[] slice(byte[] in, int from, int to) {
        return java.util.Arrays.copyOfRange(in, from, to);
    }

    private static void section(Out out, int id, byte[] payload) {
        out.u8(id);
        out.u32(payload.length);
        out.raw(payload, 0, payload.length);
    }

    /** The old globals followed by fuel (i64 mut 0) and flags (i32 mut 0). */
    private static byte[] globals(byte[] in, ModuleReader.Section s) {
        Out o = new Out();
        int n = 0;
        int rest = 0;
        int restStart = 0;
        if (s != null) {
            ModuleReader.Cursor c = new ModuleReader.Cursor(in, s.start(), s.end());
            n = c.u32();
            restStart = c.pos;
            rest = s.end() - c.pos;
        }
        o.u32(n + 2);
        o.raw(in, restStart, rest);
        o.raw(new byte[] {0x7E, 0x01, 0x42, 0x00, 0x0B, 0x7F, 0x01, 0x41, 0x00, 0x0B}, 0, 10);
        return o.toByteArray();
    }

    private static byte[] exports(byte[] in, ModuleReader.Section s, int fuel, int flags) {
        ModuleReader.Cursor c = new ModuleReader.Cursor(in, s.start(), s.end());
        int n = c.u32();
        Out o = new Out();
        o.u32(n + 2);
        o.raw(in, c.pos, s.end() - c.pos);
        o.name(Metered.FUEL_GLOBAL);
        o.u8(3);
        o.u32(fuel);
        o.name(Metered.FLAGS_GLOBAL);
        o.u8(3);
        o.u32(flags);
        return o.toByteArray();
    }

    private static byte[] code(ModuleReader.Module m, int fuel, int flags, int memoryPages) {
        byte[] in = m.bytes();
        List<ModuleReader.Body> bodies = m.bodies();
        int imported = m.importedFunctions();
        Out o = new Out();
        o.u32(bodies.size());
        for (int f = 0; f < bodies.size(); f++) {
            ModuleReader.Body b = bodies.get(f);
            int params = m.types().get(m.functionTypes()[f]).params().length;
            byte[] body = body(in, b, params, fuel, flags, memoryPages);
            o.u32(body.length);
            o.raw(body, 0, body.length);
        }
        return o.toByteArray();
    }

    private static byte[] body(byte[] in, ModuleReader.Body b, int params, int fuel, int flags, int memoryPages) {
        int[] ops = b.ops();
        int[] offs = b.offsets();
        boolean scratch = false;
        long locals = params;
        for (int c : b.localCounts()) {
            locals += c;
        }
        for (int op : ops) {
            if (dynamic(op)) {
                scratch = true;
                break;
            }
        }
        int s = (int) locals; // the appended i32 scratch local, after every param and local
        Out o = new Out();
        int runs = b.localCounts().length;
        o.u32(runs + (scratch ? 1 : 0));
        o.raw(in, offsetAfterCount(in, b), b.codeStart() - offsetAfterCount(in, b));
        if (scratch) {
            o.u32(1);
            o.u8(ModuleReader.I32);
        }
        boolean blockStart = true;
        for (int k = 0; k < ops.length; k++) {
            if (blockStart) {
                long c = 0;
                for (int j = k; j < ops.length; j++) {
                    c += cost(ops[j]);
                    if (endsBlock(ops[j])) {
                        break;
                    }
                }
                if (c > 0) {
                    charge(o, fuel, c);
                }
                blockStart = false;
            }
            int op = ops[k];
            if (dynamic(op)) {
                dynamicCharge(o, op, s, fuel, flags, memoryPages);
            }
            int end = k + 1 < ops.length ? offs[k + 1] : b.end();
            o.raw(in, offs[k], end - offs[k]);
            if (endsBlock(op)) {
                blockStart = true;
            }
        }
        return o.toByteArray();
    }

    private static int offsetAfterCount(byte[] in, ModuleReader.Body b) {
        ModuleReader.Cursor c = new ModuleReader.Cursor(in, b.start(), b.end());
        c.u32();
        return c.pos;
    }

    /** fuel -= c; if fuel < 0: unreachable. */
    private static void charge(Out o, int fuel, long c) {
        o.u8(0x23);
        o.u32(fuel);
        o.u8(0x42);
        o.s64(c);
        o.u8(0x7D); // i64.sub
        check(o, fuel);
    }

    /** global.set fuel; if global.get fuel < 0: unreachable. */
    private static void check(Out o, int fuel) {
        o.u8(0x24);
        o.u32(fuel);
        o.u8(0x23);
        o.u32(fuel);
        o.u8(0x42);
        o.u8(0x00);
        o.u8(0x53); // i64.lt_s
        o.u8(0x04);
        o.u8(0x40);
        o.u8(0x00);
        o.u8(0x0B);
    }

    private static void dynamicCharge(Out o, int op, int s, int fuel, int flags, int memoryPages) {
        o.u8(0x21); // local.set s: the count
        o.u32(s);
        if (op == 0x40) {
            // pages now + asked > the job's cap: flags |= 1; unreachable
            o.u8(0x3F);
            o.u8(0x00);
            o.u8(0xAD); // i64.extend_i32_u
            o.u8(0x20);
            o.u32(s);
            o.u8(0xAD);
            o.u8(0x7C); // i64.add
            o.u8(0x42);
            o.s64(memoryPages);
            o.u8(0x56); // i64.gt_u
            o.u8(0x04);
            o.u8(0x40);
            o.u8(0x23);
            o.u32(flags);
            o.u8(0x41);
            o.u8(0x01);
            o.u8(0x72); // i32.or
            o.u8(0x24);
            o.u32(flags);
            o.u8(0x00);
            o.u8(0x0B);
        }
        o.u8(0x23);
        o.u32(fuel);
        o.u8(0x20);
        o.u32(s);
        o.u8(0xAD);
        if (op == 0x40) {
            o.u8(0x42);
            o.s64(GROW_PAGE_FUEL);
            o.u8(0x7E); // i64.mul
        } else if (op == (ModuleReader.PREFIX_FC | 8) || op == (ModuleReader.PREFIX_FC | 10)
                || op == (ModuleReader.PREFIX_FC | 11)) {
            o.u8(0x42);
            o.s64(BULK_BYTE_SHIFT);
            o.u8(0x88); // i64.shr_u
        } else {
            o.u8(0x42);
            o.s64(TABLE_ELEMENT_FUEL);
            o.u8(0x7E);
        }
        o.u8(0x7D);
        check(o, fuel);
        o.u8(0x20); // local.get s: the count back for the instruction
        o.u32(s);
    }

    /** A growing byte buffer with WebAssembly's encodings. */
    static final class Out extends ByteArrayOutputStream {
        void u8(int b) {
            write(b);
        }

        void raw(byte[] b, int off, int len) {
            write(b, off, len);
        }

        void u32(int v) {
            long x = Integer.toUnsignedLong(v);
            do {
                int b = (int) (x & 0x7F);
                x >>>= 7;
                write(x != 0 ? b | 0x80 : b);
            } while (x != 0);
        }

        void s64(long v) {
            while (true) {
                int b = (int) (v & 0x7F);
                v >>= 7;
                boolean done = (v == 0 && (b & 0x40) == 0) || (v == -1 && (b & 0x40) != 0);
                write(done ? b : b | 0x80);
                if (done) {
                    return;
                }
            }
        }

        void name(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            u32(b.length);
            write(b, 0, b.length);
        }
    }
}
