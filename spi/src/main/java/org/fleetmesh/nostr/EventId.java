package org.fleetmesh.nostr;

/** An event id: SHA-256 of the NIP-01 canonical serialization. */
public final class EventId extends Bytes32 {
    public EventId(byte[] bytes) {
        super(bytes);
    }

    public static EventId ofHex(String hex) {
        EventId v = new EventId(Hex.decode(hex, 32));
        v.knownHex(hex); // decode accepted only lower-case hex, so this is the canonical form
        return v;
    }
}
