package org.fleetmesh.spi.storage;

/**
 * What the store did with one event of a batch. The relay turns it into the NIP-01 {@code OK}
 * answer: STORED is {@code true ""}, DUPLICATE is {@code true "duplicate: ..."}, the others are
 * {@code false} with {@link #reason()}.
 */
public enum SaveOutcome {
    STORED(true, ""),
    DUPLICATE(true, "duplicate: already have this event"),
    /** A replaceable or addressable event older than the one kept (or equal time, higher id). */
    SUPERSEDED(true, "duplicate: have a newer version of this event"),
    /** A NIP-09 deletion by its author covers this event. */
    DELETED(false, "blocked: this event was deleted by its author"),
    /** An unknown error while writing; nothing of the batch was committed. */
    FAILED(false, "error: could not store the event");

    private final boolean accepted;
    private final String reason;

    SaveOutcome(boolean accepted, String reason) {
        this.accepted = accepted;
        this.reason = reason;
    }

    public boolean accepted() {
        return accepted;
    }

    public String reason() {
        return reason;
    }
}
