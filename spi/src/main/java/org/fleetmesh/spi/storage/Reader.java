package org.fleetmesh.spi.storage;

import java.util.List;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.PubKey;

/**
 * Who reads: an event of one of {@code privateKinds} (e.g. NIP-04 kind 4, NIP-59 kinds 13 and 1059)
 * is visible only when its author is one of {@code pubkeys} or one of its {@code p} tags names one
 * of them; every other event is visible. A store applies this rule before a filter's limit and in
 * counts, so hidden events neither take a limit's places nor count.
 *
 * @param privateKinds the kinds gated by this rule; empty: everything is visible
 * @param pubkeys the reader's authenticated keys (NIP-42 allows several)
 */
public record Reader(Set<Integer> privateKinds, Set<PubKey> pubkeys) {
    private static final Reader OPERATOR = new Reader(Set.of(), Set.of());

    public Reader {
        privateKinds = Set.copyOf(privateKinds);
        pubkeys = Set.copyOf(pubkeys);
    }

    /** Sees every event: the node itself, the operator's CLI, Negentropy over public shards. */
    public static Reader operator() {
        return OPERATOR;
    }

    /** A reader of {@code privateKinds} events addressed to or written by one of {@code pubkeys}. */
    public static Reader of(Set<Integer> privateKinds, Set<PubKey> pubkeys) {
        return new Reader(privateKinds, pubkeys);
    }

    /** True when no kind is gated. */
    public boolean seesAll() {
        return privateKinds.isEmpty();
    }

    /** The visibility rule, for stores that filter in memory and for fan-out of live events. */
    public boolean mayRead(Event e) {
        if (!privateKinds.contains(e.kind()) || pubkeys.contains(e.pubkey())) {
            return true;
        }
        if (pubkeys.isEmpty()) {
            return false;
        }
        for (List<String> t : e.tags()) {
            if (t.size() >= 2 && t.get(0).equals("p") && Hex.isLowerHex(t.get(1), 64)
                    && pubkeys.contains(PubKey.ofHex(t.get(1)))) {
                return true;
            }
        }
        return false;
    }
}
