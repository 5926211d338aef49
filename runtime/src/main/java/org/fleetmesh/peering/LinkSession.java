package org.fleetmesh.peering;

import org.fleetmesh.nostr.Snippet;

/**
 * What runs on one authenticated link after MESH-OK: the link protocols (heartbeats, event frames, grant negotiation),
 * each a {@code LinkSession} or a wrapper around one. Every call comes on the link's own thread, in order.
 */
public interface LinkSession {

    /**
     * A message arrived after MESH-OK. A {@code MESH-ERR} arrives here too (for the log); it is never answered with a
     * {@code MESH-ERR}, or two nodes would echo each other forever.
     */
    void receive(String text);

    /** The link closed, by either side; called once, and nothing is received after it. */
    default void closed() {
    }

    /** Answers every message with {@code MESH-ERR "unsupported: ..."} and keeps the link open. */
    static LinkSession unsupported(MeshLink link) {
        return text -> {
            java.util.Optional<String> type = MeshMessage.typeOf(text);
            if (type.isPresent() && type.get().equals(MeshMessage.ERR)) {
                return;
            }
            String what = type.map(t -> "message type \"" + Snippet.of(t) + "\"")
                    .orElse("a message that is not a typed JSON array");
            link.send(MeshErr.of(Refusal.of(Refusal.Kind.UNSUPPORTED, what + " is not served on this link yet")).encode());
        };
    }
}
