package org.fleetmesh.spi.settlement;

import java.util.Objects;

/**
 * One escrow transition to persist atomically with its journal entry.
 *
 * @param before the state it moves from; null when the escrow is created (then {@code after.version()} is 1)
 * @param after  the escrow once the step is applied; its version is the stored version + 1
 * @param entry  the postings of the step (possibly none); its key is the step's idempotency key
 */
public record EscrowStep(EscrowState before, Escrow after, JournalEntry entry) {

    public EscrowStep {
        Objects.requireNonNull(after, "after");
        Objects.requireNonNull(entry, "entry");
        if ((before == null) != (after.version() == 1)) {
            throw new IllegalArgumentException("a step creates the escrow (version 1) exactly when it has no previous state");
        }
        if (!entry.key().equals(key(after.paymentHash(), after.state()))) {
            throw new IllegalArgumentException("the entry key of an escrow step is " + key(after.paymentHash(), after.state()));
        }
    }

    /** The idempotency key of the step that reaches {@code state}: {@code escrow:<payment hash hex>:<STATE>}. */
    public static String key(PaymentHash hash, EscrowState state) {
        return "escrow:" + hash.hex() + ":" + state.name();
    }
}
