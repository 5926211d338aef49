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

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The session broke off. {@code unsupported}: before the relay showed it speaks NIP-77 at all. */
    public static final class SyncFailure extends RuntimeException {
        private final boolean unsupported;

        public SyncFailure(boolean unsupported, String message) {
            super(message, null, false, false);
            this.unsupported = unsupported;
        }

        public boolean unsupported() {
            return unsupported;
        }
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
                reasons.merge(reason, n, Long::sum);
            }
        }

        public void skip(long n, String reason) {
            if (n > 0) {
                skipped += n;
                reasons.merge("skipped: " + reason, n, Long::sum);
            }
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
            store.enumerate(filter, now, (createdAt, id) -> b.insert(createdAt, Id.of(id.unsafeBytes())));
        }
        return b.seal();
    }

    /** Runs a reconciliation to its end. @throws SyncFailure when it breaks off */
    public NegInitiator reconcile(String filterJson, Storage items, long frameSizeLimit) {
        NegInitiator r = new NegInitiator("sync-" + UUID.randomUUID().toString().substring(0, 8), filterJson, items,
                frameSizeLimit);
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
                throw new SyncFailure(f.unsupported(), f.reason());
            }
        }
    }

    /**
     * The next message the predicate accepts, skipping the rest (AUTH challenges, stray answers). A silence of
     * the timeout or the end of the connection breaks off: before the relay answered at all, as unsupported.
     */
    private JsonNode await(String what, boolean answered, Predicate<JsonNode> wanted) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
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
                throw new SyncFailure(!answered, prefix + "no " + what + " within " + timeoutSeconds + " s");
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

    /**
     * Requests the {@code needIds} by id and hands every event that was asked for to {@code sink}, in
     * batches (the sink judges them, e.g. through the node's ingest). Events not received count as failed.
     */
    public void fetch(List<Id> needIds, Consumer<List<Event>> sink) {
        MessageParser parser = new MessageParser(new MessageParser.Limits(16, Integer.MAX_VALUE, 100_000, 100_000));
        List<Event> batch = new ArrayList<>();
        long handed = 0;
        for (int from = 0; from < needIds.size(); from += REQ_CHUNK) {
            List<Id> chunk = needIds.subList(from, Math.min(needIds.size(), from + REQ_CHUNK));
            Set<String> wanted = new LinkedHashSet<>();
            ArrayNode ids = JSON.createArrayNode();
            for (Id id : chunk) {
                wanted.add(id.toHex());
                ids.add(id.toHex());
            }
            String subId = "sync-get-" + (from / REQ_CHUNK);
            ObjectNode f = JSON.createObjectNode();
            f.set("ids", ids);
            f.put("limit", chunk.size());
            link.send(NegInitiator.array("REQ", subId).add(f));
            boolean done = false;
            while (!done) {
                JsonNode m;
                try {
                    m = await("events for REQ " + subId, true,
                            n -> NegInitiator.isFor(n, subId) || NegInitiator.verb(n).equals("NOTICE"));
                } catch (SyncFailure a) {
                    tally.fail(wanted.size(), "not received: " + a.getMessage());
                    wanted.clear();
                    if (link.isClosed()) {
                        handed += hand(sink, batch);
                        tally.fail(needIds.size() - from - chunk.size(), "not requested: the connection ended");
                        return;
                    }
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
                        if (!wanted.remove(e.id().hex())) {
                            continue; // not asked for (or sent twice): ignore
                        }
                        batch.add(e);
                        if (batch.size() >= BATCH) {
                            handed += hand(sink, batch);
                        }
                    }
                    case "EOSE", "CLOSED" -> {
                        if (NegInitiator.verb(m).equals("CLOSED")) {
                            progress.accept("relay closed " + subId + ": " + m.path(2).asText(""));
                        }
                        link.send(NegInitiator.array("CLOSE", subId));
                        done = true;
                    }
                    case "NOTICE" -> progress.accept("relay notice: " + Snippet.of(m.path(1).asText(m.toString()), 300));
                    default -> {
                    }
                }
            }
            tally.fail(wanted.size(), "the relay did not send a needed event");
            handed += hand(sink, batch);
            progress.accept("down: " + Math.min(needIds.size(), from + chunk.size()) + "/" + needIds.size()
                    + " requested, " + handed + " received");
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
            for (String json : events) {
                while (pending.size() >= MAX_IN_FLIGHT) {
                    if (!awaitOk(pending)) {
                        return;
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
        while (!pending.isEmpty()) {
            if (!awaitOk(pending)) {
                return;
            }
        }
        progress.accept("up: " + sent + "/" + haveIds.size() + " sent, " + tally.uploaded + " accepted");
    }

    /** Waits for one OK among the pending events; false (all pending counted failed) when none comes. */
    private boolean awaitOk(Map<String, Boolean> pending) {
        JsonNode m;
        try {
            m = await("OK for " + pending.size() + " published event(s)", true,
                    n -> (NegInitiator.verb(n).equals("OK") && pending.containsKey(n.path(1).asText()))
                            || NegInitiator.verb(n).equals("NOTICE"));
        } catch (SyncFailure a) {
            tally.fail(pending.size(), "no OK: " + a.getMessage());
            pending.clear();
            return !link.isClosed();
        }
        if (NegInitiator.verb(m).equals("NOTICE")) {
            progress.accept("relay notice: " + Snippet.of(m.path(1).asText(m.toString()), 300));
            return true;
        }
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
