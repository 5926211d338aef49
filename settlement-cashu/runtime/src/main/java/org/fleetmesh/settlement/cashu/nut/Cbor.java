package org.fleetmesh.settlement.cashu.nut;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.nio.ByteBuffer;

/**
 * The subset of CBOR (RFC 8949) that V4 tokens and NUT-18 requests use, decoded into plain Java values and
 * encoded in the order the caller gives, so our bytes match the NUT vectors.
 *
 * <p>Values: unsigned and negative integers as {@link Long} (or {@link BigInteger} beyond a long), byte strings
 * as {@code byte[]}, text as {@link String}, arrays as {@link List}, maps as insertion-ordered {@link Map},
 * {@link Boolean}, {@code null} and {@link #UNDEFINED}. Floats are decoded to {@link Double}; tags are refused.
 * Decoding is bounded: depth, item count and every length are checked against what is left of the input.
 */
public final class Cbor {
    /** CBOR {@code undefined} (0xf7), which NUT-18 encoders write for absent transport tags. */
    public static final Object UNDEFINED = new Object() {
        @Override
        public String toString() {
            return "undefined";
        }
    };
    private static final int MAX_DEPTH = 16;
    private static final int MAX_ITEMS = 200_000;

    /** A malformed encoding; the message is a short reason ("truncated", "trailing bytes", ...). */
    public static final class MalformedException extends Exception {
        private static final long serialVersionUID = 1L;

        MalformedException(String reason) {
            super(reason);
        }
    }

    private Cbor() {
    }

    /** Decodes exactly one item that spans all of {@code in}. */
    public static Object decode(byte[] in) throws MalformedException {
        Reader r = new Reader(in);
        Object v = r.item(0);
        if (v == Reader.BREAK) {
            throw new MalformedException("unexpected break");
        }
        if (r.pos != in.length) {
            throw new MalformedException("trailing bytes");
        }
        return v;
    }

    public static byte[] encode(Object value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        write(out, value);
        return out.toByteArray();
    }

    private static void write(ByteArrayOutputStream out, Object v) {
        if (v == null) {
            out.write(0xf6);
        } else if (v == UNDEFINED) {
            out.write(0xf7);
        } else if (v instanceof Boolean b) {
            out.write(b ? 0xf5 : 0xf4);
        } else if (v instanceof Long || v instanceof Integer) {
            long n = ((Number) v).longValue();
            if (n >= 0) {
                head(out, 0, n);
            } else {
                head(out, 1, -1 - n);
            }
        } else if (v instanceof byte[] b) {
            head(out, 2, b.length);
            out.writeBytes(b);
        } else if (v instanceof String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            head(out, 3, b.length);
            out.writeBytes(b);
        } else if (v instanceof List<?> l) {
            head(out, 4, l.size());
            for (Object o : l) {
                write(out, o);
            }
        } else if (v instanceof Map<?, ?> m) {
            head(out, 5, m.size());
            for (Map.Entry<?, ?> e : m.entrySet()) {
                write(out, e.getKey());
                write(out, e.getValue());
            }
        } else {
            throw new IllegalArgumentException("cannot encode " + v.getClass().getName() + " as CBOR");
        }
    }

    /** The shortest head for major type and argument, as deterministic encoders write it. */
    private static void head(ByteArrayOutputStream out, int major, long arg) {
        int mt = major << 5;
        if (arg < 24) {
            out.write(mt | (int) arg);
        } else if (arg < 0x100) {
            out.write(mt | 24);
            out.write((int) arg);
        } else if (arg < 0x10000) {
            out.write(mt | 25);
            out.write((int) (arg >> 8));
            out.write((int) arg);
        } else if (arg < 0x100000000L) {
            out.write(mt | 26);
            for (int i = 3; i >= 0; i--) {
                out.write((int) (arg >> (8 * i)));
            }
        } else {
            out.write(mt | 27);
            for (int i = 7; i >= 0; i--) {
                out.write((int) (arg >> (8 * i)));
            }
        }
    }

    private static final class Reader {
        static final Object BREAK = new Object();
        final byte[] in;
        int pos;
        int items;

        Reader(byte[] in) {
            this.in = in;
        }

        int u8() throws MalformedException {
            if (pos >= in.length) {
                throw new MalformedException("truncated");
            }
            return in[pos++] & 0xff;
        }

        /** The argument of a head, unsigned in a long; info 31 (indefinite) is the caller's to handle. */
        long arg(int info) throws MalformedException {
            if (info < 24) {
                return info;
            }
            int n = switch (info) {
                case 24 -> 1;
                case 25 -> 2;
                case 26 -> 4;
                case 27 -> 8;
                default -> throw new MalformedException("reserved additional information " + info);
            };
            long v = 0;
            for (int i = 0; i < n; i++) {
                v = (v << 8) | u8();
            }
            return v;
        }

