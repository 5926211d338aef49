package org.fleetmesh.identity.capability;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What a holder asks for with its token: one right, the fuel it wants (compute only, 0 otherwise), at a time, and,
 * when the transport has authenticated the holder (NIP-42, the peer handshake), who it is. Without a holder the
 * token is a bearer token.
 */
public record CapabilityRequest(Right right, long fuel, Instant now, Optional<String> holder) {
    public CapabilityRequest {
        Objects.requireNonNull(right, "right");
        Objects.requireNonNull(now, "now");
        Objects.requireNonNull(holder, "holder");
        if (fuel < 0) {
            throw new IllegalArgumentException("fuel is not negative, got " + fuel);
        }
        if (fuel > 0 && right != Right.COMPUTE_RUN) {
            throw new IllegalArgumentException("only compute:run asks for fuel, " + right + " asked for " + fuel);
        }
        holder.ifPresent(h -> Vocabulary.text(h, "holder"));
        Vocabulary.date(now);
    }

    /** A request for a right that uses no fuel. */
    public static CapabilityRequest of(Right right, Instant now) {
        return new CapabilityRequest(right, 0, now, Optional.empty());
    }

    /** A compute:run request for {@code fuel} units. */
    public static CapabilityRequest compute(long fuel, Instant now) {
        return new CapabilityRequest(Right.COMPUTE_RUN, fuel, now, Optional.empty());
    }

    /** The same request from an authenticated holder, whom the token's subject must name. */
    public CapabilityRequest heldBy(String authenticatedHolder) {
        return new CapabilityRequest(right, fuel, now, Optional.of(authenticatedHolder));
    }
}
