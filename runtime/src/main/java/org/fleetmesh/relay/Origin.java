package org.fleetmesh.relay;

import java.util.Set;

import org.fleetmesh.nostr.PubKey;

/**
 * Who brought events to {@link Ingest}. Only a client is held to the NIP-42 and NIP-70 write
 * gates; the other origins are the node's own doing (its peers, its syncs, its operator).
 */
public sealed interface Origin permits Origin.Client, Origin.Peer, Origin.Sync, Origin.Import {

    /** A client WebSocket connection and the pubkeys it had authenticated (NIP-42) when it sent the events. */
    record Client(String connectionId, Set<PubKey> authenticated) implements Origin {
        public Client {
            authenticated = Set.copyOf(authenticated);
        }

        boolean isAuthenticated() {
            return !authenticated.isEmpty();
        }
    }

    /** A mesh peer link, named by the peer's DID. */
    record Peer(String did) implements Origin {
    }

    /** A NIP-77 sync session with another relay. */
    record Sync(String relayUrl) implements Origin {
    }

    /** The operator's {@code meshnode import}. */
    record Import() implements Origin {
    }
}
