package org.fleetmesh.peering;

import java.time.Duration;
import java.util.Objects;

/**
 * Bounds of one handshake. {@link #DEFAULTS}: 60 s of clock skew either way, 10 s for the whole handshake, handshake
 * messages of at most 65,536 characters (a did:peer:4 long form is about 2,200).
 *
 * @param maxClockSkew how far a proof's time may lie from this node's clock, either way
 * @param timeout how long the whole handshake may take, from the connection opening to MESH-OK
 * @param maxMessageLength the longest handshake message read, in characters
 */
public record HandshakeSettings(Duration maxClockSkew, Duration timeout, int maxMessageLength) {
    public static final HandshakeSettings DEFAULTS = new HandshakeSettings(Duration.ofSeconds(60), Duration.ofSeconds(10),
            65_536);

    public HandshakeSettings {
        Objects.requireNonNull(maxClockSkew, "maxClockSkew");
        Objects.requireNonNull(timeout, "timeout");
        if (maxClockSkew.isNegative() || maxClockSkew.getSeconds() < 1) {
            throw new IllegalArgumentException("the clock skew allowance must be at least one second");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the handshake timeout must be positive");
        }
        if (maxMessageLength < 4096) {
            throw new IllegalArgumentException("handshake messages must be allowed at least 4096 characters, a DID is long");
        }
    }

    public HandshakeSettings withMaxClockSkew(Duration skew) {
        return new HandshakeSettings(skew, timeout, maxMessageLength);
    }

    public HandshakeSettings withTimeout(Duration t) {
        return new HandshakeSettings(maxClockSkew, t, maxMessageLength);
    }

    public HandshakeSettings withMaxMessageLength(int length) {
        return new HandshakeSettings(maxClockSkew, timeout, length);
    }
}
