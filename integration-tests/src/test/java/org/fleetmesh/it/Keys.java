package org.fleetmesh.it;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.Schnorr;

/** A fresh Nostr key pair that signs test events; one per test keeps tests apart. */
public final class Keys {
    private final byte[] secret;
    private final String pubkey;

    private Keys(byte[] secret) {
        this.secret = secret;
        this.pubkey = Hex.encode(Schnorr.publicKey(secret));
    }

    public static Keys fresh() {
        return new Keys(Schnorr.newSecretKey());
    }

    public String pubkey() {
        return pubkey;
    }

    public Event sign(int kind, long createdAt, String content, String[]... tags) {
        List<List<String>> t = new ArrayList<>();
        for (String[] tag : tags) {
            t.add(Arrays.asList(tag));
        }
        return Events.sign(secret, createdAt, kind, t, content);
    }

    public Event note(long createdAt, String content, String[]... tags) {
        return sign(1, createdAt, content, tags);
    }

    public static String[] tag(String... values) {
        return values;
    }

    public static long now() {
        return System.currentTimeMillis() / 1000;
    }

    /**
     * The event with one character of its signature changed: same id, a signature that no longer
     * verifies.
     */
    public static String withBrokenSignature(Event e) {
        String sig = e.sig().hex();
        char c = sig.charAt(10) == '0' ? '1' : '0';
        String bad = sig.substring(0, 10) + c + sig.substring(11);
        return e.json().replace(sig, bad);
    }
}
