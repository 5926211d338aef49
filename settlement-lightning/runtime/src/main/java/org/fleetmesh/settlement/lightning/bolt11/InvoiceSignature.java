package org.fleetmesh.settlement.lightning.bolt11;

import java.math.BigInteger;
import java.util.Arrays;
import org.fleetmesh.nostr.Hex;

/** The compact ECDSA signature (r ‖ s) and recovery id that end every invoice. */
public record InvoiceSignature(byte[] compact, int recoveryId) {
    private static final BigInteger HALF_ORDER =
            new BigInteger("7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0", 16);

    public InvoiceSignature {
        if (compact == null || compact.length != 64) {
            throw new IllegalArgumentException("a compact signature is 64 bytes");
        }
        compact = compact.clone();
    }

    @Override
    public byte[] compact() {
        return compact.clone();
    }

    /** s at most n/2, the form libsecp256k1 verify insists on (bitcoin/bitcoin#6769). */
    public boolean isLowS() {
        return new BigInteger(1, Arrays.copyOfRange(compact, 32, 64)).compareTo(HALF_ORDER) <= 0;
    }

    /** The 65 bytes as written in the invoice. */
    public byte[] toBytes() {
        byte[] out = Arrays.copyOf(compact, 65);
        out[64] = (byte) recoveryId;
        return out;
    }

    public String hex() {
        return Hex.encode(toBytes());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof InvoiceSignature other && other.recoveryId == recoveryId && Arrays.equals(other.compact, compact);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(compact) + recoveryId;
    }

    @Override
    public String toString() {
        return hex();
    }
}
