package org.fleetmesh.relay;

import java.security.SecureRandom;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.PubKey;

/** What the relay knows of one connection: its subscriptions, its NIP-42 challenge and pubkeys. */
final class ClientState {
    private static final SecureRandom RANDOM = new SecureRandom();

    final Connection connection;
    final Map<String, Subscription> subscriptions = new ConcurrentHashMap<>();
    /** NIP-77 sessions by subscription id, open or being opened. */
    final Map<String, NegSession> negSessions = new ConcurrentHashMap<>();
    final String challenge;
    /** NIP-42 allows several pubkeys on one connection; all of them count as authenticated. */
    final Set<PubKey> authenticated = ConcurrentHashMap.newKeySet();
    /** This connection's share of the query threads. */
    final QueryPool.Lane lane = new QueryPool.Lane();
    /** The key of this connection's per-address budget. */
    final String address;
    /** Guarded by this: the subscriptions of this connection its address's budget counts (see ClientGate). */
    int countedSubscriptions;

    ClientState(Connection connection) {
        this.connection = connection;
        String a = connection.address();
        this.address = a == null ? "unknown" : a;
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        this.challenge = Hex.encode(b);
    }

    boolean isAuthenticated() {
        return !authenticated.isEmpty();
    }

    /** Whether the challenge was sent again already (see {@link #remindChallenge}). */
    private final java.util.concurrent.atomic.AtomicBoolean reminded = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * NIP-42: sends this connection's challenge again, the same one (so an AUTH signed over the first stays valid),
     * before the first {@code auth-required:} answer to a client that has not authenticated; once per connection. The
     * challenge goes out as the connection opens, in the same moment as the 101 response, and a client that attaches
     * its message handler only once the socket is open loses it (rust-nostr in Node.js did, about half the time):
     * without it, such a client could never authenticate.
     */
    void remindChallenge(String refusal) {
        if (refusal != null && refusal.startsWith("auth-required:") && !isAuthenticated()
                && reminded.compareAndSet(false, true)) {
            connection.send(RelayMessages.auth(challenge));
        }
    }
}
