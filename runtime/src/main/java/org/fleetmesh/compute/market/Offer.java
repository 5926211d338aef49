package org.fleetmesh.compute.market;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;

/**
 * A compute offer, kind 30810 (docs/spec/compute.md, "Offer"): addressable by {@code d} (the offer id), signed by the
 * worker node's Nostr key, naming its DID, the engines it runs, its price (integer msat per 1000 fuel, and a minimum
 * per job), its limits and the rails it takes. Independent of relay standing.
 */
public record Offer(String id, String did, List<String> runtimes, long pricePerKfuel, long minPrice, long maxFuel,
        int maxMemoryPages, long maxModuleBytes, List<String> rails, String description) {
    public static final int KIND = 30810;

    public Offer {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(did, "did");
        runtimes = List.copyOf(runtimes);
        rails = List.copyOf(rails);
        description = description == null ? "" : description;
        if (pricePerKfuel < 0 || minPrice < 0 || maxFuel < 1 || maxMemoryPages < 1 || maxModuleBytes < 1) {
            throw new IllegalArgumentException("prices are not negative; limits are positive");
        }
        if (runtimes.isEmpty()) {
            throw new IllegalArgumentException("an offer names at least one runtime");
        }
    }

    /** Whether this offer is free: no invoice, the key follows the sealed result. */
    public boolean free() {
        return pricePerKfuel == 0 && minPrice == 0;
    }

    /** The price of a job that used {@code fuel}: max(min_price, ceil(fuel × price_per_kfuel / 1000)), msat. */
    public long price(long fuel) {
        return price(pricePerKfuel, minPrice, fuel);
    }

    public static long price(long pricePerKfuel, long minPrice, long fuel) {
        long p;
        try {
            long units = Math.multiplyExact(fuel, pricePerKfuel);
            p = units / 1000 + (units % 1000 == 0 ? 0 : 1);
        } catch (ArithmeticException e) {
            p = Long.MAX_VALUE;
        }
        return Math.max(minPrice, p);
    }

    public List<List<String>> tags() {
        List<List<String>> t = new ArrayList<>();
        t.add(List.of("d", id));
        t.add(List.of("did", did));
        for (String r : runtimes) {
            t.add(List.of("runtime", r));
        }
        t.add(List.of("price_per_kfuel", Long.toString(pricePerKfuel)));
        t.add(List.of("min_price", Long.toString(minPrice)));
        t.add(List.of("max_fuel", Long.toString(maxFuel)));
        t.add(List.of("max_memory_pages", Integer.toString(maxMemoryPages)));
        t.add(List.of("max_module_bytes", Long.toString(maxModuleBytes)));
        for (String r : rails) {
            t.add(List.of("rail", r));
        }
        t.add(List.of("alt", "fleetmesh compute offer (compute/1.0)"));
        return t;
    }

    public Event sign(byte[] nostrSecret, long createdAt) {
        return Events.sign(nostrSecret, createdAt, KIND, tags(), description);
    }

    /** Reads an offer event (its signature checked); says which tag is wrong. */
    public static Offer parse(Event e) throws MarketProtocolException {
        if (e.kind() != KIND) {
            throw new MarketProtocolException("an offer is kind " + KIND + ", not " + e.kind());
        }
        String bad = Events.verify(e);
        if (bad != null) {
            throw new MarketProtocolException("offer: " + bad);
        }
        List<String> runtimes = new ArrayList<>();
        List<String> rails = new ArrayList<>();
        for (List<String> tag : e.tags()) {
            if (tag.size() >= 2 && tag.get(0).equals("runtime")) {
                runtimes.add(tag.get(1));
            } else if (tag.size() >= 2 && tag.get(0).equals("rail")) {
                rails.add(tag.get(1));
            }
        }
        try {
            return new Offer(required(e, "d"), required(e, "did"), runtimes, number(e, "price_per_kfuel"),
                    number(e, "min_price"), number(e, "max_fuel"), Math.toIntExact(number(e, "max_memory_pages")),
                    number(e, "max_module_bytes"), rails, e.content());
        } catch (IllegalArgumentException | ArithmeticException ex) {
            throw new MarketProtocolException("offer: " + ex.getMessage());
        }
    }

    /** The offer as the agent API lists it. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("worker", did);
        m.put("runtimes", runtimes);
        m.put("price_per_kfuel", pricePerKfuel);
        m.put("min_price", minPrice);
        m.put("max_fuel", maxFuel);
        m.put("max_memory_pages", maxMemoryPages);
        m.put("max_module_bytes", maxModuleBytes);
        m.put("rails", rails);
        m.put("description", description);
        return m;
    }

    static String required(Event e, String name) throws MarketProtocolException {
        String v = single(e, name);
        if (v == null || v.isEmpty()) {
            throw new MarketProtocolException("missing tag \"" + name + "\"");
        }
        return v;
    }

    /**
     * The value of the one tag named {@code name}, or null when there is none; a second tag of the name is refused, so
     * that no reader can take another value from a signed record than the next one does.
     */
    static String single(Event e, String name) throws MarketProtocolException {
        String v = null;
        for (List<String> t : e.tags()) {
            if (t.size() >= 2 && t.get(0).equals(name)) {
                if (v != null) {
                    throw new MarketProtocolException("duplicate tag \"" + name + "\"");
                }
                v = t.get(1);
            }
        }
        return v;
    }

    static long number(Event e, String name) throws MarketProtocolException {
        String v = required(e, name);
        if (!v.matches("0|[1-9][0-9]{0,18}")) {
            throw new MarketProtocolException("tag \"" + name + "\": a non-negative decimal integer, not " + v);
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException ex) {
            throw new MarketProtocolException("tag \"" + name + "\": out of range");
        }
    }
}
