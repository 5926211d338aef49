package org.fleetmesh.identity;

import java.util.Objects;

import org.fleetmesh.nostr.PubKey;

/** The public halves of a node's three keys (design brief §4, "Node keys"). */
public record NodeKeys(PubKey nostr, Multikey agreement, Multikey transport) {
    public NodeKeys {
        Objects.requireNonNull(nostr, "nostr");
        requireType(agreement, KeyType.X25519, "agreement");
        requireType(transport, KeyType.ED25519, "transport");
        Multikey.nostr(nostr); // refuses an x that is not on secp256k1
    }

    /** The Nostr key as a secp256k1 Multikey, 0x02 ‖ x. */
    public Multikey nostrMultikey() {
        return Multikey.nostr(nostr);
    }

    private static void requireType(Multikey key, KeyType type, String role) {
        Objects.requireNonNull(key, role);
        if (key.type() != type) {
            throw new IllegalArgumentException("the " + role + " key is " + type + ", got " + key.type());
        }
    }
}
