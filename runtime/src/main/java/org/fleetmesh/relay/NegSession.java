package org.fleetmesh.relay;

import java.util.concurrent.atomic.AtomicBoolean;

import org.fleetmesh.negentropy.Negentropy;

/**
 * One NIP-77 session: the relay's responder side over a snapshot of the matching events. It holds
 * its slot from NEG-OPEN (while it is still being opened) until it is released, and accounts the
 * items its snapshot holds against the relay's budget.
 */
final class NegSession {
    final String id;
    private volatile Negentropy negentropy; // null while opening
    private volatile long lastUsedNanos = System.nanoTime();
    /** Items of the relay-wide budget this session's snapshot holds. */
    long items;
    final AtomicBoolean released = new AtomicBoolean();
    /** A client message is being answered (NIP-77 alternates: a second one before the answer is refused). */
    final AtomicBoolean busy = new AtomicBoolean();

    NegSession(String id) {
        this.id = id;
    }

    void opened(Negentropy n) {
        this.negentropy = n;
        lastUsedNanos = System.nanoTime();
    }

    boolean isOpen() {
        return negentropy != null && !released.get();
    }

    /** The reply to a client message; the protocol is strictly alternating, so one caller at a time. */
    synchronized byte[] reconcile(byte[] message) {
        lastUsedNanos = System.nanoTime();
        return negentropy.reconcile(message);
    }

    boolean idleLongerThan(long seconds) {
        return negentropy != null && System.nanoTime() - lastUsedNanos > seconds * 1_000_000_000L;
    }
}
