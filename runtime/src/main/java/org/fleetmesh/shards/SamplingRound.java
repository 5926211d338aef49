package org.fleetmesh.shards;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;

import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.Item;
import org.fleetmesh.negentropy.Storage;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventClass;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One sampling round against one peer (docs/spec/sampling.md): read its kind 30803 claims, and for each that asserts
 * its shard draw {@code k} of this node's own events of the shard older than the claim by the grace, ask the peer for
 * them with an ordinary {@code {"ids":[...]}} REQ, and turn each the peer lacks into {@link Withholding} evidence; once
 * per claim, fetch the claimed set and check it against the claim's figures ({@link ClaimMismatch}). Pure: the peer's
 * relay, this node's events, the clock and the randomness come in.
 */
public final class SamplingRound {
    /** Kinds a relay serves only to an authenticated reader (NIP-04, NIP-59): an anonymous sample cannot ask for them. */
    static final Set<Integer> PRIVATE_KINDS = Set.of(4, 13, 1059);

    /** The peer's relay: each call a fresh, unauthenticated connection that sends one REQ and reads its answer. */
    @FunctionalInterface
    public interface PeerRelay {
        /**
         * Sends {@code message} (a REQ for {@code subscription}) and reads until EOSE, CLOSED, the end of the
         * connection or a timeout, keeping at most {@code maxEvents} events.
         */
        Answer req(String subscription, String message, int maxEvents);
    }

    /**
     * What a peer answered to one REQ.
     *
     * @param events the events it sent for the subscription (as received: not yet verified)
     * @param eose whether it ended with EOSE
     * @param problem why the answer did not end with EOSE (CLOSED and its reason, the connection's end, a timeout,
     *        too many events), or null
     */
    public record Answer(List<Event> events, boolean eose, String problem) {
        public Answer {
            events = List.copyOf(events);
        }
    }

    /** This node's side: its own events. */
    public interface Local {
        /**
         * This node's items of the claim's shard (its filter) with {@code created_at <= latest}, in Negentropy order:
         * the shard's live index when this node declares the same shard, else a bounded store read.
         */
        Storage items(Claim claim, long latest);

        /** Those of {@code ids} this node holds. */
        Map<EventId, Event> events(Collection<EventId> ids);
    }

    /**
     * @param samples events drawn per asserted claim ({@code k})
     * @param grace seconds an event must predate the claim by to be sampled
     * @param checkMax a claim of at most this many events is fetched whole once and checked against its figures; 0:
     *        never
     * @param maxClaims claims read from one peer at most
     * @param evidencePerRound evidence objects one round records at most
     */
    public record Settings(int samples, long grace, int checkMax, int maxClaims, int evidencePerRound) {
        public Settings {
            if (samples < 1 || samples > 1000) {
                throw new IllegalArgumentException("samples per round are 1..1000 (one REQ filter holds them)");
            }
            if (grace < 0 || checkMax < 0 || maxClaims < 1 || evidencePerRound < 1) {
                throw new IllegalArgumentException("grace and check-max are >= 0, max-claims and evidence >= 1");
            }
        }
    }

    /**
     * What a piece of evidence is about and its object.
     *
     * @param type {@link Withholding#TYPE} or {@link ClaimMismatch#TYPE}
     * @param claim the id (hex) of the claim it holds against
     * @param reason {@code withholding: shard <id>, event <id>} or {@code claim mismatch: shard <id>}
     * @param json the evidence object ({@link Withholding#json()} or {@link ClaimMismatch#json()})
     */
    public record Found(String type, String claim, String reason, String json) {
    }

    /**
     * @param claims valid claims of the peer read
     * @param asserted of which assert their shard
     * @param samples events asked for
     * @param missing of which the peer did not return
     * @param checked claims fetched whole and checked against their figures
     * @param found the evidence
     * @param problems what kept the round from a verdict (claims that do not read, answers without EOSE)
     */
    public record Outcome(int claims, int asserted, int samples, int missing, List<String> checked, List<Found> found,
            List<String> problems) {
    }

