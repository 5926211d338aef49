package org.fleetmesh.spi.compute;

/** A host function stopped the job: it cannot go on (see {@link Reason}). */
public final class HostAbort extends RuntimeException {
    public enum Reason {
        /** A host call's cost took the fuel below zero. */
        FUEL_EXHAUSTED,
        /** stdout or stderr would pass the job's output limit. */
        OUTPUT_LIMIT,
        /** A pointer the guest passed lies outside its memory. */
        MEMORY_FAULT
    }

    private final Reason reason;

    public HostAbort(Reason reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
