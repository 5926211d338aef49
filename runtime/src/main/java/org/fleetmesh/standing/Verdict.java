package org.fleetmesh.standing;

/** What the receiving node's recheck of a finding concluded (docs/spec/findings.md, "Verdicts"). */
public enum Verdict {
    /** The evidence was re-checked and supports the finding. */
    VERIFIED,
    /** Well-formed, its signed parts check; the rest is the observer's word. */
    ATTESTED,
    /** An evidence type this node cannot check. */
    UNVERIFIABLE,
    /** A well-formed finding whose evidence does not verify or does not support its subject, severity or scope. */
    FALSE,
    /** The event is not a well-formed finding. */
    MALFORMED
}
