package org.fleetmesh.peering;

/**
 * Opens the {@link LinkSession} of each link once it is authenticated. The node has one; the link manager calls it
 * for links it dialled and links it accepted alike.
 */
@FunctionalInterface
public interface LinkSessions {

    /** Nothing is served after MESH-OK: every message is answered {@code unsupported}. */
    LinkSessions UNSUPPORTED = LinkSession::unsupported;

    /**
     * The session of {@code link}, which has just authenticated ({@link MeshLink#peer()} is present). It may send at
     * once, and may end the link ({@link MeshLink#end(Refusal)}).
     */
    LinkSession open(MeshLink link);

    /**
     * Adds what this node knows of {@code peerKey} (a DID in its short form) to its {@code /mesh/status} entry: tier,
     * grant_in, grant_out, used, violations, strain (null for what is absent).
     */
    default void describe(String peerKey, java.util.Map<String, Object> into) {
    }

    /** When {@code peerKey} is quarantined here, the end of it: the link manager neither dials nor keeps its links. */
    default java.util.Optional<java.time.Instant> quarantinedUntil(String peerKey) {
        return java.util.Optional.empty();
    }
}
