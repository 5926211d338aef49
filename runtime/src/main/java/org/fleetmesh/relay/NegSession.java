package org.fleetmesh.relay;

import org.fleetmesh.negentropy.Negentropy;

/** One NIP-77 session: the relay's responder side over a snapshot of the matching events. */
final class NegSession {
    final String id;
    private final Negentropy negentropy;
    private volatile long lastUsedNanos = System.nanoTime();

    NegSession(String id, Negentropy negentropy) {
        this.id = id;
        this.negentropy = negentropy;
    }

    /** The reply to a client message; the protocol is strictly alternating, so one caller at a time. */
    synchronized byte[] reconcile(byte[] message) {
        lastUsedNanos = System.nanoTime();
        return negentropy.reconcile(message);
    }

    boolean idleLongerThan(long seconds) {
        return System.nanoTime() - lastUsedNanos > seconds * 1_000_000_000L;
    }
}
