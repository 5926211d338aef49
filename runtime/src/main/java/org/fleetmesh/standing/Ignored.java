package org.fleetmesh.standing;

/** A finding that weighs nothing, and why (its verdict, its observer's tier, a duplicate of counted evidence, ...). */
public record Ignored(String eventId, String observer, String severity, String scope, String rule, String verdict,
        String why) {
}
