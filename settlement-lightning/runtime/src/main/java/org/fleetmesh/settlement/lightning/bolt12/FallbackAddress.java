package org.fleetmesh.settlement.lightning.bolt12;

import java.util.Arrays;
import org.fleetmesh.nostr.Hex;

/**
 * A {@code fallback_address} of {@code invoice_fallbacks}: a witness version and program, kept as given.
 * For bitcoin, {@link #usable()} applies the reader's "MUST ignore" rules (version above 16, a program
 * shorter than 2 or longer than 40 bytes, or a v0 program that is neither 20 nor 32 bytes).
 */
public record FallbackAddress(int version, byte[] address) {

    public FallbackAddress {
        address = address.clone();
    }

    @Override
    public byte[] address() {
        return address.clone();
    }

    public boolean usable() {
        if (version > 16 || address.length < 2 || address.length > 40) {
            return false;
        }
        return version != 0 || address.length == 20 || address.length == 32;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FallbackAddress f && version == f.version && Arrays.equals(address, f.address);
    }

    @Override
    public int hashCode() {
        return 31 * version + Arrays.hashCode(address);
    }

    @Override
    public String toString() {
        return "FallbackAddress[" + version + ", " + Hex.encode(address) + "]";
    }
}
