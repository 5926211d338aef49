package org.fleetmesh.negentropy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.nostr.Snippet;
import org.fleetmesh.relay.client.RelayLink;
import org.fleetmesh.spi.storage.EventStore;

/**
 * A NIP-77 client session with one relay over a {@link RelayLink}: {@link #reconcile} finds the difference
 * between a local set and the relay's, {@link #fetch} gets what is missing here (REQ by id, checked, handed on
 * in batches), {@link #push} publishes what is missing there (EVENT, counting OK answers). What the caller does
 * with fetched events (store them, put them through ingest) is its own business.
 */
public final class RelaySync {
    /** Ids per REQ: within a relay's usual default limit (500) and its 1000 filter values. */
    public static final int REQ_CHUNK = 500;
    /** Published events awaiting their OK. */
    public static final int MAX_IN_FLIGHT = 100;
    /** Events handed on at once. */
    public static final int BATCH = 500;
    /**
     * Requests (a REQ chunk, or a wait for OKs) in a row that may go unanswered for the whole timeout before the
     * session stops: a relay that answers nothing would otherwise hold it for one timeout per chunk of ids.
     */
    public static final int MAX_SILENT_REQUESTS = 3;
    /**
     * Timeouts one chunk of {@link #REQ_CHUNK} ids may take in all, however often progress renews its wait: a relay
     * that drips one asked-for event (or one OK) just inside each timeout would otherwise stretch a chunk to 500
     * timeouts. A chunk that runs out counts as unanswered.
     */
    public static final int CHUNK_TIMEOUTS = 4;
    /** Distinct refusal reasons kept apart in a {@link Tally}; the rest are counted under one. */
    static final int MAX_REASONS = 100;

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The session broke off. {@code unsupported}: before the relay showed it speaks NIP-77 at all.
     * {@code exceeded}: the relay's answers went past a bound ({@link NegInitiator.Limits}), and nothing was moved.
     */
    public static final class SyncFailure extends RuntimeException {
        private final boolean unsupported;
        private final boolean exceeded;

        public SyncFailure(boolean unsupported, String message) {
            this(unsupported, message, false);
        }

        public SyncFailure(boolean unsupported, String message, boolean exceeded) {
            super(message, null, false, false);
            this.unsupported = unsupported;
            this.exceeded = exceeded;
        }

        public boolean unsupported() {
            return unsupported;
        }

        public boolean exceeded() {
            return exceeded;
        }
    }

    /** Judges a fetched event that was asked for ({@code needIndex} into the need list): null takes it, else why not. */
    @FunctionalInterface
    public interface Admission {
        Admission ALL = (needIndex, e) -> null;

        String refusal(int needIndex, Event e);
    }

    /**
     * The events a reconciliation over {@code filter} may bring: those matching the filter (ids, authors, kinds,
     * since/until, tags: a relay chose the ids, so it could slip in anything) whose (created_at, id) lies in the
     * range the relay announced the id in.
     */
    public static Admission admission(Filter filter, NegInitiator reconciled) {
        return (needIndex, e) -> {
            String field = mismatch(filter, e);
            if (field != null) {
                return "from relay: does not match the filter (" + field + ")";
            }
            if (!reconciled.inAnnouncedRange(needIndex, e.createdAt(), Id.of(e.id().unsafeBytes()))) {
                return "from relay: created_at outside the range the relay announced for the id";
            }
            return null;
        };
    }

    /** The first filter field {@code e} fails ({@code "kinds"}, {@code "#t"}, ...), or null when it matches. */
    public static String mismatch(Filter f, Event e) {
        if (f.ids() != null && !f.ids().contains(e.id())) {
            return "ids";
        }
        if (f.authors() != null && !f.authors().contains(e.pubkey())) {
            return "authors";
        }
        if (f.kinds() != null && !f.kinds().contains(e.kind())) {
            return "kinds";
        }
        if (f.since() != null && e.createdAt() < f.since()) {
            return "since";
        }
        if (f.until() != null && e.createdAt() > f.until()) {
            return "until";
        }
        for (Map.Entry<String, Set<String>> want : f.tags().entrySet()) {
            Filter one = new Filter(null, null, null, Map.of(want.getKey(), want.getValue()), null, null, null);
            if (!one.matches(e)) {
                return "#" + want.getKey();
            }
        }
        return f.matches(e) ? null : "filter";
    }

