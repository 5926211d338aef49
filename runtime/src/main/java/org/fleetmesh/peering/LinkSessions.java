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
}
