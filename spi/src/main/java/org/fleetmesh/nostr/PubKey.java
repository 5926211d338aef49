package org.fleetmesh.nostr;

/** A BIP-340 x-only public key. */
public final class PubKey extends Bytes32 {
    public PubKey(byte[] bytes) {
        super(bytes);
    }

    public static PubKey ofHex(String hex) {
        PubKey v = new PubKey(Hex.decode(hex, 32));
        v.knownHex(hex); // decode accepted only lower-case hex, so this is the canonical form
        return v;
    }
}
