package org.fleetmesh.nostr.nip66;

/** A NIP-66 event that does not read: the message says which rule it breaks ({@code invalid: ...}). */
public final class Nip66Exception extends Exception {
    public Nip66Exception(String message) {
        super(message, null, false, false);
    }
}