    private final Settings settings;
    private final Sampler sampler;
    private final Random random;
    private final String observer;

    public SamplingRound(Settings settings, Random random, String observer) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.random = Objects.requireNonNull(random, "random");
        this.sampler = new Sampler(random);
        this.observer = Objects.requireNonNull(observer, "observer");
    }

    /** The Nostr keys a peer's DID lists (resolved offline; a did:peer:4 needs its long form). */
    public static List<PubKey> subjectKeys(String did) throws EvidenceException {
        return EvidenceFields.nostrKeys(did);
    }

    /**
     * Runs the round.
     *
     * @param subject the peer's DID, resolvable offline
     * @param keys its Nostr keys ({@link #subjectKeys})
     * @param checkedBefore claim ids (hex) already fetched whole: not fetched again
     * @param now epoch seconds
     */
    public Outcome run(String subject, List<PubKey> keys, PeerRelay relay, Local local, Predicate<String> checkedBefore,
            long now) {
        List<String> problems = new ArrayList<>();
        List<Found> found = new ArrayList<>();
        List<String> checked = new ArrayList<>();
        List<Claim> claims = claims(keys, relay, problems);
        int asserted = 0, samples = 0, missing = 0;
        for (Claim claim : claims) {
            if (claim.shard().mode() != Shard.Mode.ASSERTED) {
                continue;
            }
            asserted++;
            if (claim.createdAt() > now) {
                // its evidence would not verify (observed before the claim): the peer's clock is ahead of ours
                problems.add("shard " + claim.shard().id() + ": the claim is dated " + (claim.createdAt() - now)
                        + " s ahead of this node's clock");
                continue;
            }
            long latest = claim.createdAt() - settings.grace();
            List<Event> drawn = draw(claim, local, latest, now);
            if (!drawn.isEmpty()) {
                List<EventId> asked = new ArrayList<>(drawn.stream().map(Event::id).toList());
                Collections.shuffle(asked, random);
                String sub = subscription();
                String req = Withholding.request(sub, asked);
                Answer a = relay.req(sub, req, asked.size() * 2);
                if (!a.eose()) {
                    problems.add("shard " + claim.shard().id() + ": the samples got no EOSE (" + a.problem() + ")");
                } else {
                    Set<EventId> answered = answered(a, new HashSet<>(asked));
                    long at = now;
                    samples += asked.size();
                    Set<EventId> deleted = deletedByTheirAuthors(drawn, answered, relay, claim, problems);
                    for (Event e : drawn) {
                        if (answered.contains(e.id()) || deleted.contains(e.id())) {
                            continue;
                        }
                        missing++;
                        if (found.size() < settings.evidencePerRound()) {
                            Withholding w = new Withholding(subject, observer, claim, e, req, answered, true,
                                    settings.grace(), at);
                            found.add(new Found(Withholding.TYPE, claim.event().id().hex(),
                                    "withholding: shard " + claim.shard().id() + ", event " + e.id().hex(), w.json()));
                        }
                    }
                }
            }
            String claimId = claim.event().id().hex();
            if (claim.figures().count() <= settings.checkMax() && !checkedBefore.test(claimId)) {
                List<Item> served = new ArrayList<>();
                String request = fetchWhole(claim, relay, served, problems);
                if (request != null) {
                    checked.add(claimId);
                    if (ClaimMismatch.mismatches(claim, served) && found.size() < settings.evidencePerRound()) {
                        ClaimMismatch m = new ClaimMismatch(subject, observer, claim, request, served, now);
                        found.add(new Found(ClaimMismatch.TYPE, claimId, "claim mismatch: shard " + claim.shard().id(),
                                m.json()));
                    }
                }
            }
        }
        return new Outcome(claims.size(), asserted, samples, missing, checked, found, problems);
    }

    /** The peer's newest valid claim per shard id, signed by one of its keys. */
    private List<Claim> claims(List<PubKey> keys, PeerRelay relay, List<String> problems) {
        if (keys.isEmpty()) {
            problems.add("the peer's DID lists no Nostr key");
            return List.of();
        }
        ArrayNode req = EvidenceFields.JSON.createArrayNode();
        String sub = subscription();
        req.add("REQ").add(sub);
        ObjectNode f = req.addObject();
        f.putArray("kinds").add(Claim.KIND);
        ArrayNode authors = f.putArray("authors");
        keys.forEach(k -> authors.add(k.hex()));
        f.put("limit", settings.maxClaims());
        Answer a = relay.req(sub, req.toString(), settings.maxClaims());
        if (!a.eose()) {
            problems.add("claims: no EOSE (" + a.problem() + ")");
        }
        Map<String, Claim> newest = new LinkedHashMap<>();
        for (Event e : a.events()) {
            Claim c;
            try {
                c = Claim.read(e);
            } catch (ClaimException ex) {
                problems.add("claim " + e.id().hex() + " does not read: " + ex.getMessage());
                continue;
            }
            if (!keys.contains(c.author())) {
                continue; // not the peer's: a relay may serve anything
            }
            Claim had = newest.get(c.shard().id());
            if (had == null || had.createdAt() < c.createdAt()) {
                newest.put(c.shard().id(), c);
            }
        }
        return new ArrayList<>(newest.values());
    }

    /** k of this node's events of the claim's shard at or before {@code latest} that an anonymous REQ may ask for. */
    private List<Event> draw(Claim claim, Local local, long latest, long now) {
        if (latest < 0) {
            return List.of();
        }
        Storage items = local.items(claim, latest);
        List<Item> drawn = sampler.draw(items, latest, settings.samples());
        List<EventId> ids = drawn.stream().map(i -> new EventId(i.id().toBytes())).toList();
        Map<EventId, Event> held = local.events(ids);
        List<Event> out = new ArrayList<>(ids.size());
        for (EventId id : ids) {
            Event e = held.get(id);
            // a replaceable event may be replaced and an expired one gone at the peer, rightly: no evidence in them
            if (e != null && e.eventClass() == EventClass.REGULAR && !PRIVATE_KINDS.contains(e.kind())
                    && (e.expiration() == null || e.expiration() > now) && e.createdAt() <= latest
                    && claim.shard().filter().matches(e)) {
                out.add(e);
            }
        }
        return out;
    }

    /** The ids of authentic events among those asked for in an answer. */
    /**
     * Of the drawn events the peer did not return, those it holds its author's NIP-09 deletion of (a kind 5 signed by
     * the event's author with an {@code e} tag naming it): an honest relay no longer serves them, so their absence is
     * not withholding. Asked of the peer's relay in one more REQ only when something is missing; an answer without
     * EOSE excuses nothing.
     */
    private Set<EventId> deletedByTheirAuthors(List<Event> drawn, Set<EventId> answered, PeerRelay relay, Claim claim,
            List<String> problems) {
        Map<String, Event> missing = new LinkedHashMap<>();
        for (Event e : drawn) {
            if (!answered.contains(e.id())) {
                missing.put(e.id().hex(), e);
            }
        }
        if (missing.isEmpty()) {
            return Set.of();
        }
        ArrayNode req = EvidenceFields.JSON.createArrayNode();
        String sub = subscription();
        req.add("REQ").add(sub);
        ObjectNode f = req.addObject();
        f.putArray("kinds").add(5);
        ArrayNode ids = f.putArray("#e");
        missing.keySet().forEach(ids::add);
        Answer a = relay.req(sub, req.toString(), missing.size() * 4);
        if (!a.eose()) {
            return Set.of();
        }
        Set<EventId> out = new HashSet<>();
        for (Event d : a.events()) {
            if (d.kind() != 5 || Events.verify(d) != null) {
                continue;
            }
            for (List<String> t : d.tags()) {
                Event e = t.size() >= 2 && "e".equals(t.get(0)) ? missing.get(t.get(1)) : null;
                if (e != null && e.pubkey().equals(d.pubkey())) {
                    out.add(e.id());
                }
            }
        }
        if (!out.isEmpty()) {
            problems.add("shard " + claim.shard().id() + ": " + out.size()
                    + " sampled events are deleted there by their authors (NIP-09): not withholding");
        }
        return out;
    }

    private static Set<EventId> answered(Answer a, Set<EventId> asked) {
        Set<EventId> out = new HashSet<>();
        for (Event e : a.events()) {
            if (asked.contains(e.id()) && Events.verify(e) == null) {
                out.add(e.id());
            }
        }
        return out;
    }

    /**
     * Fetches the claim's set as the peer serves it, up to the claim's {@code created_at}, into {@code served}; returns
     * the filters sent (a JSON array), or null when the answer does not prove the set complete. Two REQs: the set
     * (limit check-max + 1), then its oldest second again with a limit one above what that second held; an answer
     * below its limit with nothing new proves nothing older or in that second was left out (the peer's page size is at
     * least the first answer's).
     */
    private String fetchWhole(Claim claim, PeerRelay relay, List<Item> served, List<String> problems) {
        String shard = "shard " + claim.shard().id() + ": the claimed set ";
        long until = claim.shard().filter().until() == null ? claim.createdAt()
                : Math.min(claim.shard().filter().until(), claim.createdAt());
        ObjectNode first = filter(claim, until, settings.checkMax() + 1);
        String sub = subscription();
        Answer a = relay.req(sub, "[\"REQ\"," + quote(sub) + "," + first + "]", settings.checkMax() + 2);
        if (!a.eose()) {
            problems.add(shard + "got no EOSE (" + a.problem() + ")");
            return null;
        }
        Map<EventId, Event> page = matching(claim, until, a.events());
        if (page.size() > settings.checkMax()) {
            return null; // larger than the claim said, or than this node checks
        }
        ArrayNode sent = EvidenceFields.JSON.createArrayNode().add(first);
        if (!page.isEmpty()) {
            long oldest = page.values().stream().mapToLong(Event::createdAt).min().getAsLong();
            long atOldest = page.values().stream().filter(e -> e.createdAt() == oldest).count();
            if (atOldest == page.size()) {
                problems.add(shard + "is all in one second: its completeness cannot be shown by paging");
                return null;
            }
            ObjectNode second = filter(claim, oldest, (int) atOldest + 1);
            String sub2 = subscription();
            Answer b = relay.req(sub2, "[\"REQ\"," + quote(sub2) + "," + second + "]", (int) atOldest + 2);
            if (!b.eose()) {
                problems.add(shard + "got no EOSE (" + b.problem() + ")");
                return null;
            }
            Map<EventId, Event> tail = matching(claim, oldest, b.events());
            if (tail.size() > atOldest || !page.keySet().containsAll(tail.keySet())) {
                return null; // more than the first answer held: not complete, so no verdict
            }
            sent.add(second);
        }
        for (Event e : page.values()) {
            served.add(new Item(e.createdAt(), Id.of(e.id().toBytes())));
        }
        Collections.sort(served);
        return sent.toString();
    }

    /** Authentic events of an answer that match the claim's filter at or before {@code until}, by id. */
    private static Map<EventId, Event> matching(Claim claim, long until, List<Event> events) {
        Map<EventId, Event> out = new HashMap<>();
        for (Event e : events) {
            if (e.createdAt() <= until && claim.shard().filter().matches(e) && Events.verify(e) == null) {
                out.put(e.id(), e);
            }
        }
        return out;
    }

    private static ObjectNode filter(Claim claim, long until, int limit) {
        ObjectNode f;
        try {
            f = (ObjectNode) EvidenceFields.JSON.readTree(ShardFilter.canonicalJson(claim.shard().filter()));
        } catch (Exception e) {
            throw new IllegalStateException("a canonical filter is JSON", e);
        }
        f.put("until", until);
        f.put("limit", limit);
        return f;
    }

    /** A subscription id like a client's: eight random base-36 characters. */
    private String subscription() {
        StringBuilder sb = new StringBuilder(8);
        for (int i = 0; i < 8; i++) {
            sb.append(Character.forDigit(random.nextInt(36), 36));
        }
        return sb.toString();
    }

    private static String quote(String s) {
        return "\"" + s + "\"";
    }
}
