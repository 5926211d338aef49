package org.fleetmesh.standing;

import java.util.Objects;

import org.fleetmesh.nostr.PubKey;

/**
 * A finding before it is signed: what a local evidence record says, in the finding's terms.
 *
 * @param subjectKey the subject's Nostr key when the evidence names it, null when only a DID is known (the signer
 *        then takes it from the subject's DID)
 */
public record Draft(Severity severity, Scope scope, String rule, String evidenceType, String evidenceJson,
        PubKey subjectKey) {
    public Draft {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(evidenceType, "evidenceType");
        Objects.requireNonNull(evidenceJson, "evidenceJson");
    }
}
