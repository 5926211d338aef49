package org.fleetmesh.nostr.nip66;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;

/**
 * A NIP-66 relay monitor announcement (kind 10166, replaceable; docs/spec/monitoring.md): how often the monitor
 * publishes, what it checks and with which timeouts. Tags this node writes, in this order: {@code frequency}
 * (seconds), one {@code timeout} per check as {@code ["timeout", <ms>, <check>]} (index 1 the milliseconds, index 2
 * the check, as NIP-66's text says; its example has the two the other way round), one {@code c} per check; content "".
 *
 * @param timeouts milliseconds per check; the key {@code ""} is a timeout for every check (no index 2)
 */
public record Announcement(Event event, long frequency, Map<String, Long> timeouts, List<String> checks) {
    public static final int KIND = 10166;
    /** The checks this node runs, in NIP-66's lower-case words. */
    public static final List<String> CHECKS = List.of("open", "read", "write", "nip11");

    public Announcement {
        Objects.requireNonNull(event, "event");
        timeouts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(timeouts));
        checks = List.copyOf(checks);
    }

    /** The announcement of a monitor that publishes every {@code frequency} and runs the checks of {@code timeouts}. */
    public static Event sign(Duration frequency, Map<String, Duration> timeouts, long createdAt, byte[] nostrSecret) {
        return Events.sign(nostrSecret, createdAt, KIND, tags(frequency, timeouts), "");
    }

    /**
     * NIP-66: "Monitors SHOULD also publish a kind 0 profile and a kind 10002 relay selections event." The profile:
     * kind 0, content {@code {"name": <name>, "about": <about>}} (NIP-01), no tags.
     */
    public static Event profile(String name, String about, long createdAt, byte[] nostrSecret) {
        com.fasterxml.jackson.databind.node.ObjectNode o = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                .objectNode();
        o.put("name", name);
        o.put("about", about);
        return Events.sign(nostrSecret, createdAt, 0, List.of(), o.toString());
    }

    /**
     * The relay selections (NIP-65, kind 10002): one {@code ["r", <url>]} per relay this monitor publishes to (read and
     * write), content "".
     */
    public static Event relayList(List<String> relays, long createdAt, byte[] nostrSecret) {
        List<List<String>> tags = new ArrayList<>();
        relays.forEach(url -> tags.add(List.of("r", url)));
        return Events.sign(nostrSecret, createdAt, 10002, tags, "");
    }

    /** The tags, in their order; the checks are the keys of {@code timeouts}, in its iteration order. */
    public static List<List<String>> tags(Duration frequency, Map<String, Duration> timeouts) {
        if (frequency.getSeconds() < 1) {
            throw new IllegalArgumentException("a monitor's frequency is at least one second, got " + frequency);
        }
        List<List<String>> tags = new ArrayList<>();
        tags.add(List.of("frequency", Long.toString(frequency.getSeconds())));
        timeouts.forEach((check, t) -> tags.add(List.of("timeout", Long.toString(t.toMillis()), check)));
        timeouts.keySet().forEach(check -> tags.add(List.of("c", check)));
        return tags;
    }

    /**
     * Reads an announcement: kind 10166, exactly one {@code frequency} tag with a positive decimal integer, each
     * {@code timeout} with a non-negative decimal integer at index 1 (a check name at index 2 is optional), {@code c}
     * values as they are. Signature not checked here.
     */
    public static Announcement read(Event e) throws Nip66Exception {
        if (e.kind() != KIND) {
            throw new Nip66Exception("invalid: not a relay monitor announcement: kind " + e.kind() + ", not " + KIND);
        }
        Long frequency = null;
        Map<String, Long> timeouts = new LinkedHashMap<>();
        List<String> checks = new ArrayList<>();
        for (List<String> t : e.tags()) {
            if (t.isEmpty()) {
                continue;
            }
            String value = t.size() > 1 ? t.get(1) : null;
            switch (t.get(0)) {
                case "frequency" -> {
                    if (frequency != null) {
                        throw new Nip66Exception("invalid: more than one frequency tag");
                    }
                    if (value == null || !value.matches("[1-9][0-9]{0,17}")) {
                        throw new Nip66Exception("invalid: frequency is a positive integer of seconds");
                    }
                    frequency = Long.parseLong(value);
                }
                case "timeout" -> {
                    if (value == null || !value.matches("0|[1-9][0-9]{0,17}")) {
                        throw new Nip66Exception("invalid: a timeout's index 1 is a non-negative integer of milliseconds");
                    }
                    timeouts.put(t.size() > 2 ? t.get(2) : "", Long.parseLong(value));
                }
                case "c" -> {
                    if (value != null && !value.isEmpty()) {
                        checks.add(value);
                    }
                }
                default -> {
                    // g and later additions are not read
                }
            }
        }
        if (frequency == null) {
            throw new Nip66Exception("invalid: missing tag frequency");
        }
        return new Announcement(e, frequency, timeouts, checks);
    }
}
