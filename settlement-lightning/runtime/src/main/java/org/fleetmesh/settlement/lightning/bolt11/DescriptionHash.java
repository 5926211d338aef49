package org.fleetmesh.settlement.lightning.bolt11;

import org.fleetmesh.nostr.Hex;

/** SHA-256 of a description too long to carry inline (`h`). */
public final class DescriptionHash extends ByteValue {
    public DescriptionHash(byte[] bytes) {
        super(bytes, 32);
    }

    public static DescriptionHash ofHex(String hex) {
        return new DescriptionHash(Hex.decode(hex, 32));
    }
}
