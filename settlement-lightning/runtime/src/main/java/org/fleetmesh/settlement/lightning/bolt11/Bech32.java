package org.fleetmesh.settlement.lightning.bolt11;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Locale;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11Exception.Reason;

/**
 * BIP-173 bech32 over 5-bit groups, without the 90-character limit (BOLT #11 allows longer), plus
 * the BIP-350 bech32m checksum that taproot fallback addresses need.
 */
public final class Bech32 {
    static final String CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
    private static final int BECH32_CONST = 1;
    private static final int BECH32M_CONST = 0x2bc830a3;
    private static final int[] GENERATOR = {0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3};
    private static final byte[] VALUES = new byte[128];

    static {
        Arrays.fill(VALUES, (byte) -1);
        for (int i = 0; i < CHARSET.length(); i++) {
            VALUES[CHARSET.charAt(i)] = (byte) i;
        }
    }

    /** A decoded bech32 string: lower-case human-readable part and the 5-bit groups before the checksum. */
    public record Decoded(String hrp, byte[] data) {
    }

    private Bech32() {
    }

    /** Decodes and checks a bech32 (not bech32m) string of any length. */
    public static Decoded decode(String s) throws Bolt11Exception {
        boolean lower = false;
        boolean upper = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 33 || c > 126) {
                throw new Bolt11Exception(Reason.MALFORMED_BECH32, "character " + (int) c + " at " + i);
            }
            lower |= c >= 'a' && c <= 'z';
            upper |= c >= 'A' && c <= 'Z';
        }
        if (lower && upper) {
            throw new Bolt11Exception(Reason.MIXED_CASE, "bech32 must be all lower or all upper case");
        }
        String text = upper ? s.toLowerCase(Locale.ROOT) : s;
        int separator = text.lastIndexOf('1');
        if (separator < 1) {
            throw new Bolt11Exception(Reason.MALFORMED_BECH32, "no '1' separator after a human-readable part");
        }
        if (text.length() - separator - 1 < 6) {
            throw new Bolt11Exception(Reason.MALFORMED_BECH32, "shorter than the 6-character checksum");
        }
        String hrp = text.substring(0, separator);
        byte[] values = new byte[text.length() - separator - 1];
        for (int i = 0; i < values.length; i++) {
            char c = text.charAt(separator + 1 + i);
            byte v = c < 128 ? VALUES[c] : -1;
            if (v < 0) {
                throw new Bolt11Exception(Reason.MALFORMED_BECH32, "'" + c + "' is not a bech32 character");
            }
            values[i] = v;
        }
        if (polymod(hrp, values, values.length) != BECH32_CONST) {
            throw new Bolt11Exception(Reason.BAD_CHECKSUM, "bech32 checksum does not match");
        }
        return new Decoded(hrp, Arrays.copyOf(values, values.length - 6));
    }

    /** Encodes lower-case bech32 with no length limit. */
    public static String encode(String hrp, byte[] data) {
        return encode(hrp, data, BECH32_CONST);
    }

    /** Encodes with the BIP-350 constant, as segwit v1+ addresses require. */
    static String encodeBech32m(String hrp, byte[] data) {
        return encode(hrp, data, BECH32M_CONST);
    }

    private static String encode(String hrp, byte[] data, int constant) {
        byte[] values = Arrays.copyOf(data, data.length + 6);
        int mod = polymod(hrp, values, values.length) ^ constant;
        for (int i = 0; i < 6; i++) {
            values[data.length + i] = (byte) ((mod >>> (5 * (5 - i))) & 31);
        }
        StringBuilder out = new StringBuilder(hrp.length() + 1 + values.length).append(hrp).append('1');
        for (byte v : values) {
            out.append(CHARSET.charAt(v));
        }
        return out.toString();
    }

    private static int polymod(String hrp, byte[] values, int count) {
        int chk = 1;
        for (int i = 0; i < hrp.length(); i++) {
            chk = step(chk) ^ (hrp.charAt(i) >> 5);
        }
        chk = step(chk);
        for (int i = 0; i < hrp.length(); i++) {
            chk = step(chk) ^ (hrp.charAt(i) & 31);
        }
        for (int i = 0; i < count; i++) {
            chk = step(chk) ^ values[i];
        }
        return chk;
    }

    private static int step(int chk) {
        int top = chk >>> 25;
        chk = (chk & 0x1ffffff) << 5;
        for (int i = 0; i < 5; i++) {
            if (((top >>> i) & 1) != 0) {
                chk ^= GENERATOR[i];
            }
        }
        return chk;
    }

    /** The 5-bit value of a lower-case bech32 character, or -1 for any other character. */
    public static int valueOf(char c) {
        return c < 128 ? VALUES[c] : -1;
    }

    /**
     * 5-bit groups to bytes the strict way of BIP-173's {@code convertbits(data, 5, 8, false)}: null when the
     * groups leave 5 or more bits over (a whole superfluous group) or any left-over padding bit is 1.
     * BOLT #12 strings carry no checksum, so this is their only guard against a stray trailing character.
     */
    public static byte[] toBytesStrict(byte[] groups) {
        int spare = groups.length * 5 % 8;
        if (spare >= 5) {
            return null;
        }
        if (spare > 0 && (groups[groups.length - 1] & ((1 << spare) - 1)) != 0) {
            return null;
        }
        return toBytes(groups, 0, groups.length, false);
    }

    /** 5-bit groups to bytes; trailing bits that do not fill a byte are dropped, as BOLT #11 pads with 0s. */
    static byte[] toBytes(byte[] groups, int from, int count) {
        return toBytes(groups, from, count, false);
    }

    /** 5-bit groups to bytes, the last byte filled out with 0 bits: the form BOLT #11 signs. */
    static byte[] toBytesPadded(byte[] groups, int from, int count) {
        return toBytes(groups, from, count, true);
    }

    private static byte[] toBytes(byte[] groups, int from, int count, boolean pad) {
        byte[] out = new byte[pad ? (count * 5 + 7) / 8 : count * 5 / 8];
        int acc = 0;
        int bits = 0;
        int o = 0;
        for (int i = from; i < from + count && o < out.length; i++) {
            acc = (acc << 5) | groups[i];
            bits += 5;
            if (bits >= 8) {
                bits -= 8;
                out[o++] = (byte) (acc >>> bits);
                acc &= (1 << bits) - 1;
            }
        }
        if (pad && bits > 0) {
            out[o] = (byte) (acc << (8 - bits));
        }
        return out;
    }

    /** Bytes to 5-bit groups, the last padded with 0 bits. */
    static byte[] toGroups(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length * 8 / 5 + 1);
        int acc = 0;
        int bits = 0;
        for (byte b : bytes) {
            acc = (acc << 8) | (b & 0xff);
            bits += 8;
            while (bits >= 5) {
                bits -= 5;
                out.write((acc >>> bits) & 31);
            }
            acc &= (1 << bits) - 1;
        }
        if (bits > 0) {
            out.write((acc << (5 - bits)) & 31);
        }
        return out.toByteArray();
    }

    /** A big-endian number from 5-bit groups; callers bound count so it fits in a long. */
    static long toLong(byte[] groups, int from, int count) {
        long v = 0;
        for (int i = from; i < from + count; i++) {
            v = (v << 5) | groups[i];
        }
        return v;
    }
}
