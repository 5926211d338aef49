package org.fleetmesh.identity.capability;

import java.util.List;

/**
 * An allowed request: who the token was issued to and by, what was allowed, and the token's revocation ids
 * (authority first), so that the caller can log or revoke exactly this token.
 */
public record Authorization(String subject, String issuer, CapabilityRequest request, List<RevocationId> revocationIds) {
    public Authorization {
        revocationIds = List.copyOf(revocationIds);
    }

    /** The id of the token as issued (its authority block). */
    public RevocationId tokenId() {
        return revocationIds.get(0);
    }

    /** How many holders narrowed the token before it was presented. */
    public int attenuations() {
        return revocationIds.size() - 1;
    }
}
