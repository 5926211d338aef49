package org.fleetmesh.negentropy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** The running sum, mod 2^256, of ids read as 32-byte little-endian unsigned numbers. */
public final class Accumulator {
    /** Four 64-bit limbs, least significant first. */
    private final long[] limbs = new long[4];

    /** An accumulator holding a sum already computed (four little-endian limbs). */
    static Accumulator ofLimbs(long[] limbs) {
        Accumulator a = new Accumulator();
        System.arraycopy(limbs, 0, a.limbs, 0, 4);
        return a;
    }

    public Accumulator add(Id id) {
        ByteBuffer in = ByteBuffer.wrap(id.raw()).order(ByteOrder.LITTLE_ENDIAN);
        long carry = 0;
        for (int i = 0; i < 4; i++) {
            long other = in.getLong();
            long sum = limbs[i] + other + carry;
            // unsigned overflow: the sum wrapped below an operand (or equals it after adding carry 1)
            carry = Long.compareUnsigned(sum, other) < 0 || (carry == 1 && sum == other) ? 1 : 0;
            limbs[i] = sum;
        }
        return this;
    }

    /** The sum as 32 little-endian bytes. */
    public byte[] sum() {
        ByteBuffer out = ByteBuffer.allocate(Id.SIZE).order(ByteOrder.LITTLE_ENDIAN);
        for (long limb : limbs) {
            out.putLong(limb);
        }
        return out.array();
    }

    /** One digest per thread: MessageDigest.getInstance costs a provider lookup on every call. */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
    });

    /** SHA-256 of (sum ‖ varint(count)), first 16 bytes. */
    public Fingerprint fingerprint(long count) {
        MessageDigest sha256 = SHA256.get(); // digest() below resets it
        sha256.update(sum());
        sha256.update(Varint.encode(count));
        byte[] hash = sha256.digest();
        byte[] prefix = new byte[Fingerprint.SIZE];
        System.arraycopy(hash, 0, prefix, 0, Fingerprint.SIZE);
        return Fingerprint.of(prefix);
    }
}
