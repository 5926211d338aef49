package org.fleetmesh.nostr.nip44;

/**
 * A NIP-44 payload or key that cannot be used: the message names the rule that failed
 * ({@code "invalid MAC"}, {@code "unknown version 3"}, {@code "invalid padding"}, ...), so that a
 * caller can pass it on in a protocol answer.
 */
public final class Nip44Exception extends Exception {
    public Nip44Exception(String message) {
        super(message, null, false, false);
    }
}