        int length(long arg) throws MalformedException {
            if (arg < 0 || arg > in.length - pos) {
                throw new MalformedException("truncated");
            }
            return (int) arg;
        }

        Object item(int depth) throws MalformedException {
            if (depth > MAX_DEPTH) {
                throw new MalformedException("nested too deeply");
            }
            if (++items > MAX_ITEMS) {
                throw new MalformedException("too many items");
            }
            int ib = u8();
            int major = ib >>> 5;
            int info = ib & 0x1f;
            if (major == 7) {
                return simple(info);
            }
            boolean indefinite = info == 31;
            long arg = indefinite ? -1 : arg(info);
            switch (major) {
                case 0:
                    if (indefinite) {
                        throw new MalformedException("indefinite integer");
                    }
                    return arg >= 0 ? Long.valueOf(arg) : new BigInteger(Long.toUnsignedString(arg));
                case 1:
                    if (indefinite) {
                        throw new MalformedException("indefinite integer");
                    }
                    return arg >= 0 ? Long.valueOf(-1 - arg)
                            : BigInteger.ONE.negate().subtract(new BigInteger(Long.toUnsignedString(arg)));
                case 2:
                    return indefinite ? chunks(2, depth) : bytes(length(arg));
                case 3:
                    return indefinite ? text((byte[]) chunks(3, depth)) : text(bytes(length(arg)));
                case 4: {
                    List<Object> l = new ArrayList<>();
                    if (indefinite) {
                        for (Object v = item(depth + 1); v != BREAK; v = item(depth + 1)) {
                            l.add(v);
                        }
                    } else {
                        int n = length(arg); // every item takes at least a byte
                        for (int i = 0; i < n; i++) {
                            l.add(value(depth + 1));
                        }
                    }
                    return l;
                }
                case 5: {
                    Map<Object, Object> m = new LinkedHashMap<>();
                    if (indefinite) {
                        for (Object k = item(depth + 1); k != BREAK; k = item(depth + 1)) {
                            put(m, k, value(depth + 1));
                        }
                    } else {
                        int n = length(arg);
                        for (int i = 0; i < n; i++) {
                            Object k = value(depth + 1);
                            put(m, k, value(depth + 1));
                        }
                    }
                    return m;
                }
                default:
                    throw new MalformedException("tagged items are not supported");
            }
        }

        Object value(int depth) throws MalformedException {
            Object v = item(depth);
            if (v == BREAK) {
                throw new MalformedException("unexpected break");
            }
            return v;
        }

        void put(Map<Object, Object> m, Object k, Object v) throws MalformedException {
            if (k instanceof byte[] || k instanceof List || k instanceof Map) {
                throw new MalformedException("map keys must be text or integers");
            }
            if (m.containsKey(k)) {
                throw new MalformedException("duplicate map key " + k);
            }
            m.put(k, v);
        }

        Object chunks(int major, int depth) throws MalformedException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            while (true) {
                int ib = u8();
                if (ib == 0xff) {
                    return out.toByteArray();
                }
                if (ib >>> 5 != major || (ib & 0x1f) == 31) {
                    throw new MalformedException("bad chunk in indefinite-length string");
                }
                out.writeBytes(bytes(length(arg(ib & 0x1f))));
            }
        }

        byte[] bytes(int n) {
            byte[] b = new byte[n];
            System.arraycopy(in, pos, b, 0, n);
            pos += n;
            return b;
        }

        Object simple(int info) throws MalformedException {
            switch (info) {
                case 20:
                    return Boolean.FALSE;
                case 21:
                    return Boolean.TRUE;
                case 22:
                    return null;
                case 23:
                    return UNDEFINED;
                case 25: {
                    int h = (u8() << 8) | u8();
                    return half(h);
                }
                case 26: {
                    int f = (u8() << 24) | (u8() << 16) | (u8() << 8) | u8();
                    return (double) Float.intBitsToFloat(f);
                }
                case 27:
                    return Double.longBitsToDouble(arg(27));
                case 24:
                    throw new MalformedException("unsupported simple value");
                case 31:
                    return BREAK;
                default:
                    throw new MalformedException("unsupported simple value " + info);
            }
        }

        static double half(int h) {
            int exp = (h >> 10) & 0x1f;
            int mant = h & 0x3ff;
            double v = exp == 0 ? mant * Math.pow(2, -24)
                    : exp == 31 ? (mant == 0 ? Double.POSITIVE_INFINITY : Double.NaN)
                    : (mant + 1024) * Math.pow(2, exp - 25);
            return (h & 0x8000) != 0 ? -v : v;
        }

        static String text(byte[] b) throws MalformedException {
            try {
                return StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(b)).toString();
            } catch (CharacterCodingException e) {
                throw new MalformedException("text is not UTF-8");
            }
        }
    }
}
