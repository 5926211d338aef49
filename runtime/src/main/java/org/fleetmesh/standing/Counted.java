package org.fleetmesh.standing;

/** A finding that moved a view, and by how much ({@code weight} is subtracted from 1). */
public record Counted(String eventId, String observer, String severity, String scope, String rule, String verdict,
        double weight) {
}
