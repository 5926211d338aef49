package org.fleetmesh.settlement.cashu.conditions;

/** Whether a proof (or a transaction) meets its spending conditions, and why or why not, in words. */
public record Verdict(boolean ok, String reason) {
    public static Verdict ok(String reason) {
        return new Verdict(true, reason);
    }

    public static Verdict fail(String reason) {
        return new Verdict(false, reason);
    }
}
