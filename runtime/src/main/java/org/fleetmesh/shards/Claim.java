package org.fleetmesh.shards;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.FilterSyntaxException;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.nostr.Signature;

/**
 * A shard claim (docs/spec/shards.md §4): an addressable kind 30803 event in which a node states what it holds of a
 * shard at {@code created_at}. Tags, in this order: {@code d} (shard id), {@code filter} (canonical JSON),
 * {@code mode}, {@code count}, {@code fingerprint} (32 hex), {@code root} (64 hex), {@code alt} (NIP-31); content "".
 */
public record Claim(PubKey author, Shard shard, ShardFigures figures, long createdAt, Event event) {
    public static final int KIND = 30803;
    private static final List<String> REQUIRED = List.of("d", "filter", "mode", "count", "fingerprint", "root");

    public Claim {
        Objects.requireNonNull(author, "author");
        Objects.requireNonNull(shard, "shard");
        Objects.requireNonNull(figures, "figures");
        Objects.requireNonNull(event, "event");
    }

    /** The claim event for {@code shard} with {@code figures} true at {@code createdAt}, signed with BIP-340. */
    public static Event sign(Shard shard, ShardFigures figures, long createdAt, byte[] nostrSecret) {
        return Events.sign(nostrSecret, createdAt, KIND, tags(shard, figures), "");
    }

    /**
     * The same with the given BIP-340 auxiliary randomness (32 bytes): a deterministic signature for the spec's
     * vectors. Production claims use {@link #sign(Shard, ShardFigures, long, byte[])}.
     */
    public static Event sign(Shard shard, ShardFigures figures, long createdAt, byte[] nostrSecret, byte[] auxRand) {
        PubKey pubkey = new PubKey(Schnorr.publicKey(nostrSecret));
        List<List<String>> tags = tags(shard, figures);
        EventId id = Events.computeId(pubkey, createdAt, KIND, tags, "");
        Signature sig = new Signature(Schnorr.sign(id.unsafeBytes(), nostrSecret, auxRand));
        return new Event(id, pubkey, createdAt, KIND, tags, "", sig);
    }

    /**
     * The NIP-09 deletion (kind 5) that withdraws every claim of shard {@code id} by the signer: tags
     * {@code ["a", "30803:<pubkey>:<id>"]} and {@code ["k", "30803"]}.
     */
    public static Event withdrawal(String id, long createdAt, byte[] nostrSecret) {
        String pubkey = new PubKey(Schnorr.publicKey(nostrSecret)).hex();
        return Events.sign(nostrSecret, createdAt, 5, List.of(List.of("a", KIND + ":" + pubkey + ":" + id),
                List.of("k", Integer.toString(KIND))), "shard " + id + " is no longer declared");
    }

    /** The tags of a claim, in their order. */
    public static List<List<String>> tags(Shard shard, ShardFigures figures) {
        return List.of(List.of("d", shard.id()), List.of("filter", ShardFilter.canonicalJson(shard.filter())),
                List.of("mode", shard.mode().word()), List.of("count", Long.toString(figures.count())),
                List.of("fingerprint", figures.fingerprintHex()), List.of("root", figures.rootHex()),
                List.of("alt", alt(shard, figures)));
    }

    /** The NIP-31 text a client that does not know kind 30803 shows. */
    static String alt(Shard shard, ShardFigures figures) {
        return "fleetmesh shard claim: " + shard.id() + " (" + shard.mode().word() + "), " + figures.count() + " events";
    }

    /**
     * Reads a claim: kind 30803, a valid id and signature, each of d, filter, mode, count, fingerprint and root present
     * exactly once with one value, well-formed, and the filter in canonical form. Other tags (alt, and any later
     * addition) are not checked.
     */
    public static Claim read(Event e) throws ClaimException {
        if (e.kind() != KIND) {
            throw new ClaimException("not a shard claim: kind " + e.kind() + ", not " + KIND);
        }
        String bad = Events.verify(e);
        if (bad != null) {
            throw new ClaimException(bad);
        }
        Map<String, String> values = new HashMap<>();
        for (List<String> t : e.tags()) {
            if (t.isEmpty() || !REQUIRED.contains(t.get(0))) {
                continue;
            }
            if (t.size() != 2) {
                throw new ClaimException("invalid: the " + t.get(0) + " tag has one value");
            }
            if (values.put(t.get(0), t.get(1)) != null) {
                throw new ClaimException("invalid: more than one " + t.get(0) + " tag");
            }
        }
        List<String> missing = new ArrayList<>();
        for (String name : REQUIRED) {
            if (!values.containsKey(name)) {
                missing.add(name);
            }
        }
        if (!missing.isEmpty()) {
            throw new ClaimException("invalid: missing tag " + String.join(", ", missing));
        }
        String id = values.get("d");
        if (!ShardsSetting.isId(id)) {
            throw new ClaimException("invalid: d is not a shard id (1 to 64 characters of [A-Za-z0-9._:-])");
        }
        String filterJson = values.get("filter");
        org.fleetmesh.nostr.Filter filter;
        try {
            filter = ShardFilter.parse(filterJson);
        } catch (FilterSyntaxException ex) {
            throw new ClaimException("invalid: filter: " + ex.reason());
        }
        if (!ShardFilter.canonicalJson(filter).equals(filterJson)) {
            throw new ClaimException("invalid: filter is not in canonical form");
        }
        Shard.Mode mode = Shard.Mode.of(values.get("mode"));
        if (mode == null) {
            throw new ClaimException("invalid: mode must be \"asserted\" or \"replicated\"");
        }
        String count = values.get("count");
        if (!count.matches("0|[1-9][0-9]{0,17}")) {
            throw new ClaimException("invalid: count is a non-negative decimal integer without leading zeros");
        }
        String fp = values.get("fingerprint");
        if (!Hex.isLowerHex(fp, 32)) {
            throw new ClaimException("invalid: fingerprint is 32 lower-case hex characters");
        }
        String root = values.get("root");
        if (!Hex.isLowerHex(root, 64)) {
            throw new ClaimException("invalid: root is 64 lower-case hex characters");
        }
        ShardFigures figures = new ShardFigures(Long.parseLong(count), HexFormat.of().parseHex(fp),
                HexFormat.of().parseHex(root));
        return new Claim(e.pubkey(), new Shard(id, filter, mode), figures, e.createdAt(), e);
    }

    /** True when this claim and {@code other} are about the same shard (id and canonical filter equal). */
    public boolean sameShard(Shard other) {
        return shard.id().equals(other.id())
                && ShardFilter.canonicalJson(shard.filter()).equals(ShardFilter.canonicalJson(other.filter()));
    }
}
