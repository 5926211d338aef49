package org.fleetmesh.standing;

import java.util.Objects;

/** A verdict and the reason for it, in words an operator reads in {@code /mesh/standing}. */
public record Check(Verdict verdict, String reason) {
    public Check {
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(reason, "reason");
    }

    static Check verified(String reason) {
        return new Check(Verdict.VERIFIED, reason);
    }

    static Check attested(String reason) {
        return new Check(Verdict.ATTESTED, reason);
    }

    static Check unverifiable(String reason) {
        return new Check(Verdict.UNVERIFIABLE, reason);
    }

    static Check falsehood(String reason) {
        return new Check(Verdict.FALSE, reason);
    }

    static Check malformed(String reason) {
        return new Check(Verdict.MALFORMED, reason);
    }

    /** Whether the finding counts at all (before the node's weights). */
    public boolean counts() {
        return verdict == Verdict.VERIFIED || verdict == Verdict.ATTESTED;
    }
}
