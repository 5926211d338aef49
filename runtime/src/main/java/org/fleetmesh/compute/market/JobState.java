package org.fleetmesh.compute.market;

import java.util.Locale;

/** The states of a job on either side (docs/spec/compute.md, "Job states"); {@link #word()} is the wire and API word. */
public enum JobState {
    REQUESTED, FETCHING, RUNNING, SEALED, PAYING, PAID, DONE, REFUSED, FAILED, EXPIRED;

    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static JobState of(String word) {
        return valueOf(word.toUpperCase(Locale.ROOT));
    }

    public boolean isFinal() {
        return this == DONE || this == REFUSED || this == FAILED || this == EXPIRED;
    }
}
