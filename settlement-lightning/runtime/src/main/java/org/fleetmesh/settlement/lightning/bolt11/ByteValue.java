package org.fleetmesh.settlement.lightning.bolt11;

import java.util.Arrays;
import org.fleetmesh.nostr.Hex;

/** Bytes compared by value and shown as lower-case hex; the base of the invoice's hash and key types. */
public abstract class ByteValue {
    private final byte[] bytes;

    protected ByteValue(byte[] bytes, int length) {
        if (bytes == null || (length >= 0 && bytes.length != length)) {
            throw new IllegalArgumentException(getClass().getSimpleName() + " is " + length + " bytes");
        }
        this.bytes = bytes.clone();
    }

    public final byte[] bytes() {
        return bytes.clone();
    }

    final byte[] unsafeBytes() {
        return bytes;
    }

    public final String hex() {
        return Hex.encode(bytes);
    }

    @Override
    public final boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && Arrays.equals(bytes, ((ByteValue) o).bytes);
    }

    @Override
    public final int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public final String toString() {
        return hex();
    }
}
