package org.fleetmesh.nostr;

import java.util.List;

/**
 * A Nostr event (NIP-01). Immutable; {@link #json()} is its compact wire form, computed once,
 * which is what the store keeps and what subscribers receive.
 */
public final class Event {
    private final EventId id;
    private final PubKey pubkey;
    private final long createdAt;
    private final int kind;
    private final List<List<String>> tags;
    private final String content;
    private final Signature sig;
    private String json;
    private String[] escapedBody; // {tags, content} as JSON, shared by the canonical and wire forms

    public Event(EventId id, PubKey pubkey, long createdAt, int kind, List<List<String>> tags, String content,
            Signature sig) {
        this.id = id;
        this.pubkey = pubkey;
        this.createdAt = createdAt;
        this.kind = kind;
        this.tags = tags;
        this.content = content;
        this.sig = sig;
    }

    public EventId id() {
        return id;
    }

    public PubKey pubkey() {
        return pubkey;
    }

    public long createdAt() {
        return createdAt;
    }

    public int kind() {
        return kind;
    }

    public List<List<String>> tags() {
        return tags;
    }

    public String content() {
        return content;
    }

    public Signature sig() {
        return sig;
    }

    public EventClass eventClass() {
        return EventClass.of(kind);
    }

    /** The compact JSON object, as sent to clients and stored. */
    public String json() {
        String j = json;
        if (j == null) {
            j = NostrJson.eventJson(this);
            json = j;
        }
        return j;
    }

    /**
     * {tags, content} escaped once for both the canonical form (the id) and the wire form, or
     * null when a string holds a control character the two forms escape differently.
     */
    String[] escapedBody() {
        String[] b = escapedBody;
        if (b == null && !NostrJson.hasOtherControlCharacters(tags, content)) {
            StringBuilder t = new StringBuilder(64);
            NostrJson.appendTags(t, tags, true);
            StringBuilder c = new StringBuilder(content.length() + 16);
            NostrJson.appendString(c, content, true);
            b = new String[] { t.toString(), c.toString() };
            escapedBody = b;
        }
        return b;
    }

    /** The value of the first tag named {@code name}, or null. */
    public String firstTagValue(String name) {
        for (List<String> t : tags) {
            if (t.size() >= 2 && t.get(0).equals(name)) {
                return t.get(1);
            }
        }
        return null;
    }

    /** The NIP-01 {@code d} identifier of an addressable event: the first d tag's value, or "". */
    public String dTag() {
        String d = firstTagValue("d");
        return d == null ? "" : d;
    }

    /** NIP-40 expiration in epoch seconds, or null when absent or unreadable. */
    public Long expiration() {
        String v = firstTagValue("expiration");
        if (v == null) {
            return null;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** NIP-70: a {@code ["-"]} tag marks the event as publishable only by its author. */
    public boolean isProtected() {
        for (List<String> t : tags) {
            if (t.size() == 1 && t.get(0).equals("-")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Event e && e.id.equals(id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return json();
    }
}
