package org.fleetmesh.spi.peers;

import java.util.Objects;

/**
 * One peer's standing at this node.
 *
 * @param peer the peer's DID (did:peer:4 short form, other DIDs as they are)
 * @param tier its tier, 0 for a newcomer
 * @param cleanStreak clean windows in a row at that tier
 * @param violations every budget violation counted so far
 * @param quarantinedUntil epoch milliseconds until which links from the peer are refused, 0 when not quarantined
 * @param strain what each side consumed from the other, decayed to {@code strainAt}
 * @param strainAt epoch milliseconds the strain figures are valid at
 */
public record PeerRecord(String peer, int tier, int cleanStreak, long violations, long quarantinedUntil,
        Strain strain, long strainAt) {
    public PeerRecord {
        Objects.requireNonNull(peer, "peer");
        Objects.requireNonNull(strain, "strain");
        if (tier < 0 || cleanStreak < 0 || violations < 0) {
            throw new IllegalArgumentException("tier, streak and violations cannot be negative");
        }
    }

    /**
     * Decayed consumption, per direction ({@code in}: what the peer made this node spend; {@code out}: what this node
     * made the peer spend, as far as this node can tell), in bytes, events, nanoseconds of verification and
     * nanoseconds of queries.
     */
    public record Strain(long inBytes, long inEvents, long inVerifyNanos, long inQueryNanos, long outBytes,
            long outEvents, long outVerifyNanos, long outQueryNanos) {
        public static final Strain ZERO = new Strain(0, 0, 0, 0, 0, 0, 0, 0);
    }
}
