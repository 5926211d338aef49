package org.fleetmesh.nostr.nip66;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A NIP-66 relay discovery event (kind 30166, docs/spec/monitoring.md): what a monitor found at one relay. Tags this
 * node writes, in this order: {@code d} (the relay's normalized URL), {@code rtt-open}, {@code rtt-read},
 * {@code rtt-write} (milliseconds, each only when its check completed), {@code n} (network), one {@code N} per NIP
 * in the relay's NIP-11 {@code supported_nips}, one {@code R} per requirement read from its NIP-11
 * {@code limitation}; content is the NIP-11 document as served, or "" when none was.
 */
public record Discovery(Event event, String url, OptionalLong rttOpen, OptionalLong rttRead, OptionalLong rttWrite,
        List<String> networks, List<Integer> nips, List<String> requirements, List<String> kinds) {
    public static final int KIND = 30166;
    /** N tags written at most: a relay's document, not this node, decides how many NIPs it lists. */
    public static final int MAX_NIPS = 128;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final java.util.regex.Pattern MILLIS = java.util.regex.Pattern.compile("0|[1-9][0-9]{0,17}");

    public Discovery {
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(url, "url");
        networks = List.copyOf(networks);
        nips = List.copyOf(nips);
        requirements = List.copyOf(requirements);
        kinds = List.copyOf(kinds);
    }

    /** The discovery event for {@code probe}, signed with BIP-340 by the monitor's key. */
    public static Event sign(Probe probe, long createdAt, byte[] nostrSecret) {
        return Events.sign(nostrSecret, createdAt, KIND, tags(probe), probe.nip11().orElse(""));
    }

    /**
     * The NIP-09 deletion request (kind 5) that withdraws this monitor's discovery events about relays it no longer
     * watches (a peer that moved to a new URL, or was removed; this relay under an old URL): one
     * {@code ["a", "30166:<monitor>:<url>"]} per relay in {@code published} not in {@code watched}, in order, then
     * {@code ["k", "30166"]}; empty when there is none. NIP-09: the relay deletes "all versions ... up to the
     * created_at" of the deletion, so a later 30166 about the same URL (it is watched again) stands.
     *
     * @param published the {@code d} values of this monitor's stored 30166 events
     * @param watched the normalized URLs this monitor probes now
     */
    public static java.util.Optional<Event> retraction(java.util.Collection<String> published, Set<String> watched,
            long createdAt, byte[] nostrSecret) {
        String monitor = java.util.HexFormat.of().formatHex(org.fleetmesh.nostr.Schnorr.publicKey(nostrSecret));
        List<List<String>> tags = new ArrayList<>();
        for (String url : new LinkedHashSet<>(published)) {
            if (!watched.contains(url)) {
                tags.add(List.of("a", KIND + ":" + monitor + ":" + url));
            }
        }
        if (tags.isEmpty()) {
            return java.util.Optional.empty();
        }
        tags.add(List.of("k", Integer.toString(KIND)));
        return java.util.Optional.of(Events.sign(nostrSecret, createdAt, 5, tags,
                "this monitor no longer watches these relays"));
    }

    /** The tags of a discovery event for {@code probe}, in their order. */
    public static List<List<String>> tags(Probe probe) {
        List<List<String>> tags = new ArrayList<>();
        tags.add(List.of("d", probe.url()));
        probe.open().ifPresent(ms -> tags.add(List.of("rtt-open", Long.toString(ms))));
        probe.read().ifPresent(ms -> tags.add(List.of("rtt-read", Long.toString(ms))));
        probe.write().ifPresent(ms -> tags.add(List.of("rtt-write", Long.toString(ms))));
        tags.add(List.of("n", network(probe.url())));
        if (probe.nip11().isPresent()) {
            JsonNode doc;
            try {
                doc = JSON.readTree(probe.nip11().get());
            } catch (java.io.IOException e) {
                doc = null; // a document that does not parse says nothing about NIPs or requirements
            }
            if (doc != null && doc.isObject()) {
                for (int nip : nips(doc)) {
                    tags.add(List.of("N", Integer.toString(nip)));
                }
                for (String r : requirements(doc.path("limitation"))) {
                    tags.add(List.of("R", r));
                }
            }
        }
        return tags;
    }

    /** NIP-66's network types by host: {@code tor} for .onion, {@code i2p}, {@code loki}, else {@code clearnet}. */
    public static String network(String url) {
        String host = URI.create(url).getHost();
        host = host == null ? "" : host.toLowerCase(Locale.ROOT);
        if (host.endsWith(".onion")) {
            return "tor";
        }
        if (host.endsWith(".i2p")) {
            return "i2p";
        }
        if (host.endsWith(".loki")) {
            return "loki";
        }
        return "clearnet";
    }

    /** The distinct non-negative integers of {@code supported_nips}, in order, at most {@link #MAX_NIPS}. */
    static List<Integer> nips(JsonNode doc) {
        Set<Integer> nips = new LinkedHashSet<>();
        for (JsonNode n : doc.path("supported_nips")) {
            if (n.canConvertToInt() && n.isIntegralNumber() && n.asInt() >= 0 && nips.size() < MAX_NIPS) {
                nips.add(n.asInt());
            }
        }
        return List.copyOf(nips);
    }

    /**
     * NIP-66 {@code R} values from a NIP-11 {@code limitation}: {@code auth_required} gives {@code auth} or
     * {@code !auth}, {@code payment_required} {@code payment}, {@code restricted_writes} {@code writes}, and
     * {@code min_pow_difficulty} above 0 {@code pow}; a field that is absent or of another type gives nothing.
     */
    static List<String> requirements(JsonNode limitation) {
        List<String> out = new ArrayList<>();
        flag(out, limitation.path("auth_required"), "auth");
        flag(out, limitation.path("payment_required"), "payment");
        flag(out, limitation.path("restricted_writes"), "writes");
        JsonNode pow = limitation.path("min_pow_difficulty");
        if (pow.isNumber()) {
            out.add(pow.asDouble() > 0 ? "pow" : "!pow");
        }
        return out;
    }

    private static void flag(List<String> out, JsonNode value, String name) {
        if (value.isBoolean()) {
            out.add(value.asBoolean() ? name : "!" + name);
        }
    }

    /**
     * Reads a discovery event from any monitor: kind 30166, exactly one {@code d} tag with one non-empty value, at
     * most one of each {@code rtt-*} tag whose value is a non-negative decimal integer, {@code N} values that are
     * non-negative integers; {@code n}, {@code R} and {@code k} are taken as they are, other tags are not read. The
     * signature is not checked here (the relay did, on ingest).
     */
    public static Discovery read(Event e) throws Nip66Exception {
        if (e.kind() != KIND) {
            throw new Nip66Exception("invalid: not a relay discovery event: kind " + e.kind() + ", not " + KIND);
        }
        String d = null;
        Long[] rtt = new Long[3];
        List<String> networks = new ArrayList<>();
        List<Integer> nips = new ArrayList<>();
        List<String> requirements = new ArrayList<>();
        List<String> kinds = new ArrayList<>();
        for (List<String> t : e.tags()) {
            if (t.isEmpty()) {
                continue;
            }
            String name = t.get(0);
            String value = t.size() > 1 ? t.get(1) : null;
            switch (name) {
                case "d" -> {
                    if (d != null) {
                        throw new Nip66Exception("invalid: more than one d tag");
                    }
                    if (value == null || value.isEmpty()) {
                        throw new Nip66Exception("invalid: the d tag names the relay");
                    }
                    d = value;
                }
                case "rtt-open", "rtt-read", "rtt-write" -> {
                    int i = name.equals("rtt-open") ? 0 : name.equals("rtt-read") ? 1 : 2;
                    if (rtt[i] != null) {
                        throw new Nip66Exception("invalid: more than one " + name + " tag");
                    }
                    if (value == null || !MILLIS.matcher(value).matches()) {
                        throw new Nip66Exception("invalid: " + name + " is a non-negative integer of milliseconds");
                    }
                    rtt[i] = Long.parseLong(value);
                }
                case "N" -> {
                    if (value == null || !value.matches("0|[1-9][0-9]{0,8}")) {
                        throw new Nip66Exception("invalid: N is a NIP number");
                    }
                    nips.add(Integer.parseInt(value));
                }
                case "n" -> add(networks, value);
                case "R" -> add(requirements, value);
                case "k" -> add(kinds, value);
                default -> {
                    // other tags (T, t, g, l, ...) are not read
                }
            }
        }
        if (d == null) {
            throw new Nip66Exception("invalid: missing tag d");
        }
        return new Discovery(e, d, opt(rtt[0]), opt(rtt[1]), opt(rtt[2]), networks, nips, requirements, kinds);
    }

    private static void add(List<String> into, String value) {
        if (value != null && !value.isEmpty()) {
            into.add(value);
        }
    }

    private static OptionalLong opt(Long v) {
        return v == null ? OptionalLong.empty() : OptionalLong.of(v);
    }
}
