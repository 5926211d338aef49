package org.fleetmesh.nostr;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/** Computing, checking and signing event ids. */
public final class Events {
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    });

    private Events() {
    }

    public static byte[] sha256(byte[] data) {
        MessageDigest md = SHA256.get();
        md.reset();
        return md.digest(data);
    }

    /** The id NIP-01 defines: SHA-256 of the UTF-8 canonical serialization. */
    public static EventId computeId(PubKey pubkey, long createdAt, int kind, List<List<String>> tags, String content) {
        String canonical = NostrJson.canonical(pubkey, createdAt, kind, tags, content);
        return new EventId(sha256(canonical.getBytes(StandardCharsets.UTF_8)));
    }

    /** Why the event is not authentic, or null when its id and signature are both right. */
    public static String verify(Event e) {
        if (!wellFormed(e)) {
            // UTF-8 cannot encode a lone surrogate (getBytes writes '?'), so distinct strings would share an id
            return "invalid: content or tags hold an unpaired UTF-16 surrogate";
        }
        boolean idOk = new EventId(sha256(NostrJson.canonical(e).getBytes(StandardCharsets.UTF_8))).equals(e.id())
                || idMatches(e.id(), e.pubkey(), e.createdAt(), e.kind(), e.tags(), e.content());
        if (!idOk) {
            return "invalid: event id does not match the canonical serialization";
        }
        if (!Schnorr.verify(e.sig().unsafeBytes(), e.id().unsafeBytes(), e.pubkey().unsafeBytes())) {
            return "invalid: bad signature";
        }
        return null;
    }

    /**
     * NIP-01 writes control characters other than \b \t \n \f \r verbatim, but nostr-tools and
     * rust-nostr hash the backslash-u-00xx form; both denote the same fields, so either id is accepted.
     */
    public static boolean idMatches(EventId id, PubKey pubkey, long createdAt, int kind, List<List<String>> tags,
            String content) {
        if (computeId(pubkey, createdAt, kind, tags, content).equals(id)) {
            return true;
        }
        if (!NostrJson.hasOtherControlCharacters(tags, content)) {
            return false;
        }
        String alt = NostrJson.canonicalEscapingControls(pubkey, createdAt, kind, tags, content);
        return new EventId(sha256(alt.getBytes(StandardCharsets.UTF_8))).equals(id);
    }

    private static boolean wellFormed(Event e) {
        if (!wellFormed(e.content())) {
            return false;
        }
        for (List<String> tag : e.tags()) {
            for (String s : tag) {
                if (!wellFormed(s)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** True when every surrogate in {@code s} is part of a high-low pair. */
    public static boolean wellFormed(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /** Builds and signs an event with a secret key. */
    public static Event sign(byte[] secretKey, long createdAt, int kind, List<List<String>> tags, String content) {
        PubKey pubkey = new PubKey(Schnorr.publicKey(secretKey));
        EventId id = computeId(pubkey, createdAt, kind, tags, content);
        Signature sig = new Signature(Schnorr.sign(id.unsafeBytes(), secretKey));
        return new Event(id, pubkey, createdAt, kind, List.copyOf(tags.stream().map(List::copyOf).toList()), content,
                sig);
    }
}