    /** What did not move, and why: counts per reason. */
    public static final class Tally {
        private long uploaded;
        private long skipped;
        private long failed;
        private final TreeMap<String, Long> reasons = new TreeMap<>();

        public void fail(long n, String reason) {
            if (n > 0) {
                failed += n;
                count(reason, n);
            }
        }

        public void skip(long n, String reason) {
            if (n > 0) {
                skipped += n;
                count("skipped: " + reason, n);
            }
        }

        /** Reasons may quote the relay: each is cut short, and past {@link #MAX_REASONS} they are lumped together. */
        private void count(String reason, long n) {
            String r = Snippet.of(reason, 300);
            if (reasons.size() >= MAX_REASONS && !reasons.containsKey(r)) {
                r = "other reasons";
            }
            reasons.merge(r, n, Long::sum);
        }

        public long uploaded() {
            return uploaded;
        }

        public long skipped() {
            return skipped;
        }

        public long failed() {
            return failed;
        }

        public Map<String, Long> reasons() {
            return reasons;
        }
    }

    private final RelayLink link;
    private final long timeoutSeconds;
    private final Consumer<String> progress;
    private final Tally tally = new Tally();
    private long rounds;
    /** Waits for OK in a row that ran out. */
    private int silentWaits;

    /**
     * @param timeoutSeconds the longest silence from the relay while an answer is due
     * @param progress one line per step, for a human
     */
    public RelaySync(RelayLink link, long timeoutSeconds, Consumer<String> progress) {
        this.link = link;
        this.timeoutSeconds = timeoutSeconds;
        this.progress = progress;
    }

    public Tally tally() {
        return tally;
    }

    /** NEG-MSG rounds of the last reconciliation, also when it broke off. */
    public long rounds() {
        return rounds;
    }

    /** The (created_at, id) items of the stored events matching {@code filter}: this side of a reconciliation. */
    public static SortedVector localItems(EventStore store, Filter filter, long now) {
        SortedVector.Builder b = SortedVector.builder();
        if (!filter.matchesNothingStored()) {
            store.enumerate(filter, now, (createdAt, id) -> b.insert(createdAt, id.unsafeBytes()));
        }
        return b.seal();
    }

    /** Runs a reconciliation to its end, bounded by {@link NegInitiator.Limits#forLocalItems}. */
    public NegInitiator reconcile(String filterJson, Storage items, long frameSizeLimit) {
        return reconcile(filterJson, items, frameSizeLimit, NegInitiator.Limits.forLocalItems(items.size()));
    }

    /**
     * Runs a reconciliation to its end.
     *
     * @throws SyncFailure when it breaks off, {@link SyncFailure#exceeded()} when the relay's answers pass {@code limits}
     */
    public NegInitiator reconcile(String filterJson, Storage items, long frameSizeLimit, NegInitiator.Limits limits) {
        NegInitiator r = new NegInitiator("sync-" + UUID.randomUUID().toString().substring(0, 8), filterJson, items,
                frameSizeLimit, limits);
        link.send(r.open());
        while (true) {
            JsonNode m = await(r.answered() ? "NEG-MSG" : "answer to NEG-OPEN", r.answered(), r::concerns);
            NegInitiator.Step step = r.receive(m);
            rounds = r.rounds();
            if (step instanceof NegInitiator.Reply reply) {
                progress.accept("round " + r.rounds() + ": have " + r.haveIds().size() + ", need " + r.needIds().size()
                        + " so far");
                link.send(reply.message());
            } else if (step instanceof NegInitiator.Done done) {
                progress.accept("round " + r.rounds() + ": have " + r.haveIds().size() + ", need " + r.needIds().size()
                        + " so far");
                link.send(done.close());
                return r;
            } else if (step instanceof NegInitiator.Failed f) {
                if (f.close() != null) {
                    link.send(f.close());
                }
                throw new SyncFailure(f.unsupported(), f.reason(), f.exceeded());
            }
        }
    }

