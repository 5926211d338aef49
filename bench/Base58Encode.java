import java.util.Random;

import org.fleetmesh.identity.multiformats.Base58Btc;

/**
 * One process, one kind of Base58 encode, timed cold: the node's encoder (32-bit limbs, five digits a division) or
 * the digit-at-a-time one it replaced (a byte array of base-58 digits, every input byte carried through all of them),
 * over 1,600 random bytes (a did:peer:4 long form's size), `calls` times. A fresh JVM per run is the point: a node
 * encodes a few DIDs at start, interpreted or barely compiled. docs/BENCHMARKS.md, "Where a start's second goes".
 *
 * java [-Xint] -cp runtime/target/classes bench/Base58Encode.java limbs|digits CALLS
 */
public class Base58Encode {
    public static void main(String[] a) {
        if (a.length < 2) {
            System.err.println("usage: java [-Xint] -cp runtime/target/classes bench/Base58Encode.java limbs|digits CALLS");
            System.exit(2);
        }
        byte[] bytes = new byte[1600];
        new Random(1).nextBytes(bytes);
        boolean limbs = a[0].equals("limbs");
        int calls = Integer.parseInt(a[1]);
        long t0 = System.nanoTime();
        String s = null;
        for (int i = 0; i < calls; i++) {
            s = limbs ? Base58Btc.encode(bytes) : digitAtATime(bytes);
        }
        System.out.printf("%s x%d: %.1f ms (%d digits, hash %08x)%n", a[0], calls, (System.nanoTime() - t0) / 1e6,
                s.length(), s.hashCode());
    }

    /** The encoder before 224374d. */
    static String digitAtATime(byte[] bytes) {
        int zeros = 0;
        while (zeros < bytes.length && bytes[zeros] == 0) {
            zeros++;
        }
        byte[] digits = new byte[(bytes.length - zeros) * 138 / 100 + 1];
        int length = 0;
        for (int i = zeros; i < bytes.length; i++) {
            int carry = bytes[i] & 0xff;
            int j = 0;
            for (int k = digits.length - 1; (carry != 0 || j < length) && k >= 0; k--, j++) {
                carry += 256 * (digits[k] & 0xff);
                digits[k] = (byte) (carry % 58);
                carry /= 58;
            }
            length = j;
        }
        StringBuilder out = new StringBuilder(zeros + length);
        out.append("1".repeat(zeros));
        for (int k = digits.length - length; k < digits.length; k++) {
            out.append(Base58Btc.ALPHABET.charAt(digits[k]));
        }
        return out.toString();
    }
}
