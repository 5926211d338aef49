package org.fleetmesh.compute.wasm;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a WebAssembly binary (core 1.0 plus sign extension, saturating truncation, bulk memory, reference types and
 * multi-value, as clang and rustc emit them) into its sections, the declarations admission looks at, and the function
 * bodies decoded instruction by instruction (what metering rewrites). Strict: LEB128 at most its width in bytes with
 * no stray bits, section order, sizes within what is left, at most {@link #MAX_LOCALS} locals per function. Anything
 * else (SIMD 0xFD, threads 0xFE, tail calls, exceptions, GC, memory64, multiple memories) is {@link MalformedModule}
 * with what it met. Validation of types and indices is Chicory's (its parser runs at admission too).
 */
public final class ModuleReader {
    /** Locals per function (params included), as wasmtime and V8 bound them. */
    public static final int MAX_LOCALS = 50_000;
    /** Functions, imports, exports, types, globals: each at most this many. */
    public static final int MAX_ITEMS = 1_000_000;

    public static final int TYPE = 1, IMPORT = 2, FUNCTION = 3, TABLE = 4, MEMORY = 5, GLOBAL = 6, EXPORT = 7,
            START = 8, ELEMENT = 9, CODE = 10, DATA = 11, DATA_COUNT = 12, CUSTOM = 0;

    /** Value types as the binary writes them. */
    public static final int I32 = 0x7F, I64 = 0x7E, F32 = 0x7D, F64 = 0x7C, V128 = 0x7B, FUNCREF = 0x70,
            EXTERNREF = 0x6F;

    /** Opcode of a 0xFC-prefixed instruction: {@code PREFIX_FC | sub-opcode}. */
    public static final int PREFIX_FC = 0xFC00;

    private ModuleReader() {
    }

    /** One section: its id and its payload's position in the module's bytes. */
    public record Section(int id, int start, int end) {
    }

    public record FuncType(byte[] params, byte[] results) {
    }

    /** kind: 0 function (index = type), 1 table, 2 memory, 3 global. */
    public record Import(String module, String name, int kind, int index) {
    }

    public record Export(String name, int kind, int index) {
    }

    public record MemoryType(long initial, Long maximum, boolean shared) {
    }

    /**
     * A function body: the byte range of its locals declarations and of its code, its locals' types in declaration
     * runs, and its instructions (opcode and start offset of each, in order; the last is the body's final end).
     */
    public record Body(int start, int codeStart, int end, int[] localCounts, byte[] localTypes, int[] ops,
            int[] offsets) {
    }

    /** A read module. */
    public record Module(byte[] bytes, List<Section> sections, List<FuncType> types, List<Import> imports,
            int[] functionTypes, List<MemoryType> memories, int tables, byte[] globalTypes, List<Export> exports,
            boolean hasStart, List<Body> bodies) {

        public int importedFunctions() {
            int n = 0;
            for (Import i : imports) {
                if (i.kind() == 0) {
                    n++;
                }
            }
            return n;
        }

        public Section section(int id) {
            for (Section s : sections) {
                if (s.id() == id) {
                    return s;
                }
            }
            return null;
        }
    }

    /** Throws {@link MalformedModule} saying what is wrong. */
    public static Module read(byte[] bytes) {
        Cursor c = new Cursor(bytes, 0, bytes.length);
        if (bytes.length < 8 || bytes[0] != 0 || bytes[1] != 'a' || bytes[2] != 's' || bytes[3] != 'm') {
            throw new MalformedModule("not a WebAssembly binary (magic)");
        }
        if (bytes[4] != 1 || bytes[5] != 0 || bytes[6] != 0 || bytes[7] != 0) {
            throw new MalformedModule("unsupported binary version");
        }
        c.pos = 8;
        List<Section> sections = new ArrayList<>();
        List<FuncType> types = new ArrayList<>();
        List<Import> imports = new ArrayList<>();
        int[] functionTypes = new int[0];
        List<MemoryType> memories = new ArrayList<>();
        int tables = 0;
        byte[] globalTypes = new byte[0];
        List<Export> exports = new ArrayList<>();
        boolean hasStart = false;
        List<Body> bodies = new ArrayList<>();
        int lastRank = 0;
        while (c.pos < c.end) {
            int id = c.u8();
            int size = c.u32();
            if (size > c.end - c.pos) {
                throw new MalformedModule("section " + id + " runs past the end");
            }
            int start = c.pos;
            int end = start + size;
            Cursor s = new Cursor(bytes, start, end);
            if (id != CUSTOM) {
                int rank = rank(id);
                if (rank <= lastRank) {
                    throw new MalformedModule("section " + id + " out of order or repeated");
                }
                lastRank = rank;
            }
            switch (id) {
                case CUSTOM -> s.name();
                case TYPE -> {
                    int n = s.count();
                    for (int i = 0; i < n; i++) {
                        int form = s.u8();
                        if (form != 0x60) {
                            throw new MalformedModule("type " + i + ": only function types (0x60), not 0x"
                                    + Integer.toHexString(form));
                        }
                        types.add(new FuncType(s.valTypes(), s.valTypes()));
                    }
                }
                case IMPORT -> {
                    int n = s.count();
                    for (int i = 0; i < n; i++) {
                        String module = s.name();
                        String name = s.name();
                        int kind = s.u8();
                        int index = 0;
                        switch (kind) {
                            case 0 -> index = s.u32();
                            case 1 -> s.tableType();
                            case 2 -> s.memoryType();
                            case 3 -> {
                                s.valType();
                                s.mutability();
                            }
                            default -> throw new MalformedModule("import " + module + "." + name + ": kind " + kind);
                        }
                        imports.add(new Import(module, name, kind, index));
                    }
                }
                case FUNCTION -> {
                    int n = s.count();
                    functionTypes = new int[n];
                    for (int i = 0; i < n; i++) {
                        functionTypes[i] = s.u32();
                    }
                }
                case TABLE -> {
                    tables = s.count();
                    for (int i = 0; i < tables; i++) {
                        s.tableType();
                    }
                }
                case MEMORY -> {
                    int n = s.count();
                    for (int i = 0; i < n; i++) {
                        memories.add(s.memoryType());
                    }
                }
                case GLOBAL -> {
                    int n = s.count();
                    globalTypes = new byte[n];
                    for (int i = 0; i < n; i++) {
                        globalTypes[i] = (byte) s.valType();
                        s.mutability();
                        s.constExpr();
                    }
                }
                case EXPORT -> {
                    int n = s.count();
                    for (int i = 0; i < n; i++) {
                        String name = s.name();
                        int kind = s.u8();
                        if (kind > 3) {
                            throw new MalformedModule("export " + name + ": kind " + kind);
                        }
                        exports.add(new Export(name, kind, s.u32()));
                    }
                }
                case START -> {
                    s.u32();
                    hasStart = true;
                }
                case ELEMENT, DATA -> s.pos = s.end; // contents checked by Chicory's parser; not rewritten
                case DATA_COUNT -> s.u32();
                case CODE -> {
                    int n = s.count();
                    if (n != functionTypes.length) {
                        throw new MalformedModule("code section has " + n + " bodies for " + functionTypes.length
                                + " functions");
                    }
                    for (int i = 0; i < n; i++) {
                        bodies.add(body(s, i));
                    }
                }
                default -> throw new MalformedModule("unknown section id " + id);
            }
            if (s.pos != s.end) {
                throw new MalformedModule("section " + id + ": " + (s.end - s.pos) + " bytes left over");
            }
            sections.add(new Section(id, start, end));
            c.pos = end;
        }
        if (functionTypes.length > 0 && bodies.isEmpty()) {
            throw new MalformedModule("functions declared without a code section");
        }
        return new Module(bytes, List.copyOf(sections), List.copyOf(types), List.copyOf(imports), functionTypes,
                List.copyOf(memories), tables, globalTypes, List.copyOf(exports), hasStart, List.copyOf(bodies));
    }

    /** Position in the binary's section order (data count sits between element and code). */
    static int rank(int id) {
        return switch (id) {
            case TYPE -> 1;
            case IMPORT -> 2;
            case FUNCTION -> 3;
            case TABLE -> 4;
            case MEMORY -> 5;
            case GLOBAL -> 7;
            case EXPORT -> 8;
            case START -> 9;
            case ELEMENT -> 10;
            case DATA_COUNT -> 11;
            case CODE -> 12;
            case DATA -> 13;
            default -> throw new MalformedModule("unknown section id " + id);
        };
    }

    private static Body body(Cursor s, int index) {
        int size = s.u32();
        if (size > s.end - s.pos || size == 0) {
            throw new MalformedModule("function " + index + ": body size " + size);
        }
        int start = s.pos;
        Cursor b = new Cursor(s.bytes, start, start + size);
        int runs = b.count();
        int[] counts = new int[runs];
        byte[] localTypes = new byte[runs];
        long total = 0;
        for (int i = 0; i < runs; i++) {
            counts[i] = b.u32();
            localTypes[i] = (byte) b.valType();
            total += counts[i];
            if (total > MAX_LOCALS) {
                throw new MalformedModule("function " + index + ": more than " + MAX_LOCALS + " locals");
            }
        }
        int codeStart = b.pos;
        IntList ops = new IntList();
        IntList offsets = new IntList();
        int depth = 1;
        while (depth > 0) {
            if (b.pos >= b.end) {
                throw new MalformedModule("function " + index + ": code runs past its body");
            }
            offsets.add(b.pos);
            int op = b.instruction();
            ops.add(op);
            if (op == 0x02 || op == 0x03 || op == 0x04) {
                depth++;
            } else if (op == 0x0B) {
                depth--;
            }
        }
        if (b.pos != b.end) {
            throw new MalformedModule("function " + index + ": bytes after its final end");
        }
        s.pos = b.end;
        return new Body(start, codeStart, b.end, counts, localTypes, ops.toArray(), offsets.toArray());
    }

    /** Bytes that are not a well-formed module (or use what fleetmesh does not admit), and why. */
    public static final class MalformedModule extends RuntimeException {
        public MalformedModule(String message) {
            super(message, null, false, false);
        }
    }

    private static final class IntList {
        private int[] a = new int[64];
        private int n;

        void add(int v) {
            if (n == a.length) {
                a = java.util.Arrays.copyOf(a, n * 2);
            }
            a[n++] = v;
        }

        int[] toArray() {
            return java.util.Arrays.copyOf(a, n);
        }
    }

    /** A strict reader over {@code bytes[pos, end)}. */
    static final class Cursor {
        final byte[] bytes;
        int pos;
        final int end;

        Cursor(byte[] bytes, int pos, int end) {
            this.bytes = bytes;
            this.pos = pos;
            this.end = end;
        }

        int u8() {
            if (pos >= end) {
                throw new MalformedModule("unexpected end at byte " + pos);
            }
            return bytes[pos++] & 0xFF;
        }

        /** Unsigned LEB128 of at most 32 bits, at most 5 bytes, no bits past the 32nd. */
        int u32() {
            long v = 0;
            for (int i = 0; i < 5; i++) {
                int b = u8();
                v |= (long) (b & 0x7F) << (7 * i);
                if ((b & 0x80) == 0) {
                    if (i == 4 && (b & 0x70) != 0) {
                        throw new MalformedModule("u32 LEB128 too large at byte " + (pos - 1));
                    }
                    return (int) v;
                }
            }
            throw new MalformedModule("u32 LEB128 longer than 5 bytes at byte " + pos);
        }

        /** Signed LEB128 of {@code bits} (32, 33 or 64) bits, strictly. */
        long signed(int bits) {
            long v = 0;
            int shift = 0;
            int max = (bits + 6) / 7;
            for (int i = 0; i < max; i++) {
                int b = u8();
                v |= (long) (b & 0x7F) << shift;
                shift += 7;
                if ((b & 0x80) == 0) {
                    if (i == max - 1) {
                        // the unused high bits of the last byte must all equal the sign bit
                        int used = bits - 7 * (max - 1);
                        int rest = (b & 0x7F) >> (used - 1);
                        if (rest != 0 && rest != (0x7F >> (used - 1))) {
                            throw new MalformedModule("s" + bits + " LEB128 out of range at byte " + (pos - 1));
                        }
                    }
                    if (shift < 64 && (b & 0x40) != 0) {
                        v |= -1L << shift;
                    }
                    return v;
                }
            }
            throw new MalformedModule("s" + bits + " LEB128 too long at byte " + pos);
        }

        int count() {
            int n = u32();
            if (Integer.toUnsignedLong(n) > MAX_ITEMS || n > end - pos) {
                throw new MalformedModule("count " + Integer.toUnsignedString(n) + " at byte " + pos
                        + " exceeds what is left");
            }
            return n;
        }

        String name() {
            int n = u32();
            if (n < 0 || n > end - pos) {
                throw new MalformedModule("name runs past its section at byte " + pos);
            }
            try {
                String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(bytes, pos, n)).toString();
                pos += n;
                return s;
            } catch (CharacterCodingException e) {
                throw new MalformedModule("name is not UTF-8 at byte " + pos);
            }
        }

        int valType() {
            int t = u8();
            return switch (t) {
                case I32, I64, F32, F64, V128, FUNCREF, EXTERNREF -> t;
                default -> throw new MalformedModule("unknown value type 0x" + Integer.toHexString(t) + " at byte "
                        + (pos - 1));
            };
        }

        byte[] valTypes() {
            int n = count();
            byte[] t = new byte[n];
            for (int i = 0; i < n; i++) {
                t[i] = (byte) valType();
            }
            return t;
        }

        void mutability() {
            int m = u8();
            if (m > 1) {
                throw new MalformedModule("global mutability " + m);
            }
        }

        void tableType() {
            int t = u8();
            if (t != FUNCREF && t != EXTERNREF) {
                throw new MalformedModule("table element type 0x" + Integer.toHexString(t));
            }
            int flags = u8();
            if (flags > 1) {
                throw new MalformedModule("table limits flags " + flags);
            }
            u32();
            if (flags == 1) {
                u32();
            }
        }

        MemoryType memoryType() {
            int flags = u8();
            if (flags > 3) {
                throw new MalformedModule("memory limits flags " + flags + " (memory64 and custom pages are not"
                        + " admitted)");
            }
            long initial = Integer.toUnsignedLong(u32());
            Long max = (flags & 1) != 0 ? Integer.toUnsignedLong(u32()) : null;
            return new MemoryType(initial, max, (flags & 2) != 0);
        }

        /** A constant expression up to its end. */
        void constExpr() {
            while (true) {
                int op = instruction();
                if (op == 0x0B) {
                    return;
                }
            }
        }

        void blockType() {
            if (pos >= end) {
                throw new MalformedModule("unexpected end at byte " + pos);
            }
            int b = bytes[pos] & 0xFF;
            if (b == 0x40 || b == I32 || b == I64 || b == F32 || b == F64 || b == V128 || b == FUNCREF
                    || b == EXTERNREF) {
                pos++;
            } else {
                long t = signed(33);
                if (t < 0) {
                    throw new MalformedModule("block type " + t + " at byte " + pos);
                }
            }
        }

        void memarg() {
            int align = u32();
            if ((align & 0x40) != 0 || align > 16) {
                throw new MalformedModule("memory argument alignment " + align + " (multiple memories are not"
                        + " admitted)");
            }
            u32();
        }

        void zeroByte(String what) {
            if (u8() != 0) {
                throw new MalformedModule(what + ": only memory/table 0 (multiple memories are not admitted)");
            }
        }

        /** Reads one instruction with its immediates; returns its opcode ({@link #PREFIX_FC}|sub for 0xFC). */
        int instruction() {
            int op = u8();
            switch (op) {
                case 0x00, 0x01, 0x05, 0x0B, 0x0F, 0x1A, 0x1B, 0xD1 -> {
                }
                case 0x02, 0x03, 0x04 -> blockType();
                case 0x0C, 0x0D, 0x10, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0xD2 -> u32();
                case 0x0E -> {
                    int n = count();
                    for (int i = 0; i <= n; i++) {
                        u32();
                    }
                }
                case 0x11 -> {
                    u32();
                    u32();
                }
                case 0x1C -> valTypes();
                case 0x3F, 0x40 -> zeroByte(op == 0x3F ? "memory.size" : "memory.grow");
                case 0x41 -> signed(32);
                case 0x42 -> signed(64);
                case 0x43 -> skip(4);
                case 0x44 -> skip(8);
                case 0xD0 -> {
                    int t = u8();
                    if (t != FUNCREF && t != EXTERNREF) {
                        throw new MalformedModule("ref.null type 0x" + Integer.toHexString(t));
                    }
                }
                case 0xFC -> {
                    int sub = u32();
                    switch (sub) {
                        case 0, 1, 2, 3, 4, 5, 6, 7 -> {
                        }
                        case 8 -> {
                            u32();
                            zeroByte("memory.init");
                        }
                        case 9, 13, 15, 16, 17 -> u32();
                        case 10 -> {
                            zeroByte("memory.copy");
                            zeroByte("memory.copy");
                        }
                        case 11 -> zeroByte("memory.fill");
                        case 12, 14 -> {
                            u32();
                            u32();
                        }
                        default -> throw new MalformedModule("unknown instruction 0xFC " + sub + " at byte " + pos);
                    }
                    return PREFIX_FC | sub;
                }
                case 0xFD -> throw new MalformedModule("SIMD instructions (0xFD) are not admitted (byte " + (pos - 1)
                        + ")");
                case 0xFE -> throw new MalformedModule("threads and atomics (0xFE) are not admitted (byte "
                        + (pos - 1) + ")");
                default -> {
                    if (op >= 0x28 && op <= 0x3E) {
                        memarg();
                    } else if (op >= 0x45 && op <= 0xC4) {
                        // numeric instructions have no immediates
                    } else {
                        throw new MalformedModule("instruction 0x" + Integer.toHexString(op)
                                + " is not admitted (byte " + (pos - 1) + ")");
                    }
                }
            }
            return op;
        }

        void skip(int n) {
            if (n > end - pos) {
                throw new MalformedModule("unexpected end at byte " + pos);
            }
            pos += n;
        }
    }
}
