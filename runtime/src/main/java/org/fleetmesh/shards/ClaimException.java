package org.fleetmesh.shards;

/** An event that is not a well-formed, validly signed shard claim; the message says which rule it breaks. */
public final class ClaimException extends Exception {
    public ClaimException(String reason) {
        super(reason, null, false, false);
    }
}
