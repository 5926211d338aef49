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
     * What the sessions know of a peer, for {@code /mesh/status}: the node's link protocols put {@code tier},
     * {@code grant_in}, {@code grant_out}, {@code used}, {@code violations} and {@code strain} (JSON-ready values:
     * strings, numbers, booleans, maps, lists). Keys it does not put are written as null.
     *
     * @param peerKey the peer's DID short form ({@link PeerIdentity#shortForm(String)})
     */
    default void describe(String peerKey, java.util.Map<String, Object> into) {
    }

    /**
     * Until when the peer is quarantined: the link manager does not dial it and ends a link from it at once
     * ({@code quarantined}).
     */
    default java.util.Optional<java.time.Instant> quarantinedUntil(String peerKey) {
        return java.util.Optional.empty();
    }
}