    /**
     * The next message the predicate accepts, skipping the rest (AUTH challenges, stray answers). A silence of
     * the timeout or the end of the connection breaks off: before the relay answered at all, as unsupported.
     */
    private JsonNode await(String what, boolean answered, Predicate<JsonNode> wanted) {
        JsonNode m = awaitUntil(deadline(), what, answered, wanted);
        if (m == null) {
            String prefix = answered ? "" : "the relay does not speak NIP-77 (or refused it): ";
            throw new SyncFailure(!answered, prefix + "no " + what + " within " + timeoutSeconds + " s");
        }
        return m;
    }

    /** A timeout from now, as a {@link System#nanoTime()} deadline. */
    private long deadline() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    }

    /**
     * The next message the predicate accepts before {@code deadline} (nanoTime), skipping the rest; null once the
     * deadline has passed. Skipped messages do not move the deadline. @throws SyncFailure when the connection ends
     */
    private JsonNode awaitUntil(long deadline, String what, boolean answered, Predicate<JsonNode> wanted) {
        String prefix = answered ? "" : "the relay does not speak NIP-77 (or refused it): ";
        while (true) {
            long left = deadline - System.nanoTime();
            RelayLink.Incoming in;
            try {
                in = left <= 0 ? null : link.next(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SyncFailure(false, "interrupted");
            }
            if (in == null) {
                return null;
            }
            if (in instanceof RelayLink.Closed c) {
                throw new SyncFailure(!answered, prefix + c.why() + " while waiting for " + what);
            }
            if (in instanceof RelayLink.Message msg && wanted.test(msg.node())) {
                return msg.node();
            }
        }
    }

    // ---------------------------------------------------------------- down: REQ by id

    /** {@link #fetch(List, Admission, Consumer)} taking every event that was asked for. */
    public void fetch(List<Id> needIds, Consumer<List<Event>> sink) {
        fetch(needIds, Admission.ALL, sink);
    }

    /**
     * Requests the {@code needIds} by id, {@link #REQ_CHUNK} at a time, and hands every event that was asked for
     * and that {@code admit} takes to {@code sink}, in batches (the sink judges them further, e.g. through the
     * node's ingest). Events not received, or refused, count as failed.
     *
     * <p>Each chunk has the timeout to finish; only progress (an event that was asked for) starts it afresh, other
     * messages (NOTICE, events not asked for) do not. A chunk that runs out is closed (CLOSE) and its missing
     * events counted; after {@link #MAX_SILENT_REQUESTS} such chunks in a row the fetch stops.
     *
     * @throws SyncFailure when the relay left {@link #MAX_SILENT_REQUESTS} chunks in a row unfinished
     */
    public void fetch(List<Id> needIds, Admission admit, Consumer<List<Event>> sink) {
        MessageParser parser = new MessageParser(new MessageParser.Limits(16, Integer.MAX_VALUE, 100_000, 100_000));
        List<Event> batch = new ArrayList<>();
        long handed = 0;
        int silent = 0;
        for (int from = 0; from < needIds.size(); from += REQ_CHUNK) {
            List<Id> chunk = needIds.subList(from, Math.min(needIds.size(), from + REQ_CHUNK));
            Map<String, Integer> wanted = new LinkedHashMap<>();
            ArrayNode ids = JSON.createArrayNode();
            for (int i = 0; i < chunk.size(); i++) {
                String hex = chunk.get(i).toHex();
                wanted.put(hex, from + i);
                ids.add(hex);
            }
            String subId = "sync-get-" + (from / REQ_CHUNK);
            ObjectNode f = JSON.createObjectNode();
            f.set("ids", ids);
            f.put("limit", chunk.size());
            link.send(NegInitiator.array("REQ", subId).add(f));
            String what = "events for REQ " + subId;
            long ceiling = System.nanoTime() + CHUNK_TIMEOUTS * TimeUnit.SECONDS.toNanos(timeoutSeconds);
            long deadline = deadline();
            boolean timedOut = false;
            boolean ended = false;
            while (!ended && !wanted.isEmpty()) {
                JsonNode m;
                try {
                    m = awaitUntil(Math.min(deadline, ceiling), what, true,
                            n -> NegInitiator.isFor(n, subId) || NegInitiator.verb(n).equals("NOTICE"));
                } catch (SyncFailure a) { // the connection ended
                    tally.fail(wanted.size(), "not received: " + a.getMessage());
                    handed += hand(sink, batch);
                    tally.fail(needIds.size() - from - chunk.size(), "not requested: the connection ended");
                    return;
                }
                if (m == null) {
                    tally.fail(wanted.size(), deadline - ceiling > 0
                            ? "not received: " + what + " not all in " + CHUNK_TIMEOUTS * timeoutSeconds + " s"
                            : "not received: no " + what + " within " + timeoutSeconds + " s");
                    wanted.clear();
                    timedOut = true;
                    break;
                }
                switch (NegInitiator.verb(m)) {
                    case "EVENT" -> {
                        Event e;
                        try {
                            e = parser.parseEvent(m.path(2).toString());
                        } catch (ProtocolException ex) {
                            tally.fail(1, "from relay: " + ex.getMessage());
                            continue;
                        }
                        Integer index = wanted.remove(e.id().hex());
                        if (index == null) {
                            continue; // not asked for (or sent twice): ignore
                        }
                        deadline = deadline(); // progress
                        String refusal = admit.refusal(index, e);
                        if (refusal != null) {
                            tally.fail(1, refusal);
                            continue;
                        }
                        batch.add(e);
                        if (batch.size() >= BATCH) {
                            handed += hand(sink, batch);
                        }
                    }
                    case "EOSE", "CLOSED" -> {
                        if (NegInitiator.verb(m).equals("CLOSED")) {
                            progress.accept("relay closed " + subId + ": " + Snippet.of(m.path(2).asText(""), 300));
                        }
                        ended = true;
                    }
                    case "NOTICE" -> progress.accept("relay notice: " + Snippet.of(m.path(1).asText(m.toString()), 300));
                    default -> {
                    }
                }
            }
            // ended by EOSE, by every event arriving, or by the deadline: the subscription is done with either way
            link.send(NegInitiator.array("CLOSE", subId));
            tally.fail(wanted.size(), "the relay did not send a needed event");
            handed += hand(sink, batch);
            int requested = Math.min(needIds.size(), from + chunk.size());
            progress.accept("down: " + requested + "/" + needIds.size() + " requested, " + handed + " received");
            silent = timedOut ? silent + 1 : 0;
            if (silent >= MAX_SILENT_REQUESTS && requested < needIds.size()) {
                tally.fail(needIds.size() - requested, "not requested: the relay stopped answering");
                throw new SyncFailure(false, "the relay left " + silent + " requests in a row unanswered within "
                        + timeoutSeconds + " s (or a chunk's " + CHUNK_TIMEOUTS * timeoutSeconds + " s): stopped fetching after "
                        + requested + " of " + needIds.size() + " ids");
            }
        }
        hand(sink, batch);
    }

    private static int hand(Consumer<List<Event>> sink, List<Event> batch) {
        int n = batch.size();
        if (n > 0) {
            sink.accept(List.copyOf(batch));
            batch.clear();
        }
        return n;
    }

    // ---------------------------------------------------------------- up: EVENT, counting OKs

    /** Publishes the stored events with the {@code haveIds}, at most {@link #MAX_IN_FLIGHT} awaiting their OK. */
    public void push(EventStore store, List<Id> haveIds, long now) {
        Map<String, Boolean> pending = new LinkedHashMap<>();
        long sent = 0;
        silentWaits = 0;
        for (int from = 0; from < haveIds.size(); from += REQ_CHUNK) {
            List<Id> chunk = haveIds.subList(from, Math.min(haveIds.size(), from + REQ_CHUNK));
            Set<EventId> ids = new LinkedHashSet<>();
            chunk.forEach(id -> ids.add(new EventId(id.toBytes())));
            List<String> events = new ArrayList<>(chunk.size());
            store.query(new Filter(ids, null, null, Map.of(), null, null, null), now, (id, json) -> {
                events.add(json);
                return true;
            });
            // gone since the reconciliation (expired, deleted): nothing to send
            tally.skip(chunk.size() - events.size(), "no longer in the local store");
            long ceiling = System.nanoTime() + CHUNK_TIMEOUTS * TimeUnit.SECONDS.toNanos(timeoutSeconds);
            for (String json : events) {
                while (pending.size() >= MAX_IN_FLIGHT) {
                    if (!awaitOk(pending, ceiling)) {
                        return;
                    }
                    if (silentWaits >= MAX_SILENT_REQUESTS) {
                        long left = haveIds.size() - sent;
                        tally.fail(left, "not sent: the relay stopped answering");
                        throw new SyncFailure(false, "the relay left " + silentWaits + " waits for OK in a row unanswered"
                                + " within " + timeoutSeconds + " s (or a chunk's " + CHUNK_TIMEOUTS * timeoutSeconds
                                + " s): stopped publishing after " + sent + " of "
                                + haveIds.size() + " events");
                    }
                }
                JsonNode event = tree(json);
                pending.put(event.path("id").asText(), Boolean.TRUE);
                link.send(NegInitiator.array("EVENT").add(event));
                sent++;
                if (sent % 1000 == 0) {
                    progress.accept("up: " + sent + "/" + haveIds.size() + " sent, " + tally.uploaded + " accepted");
                }
            }
        }
        long ceiling = System.nanoTime() + CHUNK_TIMEOUTS * TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (!pending.isEmpty()) {
            if (!awaitOk(pending, ceiling)) {
                return;
            }
        }
        progress.accept("up: " + sent + "/" + haveIds.size() + " sent, " + tally.uploaded + " accepted");
    }

    /**
     * Waits for one OK among the pending events, within the timeout and before {@code ceiling} (the chunk's, as
     * nanoTime; NOTICEs are shown but do not extend it); when none comes all pending count as failed, and false
     * when the connection ended.
     */
    private boolean awaitOk(Map<String, Boolean> pending, long ceiling) {
        String what = "OK for " + pending.size() + " published event(s)";
        long deadline = Math.min(deadline(), ceiling);
        JsonNode m;
        while (true) {
            try {
                m = awaitUntil(deadline, what, true,
                        n -> (NegInitiator.verb(n).equals("OK") && pending.containsKey(n.path(1).asText()))
                                || NegInitiator.verb(n).equals("NOTICE"));
            } catch (SyncFailure a) {
                tally.fail(pending.size(), "no OK: " + a.getMessage());
                pending.clear();
                return false;
            }
            if (m == null) {
                tally.fail(pending.size(), "no OK: no " + what + " within " + timeoutSeconds + " s");
                pending.clear();
                silentWaits++;
                return true;
            }
            if (!NegInitiator.verb(m).equals("NOTICE")) {
                break;
            }
            progress.accept("relay notice: " + Snippet.of(m.path(1).asText(m.toString()), 300));
        }
        silentWaits = 0;
        pending.remove(m.path(1).asText());
        if (m.path(2).asBoolean(false)) {
            tally.uploaded++;
        } else {
            tally.fail(1, "relay: " + m.path(3).asText(""));
        }
        return true;
    }

    private static JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (Exception e) {
            throw new IllegalStateException("unreadable JSON: " + e.getMessage());
        }
    }
}
