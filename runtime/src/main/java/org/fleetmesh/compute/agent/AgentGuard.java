package org.fleetmesh.compute.agent;

import java.time.Clock;
import java.util.List;
import java.util.Objects;

import org.fleetmesh.identity.capability.Authorization;
import org.fleetmesh.identity.capability.CapabilityException;
import org.fleetmesh.identity.capability.CapabilityException.Reason;
import org.fleetmesh.identity.capability.CapabilityRequest;
import org.fleetmesh.identity.capability.CapabilityVerifier;
import org.fleetmesh.identity.capability.RevocationList;

/**
 * Who may use the agent API (docs/spec/compute-agent.md, "Access"): the holder of a capability token rooted in this
 * node's transport key, or in a DID the operator trusts, that grants {@code compute:run} with a {@code fuel_limit} at
 * least the fuel the request asks for. The first root that allows the token decides; otherwise the refusal of the
 * first root that recognises the signature (or of this node's, when none does). Thread-safe.
 */
public final class AgentGuard {
    private final List<CapabilityVerifier> roots;
    private final java.util.function.Supplier<RevocationList> revoked;
    private final Clock clock;

    /** {@code roots}: this node's verifier first, then the trusted DIDs'. */
    public AgentGuard(List<CapabilityVerifier> roots, Clock clock) {
        this(roots, RevocationList::empty, clock);
    }

    /** {@code revoked}: the revocations in force at each check (the node's revoked-token file). */
    public AgentGuard(List<CapabilityVerifier> roots, java.util.function.Supplier<RevocationList> revoked, Clock clock) {
        if (roots.isEmpty()) {
            throw new IllegalArgumentException("at least one capability root");
        }
        this.roots = List.copyOf(roots);
        this.revoked = Objects.requireNonNull(revoked, "revoked");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** What the guard decided: a token's id (who submitted, for its job bound) or a refusal. */
    public record Access(int status, String reason, String tokenId) {
        public boolean allowed() {
            return status == 200;
        }

        static Access denied(int status, String reason) {
            return new Access(status, reason, null);
        }
    }

    /** Checks an {@code Authorization} header (null when absent) for {@code fuel} units of compute. */
    public Access check(String authorization, long fuel) {
        if (authorization == null) {
            return Access.denied(401, "unauthorized: a capability token with compute:run is required "
                    + "(send Authorization: Bearer <token>; ./meshnode token issue --right compute:run --fuel-limit N)");
        }
        if (!authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Access.denied(401, "unauthorized: the Authorization header is not \"Bearer <token>\"");
        }
        String token = authorization.substring(7).strip();
        CapabilityRequest request = CapabilityRequest.compute(fuel, clock.instant());
        CapabilityException first = null;
        RevocationList now = revoked.get();
        for (CapabilityVerifier root : roots) {
            try {
                Authorization a = root.revoking(now).authorize(token, request);
                return new Access(200, null, a.tokenId().hex());
            } catch (CapabilityException e) {
                if (first == null || first.reason() == Reason.BAD_SIGNATURE && e.reason() != Reason.BAD_SIGNATURE) {
                    first = e;
                }
            }
        }
        return refusal(first);
    }

    private static Access refusal(CapabilityException e) {
        boolean forbidden = e.reason() == Reason.RIGHT_NOT_GRANTED || e.reason() == Reason.FUEL_OVER_LIMIT
                || e.reason() == Reason.WRONG_HOLDER || e.reason() == Reason.CHECK_FAILED;
        return forbidden ? Access.denied(403, "forbidden: " + e.getMessage())
                : Access.denied(401, "unauthorized: " + e.getMessage());
    }
}
