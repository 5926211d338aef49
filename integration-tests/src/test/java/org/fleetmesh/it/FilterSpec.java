package org.fleetmesh.it;

import org.fleetmesh.nostr.Event;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Builds a NIP-01 filter object: {@code FilterSpec.of().authors(pk).kinds(1).limit(5)}. */
public final class FilterSpec {
    private final ObjectNode node = NostrClient.JSON.createObjectNode();

    public static FilterSpec of() {
        return new FilterSpec();
    }

    public FilterSpec ids(String... ids) {
        ArrayNode a = node.putArray("ids");
        for (String s : ids) {
            a.add(s);
        }
        return this;
    }

    public FilterSpec ids(Event... events) {
        ArrayNode a = node.putArray("ids");
        for (Event e : events) {
            a.add(e.id().hex());
        }
        return this;
    }

    public FilterSpec authors(String... pubkeys) {
        ArrayNode a = node.putArray("authors");
        for (String s : pubkeys) {
            a.add(s);
        }
        return this;
    }

    public FilterSpec authors(Keys... keys) {
        ArrayNode a = node.putArray("authors");
        for (Keys k : keys) {
            a.add(k.pubkey());
        }
        return this;
    }

    public FilterSpec kinds(int... kinds) {
        ArrayNode a = node.putArray("kinds");
        for (int k : kinds) {
            a.add(k);
        }
        return this;
    }

    /** {@code #<letter>}: events with such a tag whose first value is one of these. */
    public FilterSpec tag(char letter, String... values) {
        ArrayNode a = node.putArray("#" + letter);
        for (String s : values) {
            a.add(s);
        }
        return this;
    }

    public FilterSpec since(long since) {
        node.put("since", since);
        return this;
    }

    public FilterSpec until(long until) {
        node.put("until", until);
        return this;
    }

    public FilterSpec limit(int limit) {
        node.put("limit", limit);
        return this;
    }

    public ObjectNode node() {
        return node;
    }

    @Override
    public String toString() {
        return node.toString();
    }
}
