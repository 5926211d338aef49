package org.fleetmesh.identity.capability;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * The revocation id of one block of a token: the block's Ed25519 signature (64 bytes), unique to that block and
 * everything after it. The authority block's id names the token as issued, so {@link Capability#tokenId} is it;
 * revoking it revokes every token attenuated from it, revoking a later block's id only that branch.
 */
public final class RevocationId {
    private final byte[] bytes;

    private RevocationId(byte[] bytes) {
        this.bytes = bytes;
    }

    public static RevocationId of(byte[] bytes) {
        if (bytes.length == 0) {
            throw new IllegalArgumentException("a revocation id is not empty");
        }
        return new RevocationId(bytes.clone());
    }

    /** @throws IllegalArgumentException when {@code hex} is not an even number of hex digits */
    public static RevocationId fromHex(String hex) {
        return of(HexFormat.of().parseHex(hex));
    }

    public byte[] bytes() {
        return bytes.clone();
    }

    /** Lower-case hex, as Biscuit tools print revocation ids. */
    public String hex() {
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RevocationId r && Arrays.equals(r.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return hex();
    }
}
