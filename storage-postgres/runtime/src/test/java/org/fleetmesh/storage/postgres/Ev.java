package org.fleetmesh.storage.postgres;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.NostrJson;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Signature;

/**
 * Test events. The store does not verify signatures (the relay does before saving), so these carry
 * a real NIP-01 id (SHA-256 of the canonical form) and a random signature: no dependency on the
 * core module's Schnorr code.
 */
final class Ev {
    static final SecureRandom RND = new SecureRandom();

    private Ev() {
    }

    static PubKey author() {
        byte[] b = new byte[32];
        RND.nextBytes(b);
        return new PubKey(b);
    }

    static Event ev(PubKey pk, long createdAt, int kind, List<List<String>> tags, String content) {
        String canonical = NostrJson.canonical(pk, createdAt, kind, tags, content);
        EventId id = new EventId(TextKeys.sha256(canonical.getBytes(StandardCharsets.UTF_8)));
        byte[] sig = new byte[64];
        RND.nextBytes(sig);
        return new Event(id, pk, createdAt, kind, tags, content, new Signature(sig));
    }

    static Event ev(PubKey pk, long createdAt, int kind, String content, String[]... tags) {
        List<List<String>> t = new ArrayList<>();
        for (String[] tag : tags) {
            t.add(Arrays.asList(tag));
        }
        return ev(pk, createdAt, kind, t, content);
    }

    static String[] tag(String... parts) {
        return parts;
    }

    /** Two events of the same author, time and kind (and tags), ordered: [lower id, higher id]. */
    static Event[] tie(PubKey pk, long createdAt, int kind, String[]... tags) {
        Event a = ev(pk, createdAt, kind, "tie " + RND.nextLong(), tags);
        Event b = ev(pk, createdAt, kind, "tie " + RND.nextLong(), tags);
        return a.id().compareTo(b.id()) < 0 ? new Event[] { a, b } : new Event[] { b, a };
    }
}
