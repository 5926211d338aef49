package org.fleetmesh.nostr;

/** NIP-01 storage classes, decided by kind alone. */
public enum EventClass {
    /** Stored; every event kept. */
    REGULAR,
    /** 0, 3, 10000-19999: only the latest per (pubkey, kind). */
    REPLACEABLE,
    /** 20000-29999: fanned out, never stored. */
    EPHEMERAL,
    /** 30000-39999: only the latest per (pubkey, kind, first d tag). */
    ADDRESSABLE;

    public static EventClass of(int kind) {
        if (kind == 0 || kind == 3 || (kind >= 10000 && kind < 20000)) {
            return REPLACEABLE;
        }
        if (kind >= 20000 && kind < 30000) {
            return EPHEMERAL;
        }
        if (kind >= 30000 && kind < 40000) {
            return ADDRESSABLE;
        }
        return REGULAR;
    }
}
