package org.fleetmesh.relay;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.storage.Reader;

/**
 * Who may read what: the NIP-42 state of a connection (its challenge, the AUTH events it
 * proved), the read gate of {@link RelayPolicy}, and the private kinds (NIP-04 kind 4, NIP-59
 * kinds 13 and 1059) served only to their author or an authenticated {@code p}-tagged recipient.
 * The NIP-70 write gate is {@link Ingest}'s.
 */
final class Visibility {
    /** Kinds served only to their author or a {@code p}-tagged recipient who has authenticated. */
    static final Set<Integer> PRIVATE_KINDS = Set.of(4, 13, 1059);

    private final RelayPolicy policy;
    private final LongSupplier nowSeconds;

    Visibility(RelayPolicy policy, LongSupplier nowSeconds) {
        this.policy = policy;
        this.nowSeconds = nowSeconds;
    }

    /** The reader a store query runs as for this connection, with its pubkeys as they are now. */
    static Reader readerOf(ClientState state) {
        return Reader.of(PRIVATE_KINDS, Set.copyOf(state.authenticated));
    }

    /** Kinds 4, 13 and 1059 go only to their author or an authenticated p-tagged recipient. */
    static boolean visibleTo(Event e, Set<PubKey> authenticated) {
        if (!PRIVATE_KINDS.contains(e.kind())) {
            return true;
        }
        if (authenticated.isEmpty()) {
            return false;
        }
        if (authenticated.contains(e.pubkey())) {
            return true;
        }
        for (List<String> t : e.tags()) {
            if (t.size() >= 2 && t.get(0).equals("p")) {
                for (PubKey k : authenticated) {
                    if (k.hex().equals(t.get(1))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Why REQ, COUNT or NEG-OPEN over these filters is refused (CLOSED / NEG-ERR), or null. */
    String readRefusal(ClientState state, List<Filter> filters) {
        if (state.isAuthenticated()) {
            return null;
        }
        if (policy.authRequiredReads()) {
            return "auth-required: this relay serves only authenticated clients";
        }
        for (Filter f : filters) {
            // an empty kinds list matches nothing: nothing private either, so it is not refused
            if (f.kinds() == null || f.kinds().isEmpty() || !PRIVATE_KINDS.containsAll(f.kinds())) {
                return null;
            }
        }
        return "auth-required: direct messages and gift wraps are served only to their authenticated recipients";
    }

    /**
     * Filters matching every private-kind event this client may read (as author or p-tagged
     * recipient), or none when it has not authenticated: a store counts them in SQL.
     */
    static List<Filter> readablePrivate(ClientState state) {
        if (!state.isAuthenticated()) {
            return List.of();
        }
        Set<PubKey> pubkeys = Set.copyOf(state.authenticated);
        Set<String> hex = new HashSet<>();
        pubkeys.forEach(p -> hex.add(p.hex()));
        return List.of(new Filter(null, pubkeys, PRIVATE_KINDS, Map.of(), null, null, null),
                new Filter(null, null, PRIVATE_KINDS, Map.of("p", hex), null, null, null));
    }

    /** NIP-42: why this AUTH event does not authenticate its pubkey on this connection, or null. */
    String authRefusal(ClientState state, Event e) {
        if (e.kind() != Ingest.AUTH_KIND) {
            return "invalid: an AUTH event must be kind 22242";
        }
        String authentic = Events.verify(e);
        if (authentic != null) {
            return authentic;
        }
        if (!state.challenge.equals(e.firstTagValue("challenge"))) {
            return "invalid: the challenge tag does not match this connection's challenge";
        }
        long now = nowSeconds.getAsLong();
        if (Math.abs(e.createdAt() - now) > policy.authWindowSeconds()) {
            return "invalid: the AUTH event's created_at is more than " + policy.authWindowSeconds()
                    + " seconds from now";
        }
        String relay = e.firstTagValue("relay");
        if (relay == null || !RelayUrls.sameRelay(relay, policy.relayUrl(), state.connection.host())) {
            return "invalid: the AUTH event names another relay";
        }
        return null;
    }
}
