package org.fleetmesh.meshnode.sync;

import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.Negentropy;
import org.fleetmesh.negentropy.NegentropyException;
import org.fleetmesh.negentropy.SortedVector;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.SaveOutcome;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code meshnode sync <ws-url> [--filter JSON] [--dir down|up|both] [--frame-size N] [--timeout S]}:
 * a NIP-77 (negentropy) client that reconciles the local store with a relay, then moves only the
 * difference: REQ by id for what is missing here, EVENT for what is missing there.
 *
 * <p>Exit codes: 0 success, 1 a transfer failed (or the reconciliation broke off), 2 usage error,
 * 3 the relay does not speak NIP-77 or refused it.
 */
public final class SyncCommand {
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;
    public static final int NO_NIP77 = 3;

    /** Ids per REQ: within the relay's default limit (500) and its 1000 filter values. */
    static final int REQ_CHUNK = 500;
    static final int MAX_IN_FLIGHT = 100;
    static final int SAVE_BATCH = 500;
    static final long DEFAULT_FRAME_SIZE = 60_000;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();

    private final PrintStream err = System.err;
    private final PrintStream out = System.out;

    private URI url;
    private String filterJson = "{}";
    private Filter filter = Filter.ALL;
    private boolean down = true;
    private boolean up = true;
    private long frameSize = DEFAULT_FRAME_SIZE;
    private long timeoutSeconds = 30;

    // results
    private long have;
    private long need;
    private long rounds;
    private long downloaded;
    private long uploaded;
    private long skipped;
    private long failed;
    private final TreeMap<String, Long> reasons = new TreeMap<>();

    private SyncCommand() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /**
     * Runs the command. {@code args} may start with the word {@code sync} (as the CLI passes its
     * whole argument list) or directly with the URL. Returns the exit code.
     */
    public static int run(String[] args) {
        List<String> a = new ArrayList<>(List.of(args));
        if (!a.isEmpty() && a.get(0).equals("sync")) {
            a.remove(0);
        }
        if (a.contains("-h") || a.contains("--help") || a.contains("help") && a.size() == 1) {
            usage(System.out);
            return OK;
        }
        SyncCommand cmd = new SyncCommand();
        try {
            cmd.parse(a);
        } catch (UsageException e) {
            System.err.println("meshnode sync: " + e.getMessage());
            usage(System.err);
            return USAGE;
        }
        return cmd.execute();
    }

    public static void usage(PrintStream out) {
        out.println("""
                usage: meshnode sync <ws[s]://relay-url> [--filter JSON] [--dir down|up|both] [--frame-size N] [--timeout S]
                  Reconciles the local store (FLEETMESH_DATA_DIR, or the QUARKUS_DATASOURCE_* database) with a relay
                  over NIP-77 (negentropy), then moves only the difference:
                    --dir down   fetch the events the relay has and this store lacks (REQ by id, verified, stored)
                    --dir up     publish the events this store has and the relay lacks (EVENT, counting OK answers)
                    --dir both   both (default)
                  --filter JSON      which events to reconcile (default {} = all)
                  --frame-size N     largest negentropy message this side sends, in bytes (default 60000; 0 = unlimited,
                                     else at least 4096)
                  --timeout S        seconds to wait for any answer from the relay (default 30)
                  Resumable: there is no sync state besides the two stores, so running the command again reconciles
                  afresh and moves only what is still missing; a run that moved everything is followed by have 0, need 0.
                  stdout: one JSON summary {"have","need","rounds","downloaded","uploaded","failed","seconds"};
                  progress on stderr.
                  exit: 0 done, 1 some transfer failed (or the reconciliation broke off), 2 usage error,
                        3 the relay does not speak NIP-77 (or refused it)""");
    }

    private void parse(List<String> args) {
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            switch (arg) {
                case "--filter" -> filterJson = value(args, ++i, arg);
                case "--dir" -> {
                    String d = value(args, ++i, arg);
                    switch (d) {
                        case "down" -> {
                            down = true;
                            up = false;
                        }
                        case "up" -> {
                            down = false;
                            up = true;
                        }
                        case "both" -> {
                            down = true;
                            up = true;
                        }
                        default -> throw new UsageException("--dir takes down, up or both, not '" + d + "'");
                    }
                }
                case "--frame-size" -> {
                    frameSize = number(value(args, ++i, arg), arg);
                    if (frameSize != 0 && frameSize < Negentropy.MIN_FRAME_SIZE_LIMIT) {
                        throw new UsageException("--frame-size must be 0 (unlimited) or at least "
                                + Negentropy.MIN_FRAME_SIZE_LIMIT);
                    }
                }
                case "--timeout" -> {
                    timeoutSeconds = number(value(args, ++i, arg), arg);
                    if (timeoutSeconds < 1) {
                        throw new UsageException("--timeout must be at least 1 second");
                    }
                }
                default -> {
                    if (arg.startsWith("-")) {
                        throw new UsageException("unknown option " + arg);
                    }
                    if (url != null) {
                        throw new UsageException("one relay URL only (got " + url + " and " + arg + ")");
                    }
                    try {
                        url = new URI(arg);
                    } catch (Exception e) {
                        throw new UsageException("not a URL: " + arg);
                    }
                    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase();
                    if (!scheme.equals("ws") && !scheme.equals("wss") || url.getHost() == null) {
                        throw new UsageException("the relay URL must be ws://host[:port]/ or wss://host[:port]/, not " + arg);
                    }
                }
            }
        }
        if (url == null) {
            throw new UsageException("which relay? give its ws:// or wss:// URL");
        }
        try {
            JsonNode f = JSON.readTree(filterJson);
            if (f == null || !f.isObject()) {
                throw new UsageException("bad --filter: a filter must be a JSON object");
            }
            filterJson = JSON.writeValueAsString(f);
            filter = new MessageParser(new MessageParser.Limits(16, Integer.MAX_VALUE, 2500, 100_000))
                    .parseFilter(filterJson);
        } catch (ProtocolException e) {
            throw new UsageException("bad --filter: " + e.getMessage());
        } catch (UsageException e) {
            throw e;
        } catch (Exception e) {
            throw new UsageException("bad --filter: not JSON (" + e.getMessage() + ")");
        }
    }

    private static String value(List<String> args, int i, String option) {
        if (i >= args.size()) {
            throw new UsageException(option + " needs a value");
        }
        return args.get(i);
    }

    private static long number(String s, String option) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new UsageException(option + " takes a number, not '" + s + "'");
        }
    }

    /** Thrown to end the run with an exit code and a message already printed. */
    private static final class Abort extends RuntimeException {
        final int code;

        Abort(int code, String message) {
            super(message, null, false, false);
            this.code = code;
        }
    }

    private int execute() {
        long started = System.nanoTime();
        long now = System.currentTimeMillis() / 1000;
        int code;
        try (EventStore store = org.fleetmesh.meshnode.Cli.openStore()) {
            SortedVector items = localItems(store, now);
            err.println("sync: " + items.size() + " local events match " + filterJson + "; reconciling with " + url);
            RelayLink link;
            try {
                link = RelayLink.connect(url, timeoutSeconds);
            } catch (Exception e) {
                Throwable c = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
                err.println("meshnode sync: cannot connect to " + url + ": " + c.getMessage());
                printSummary(started);
                return FAILED;
            }
            try (link) {
                Negentropy neg = reconcile(link, items);
                have = neg.haveIds().size();
                need = neg.needIds().size();
                err.println("sync: reconciled in " + rounds + " round(s): have " + have + " (only here), need " + need
                        + " (only there)");
                if (down && need > 0) {
                    download(link, store, neg.needIds(), now);
                }
                if (up && have > 0) {
                    upload(link, store, neg.haveIds(), now);
                }
            }
            code = failed > 0 ? FAILED : OK;
        } catch (Abort a) {
            err.println("meshnode sync: " + a.getMessage());
            code = a.code;
        } catch (RuntimeException e) {
            err.println("meshnode sync: " + e);
            code = FAILED;
        }
        reasons.forEach((reason, n) -> err.println("  " + n + " x " + reason));
        printSummary(started);
        return code;
    }

    private void printSummary(long started) {
        ObjectNode s = JSON.createObjectNode();
        s.put("have", have);
        s.put("need", need);
        s.put("rounds", rounds);
        s.put("downloaded", downloaded);
        s.put("uploaded", uploaded);
        s.put("failed", failed);
        s.put("seconds", Math.round((System.nanoTime() - started) / 1e6) / 1000.0);
        s.put("skipped", skipped);
        out.println(s.toString());
        out.flush();
    }

    // ---------------------------------------------------------------- local store

    private SortedVector localItems(EventStore store, long now) {
        SortedVector.Builder b = SortedVector.builder();
        if (!filter.matchesNothingStored()) {
            store.enumerate(filter, now, (createdAt, id) -> b.insert(createdAt, Id.of(id.unsafeBytes())));
        }
        return b.seal();
    }

    /** The relay's admission rules and the signature, as {@code import} checks them; null if acceptable. */
    /** What `import` refuses, the sync refuses: a relay's events are checked like any other input. */
    static String refusal(Event e, long now) {
        return org.fleetmesh.meshnode.Cli.importRefusal(e, now);
    }

    // ---------------------------------------------------------------- reconciliation

    private Negentropy reconcile(RelayLink link, SortedVector items) {
        Negentropy neg = new Negentropy(items, frameSize);
        String subId = "sync-" + UUID.randomUUID().toString().substring(0, 8);
        byte[] message = neg.initiate();
        link.send(array("NEG-OPEN", subId).add(parseTree(filterJson)).add(HEX.formatHex(message)));
        boolean answered = false;
        while (true) {
            JsonNode m = await(link, answered ? "NEG-MSG" : "answer to NEG-OPEN", answered,
                    n -> isFor(n, subId) || verb(n).equals("NOTICE"));
            String verb = verb(m);
            switch (verb) {
                case "NEG-MSG" -> {
                    answered = true;
                    rounds++;
                    byte[] reply;
                    try {
                        reply = HEX.parseHex(m.path(2).asText(""));
                    } catch (IllegalArgumentException e) {
                        link.send(array("NEG-CLOSE", subId));
                        throw new Abort(FAILED, "the relay sent a NEG-MSG that is not hex: " + clip(m.toString()));
                    }
                    byte[] next;
                    try {
                        next = neg.reconcile(reply);
                    } catch (NegentropyException e) {
                        link.send(array("NEG-CLOSE", subId));
                        throw new Abort(FAILED, "the relay's negentropy message is invalid: " + e.getMessage());
                    }
                    err.println("sync: round " + rounds + ": have " + neg.haveIds().size() + ", need "
                            + neg.needIds().size() + " so far");
                    if (next == null) {
                        link.send(array("NEG-CLOSE", subId));
                        return neg;
                    }
                    link.send(array("NEG-MSG", subId).add(HEX.formatHex(next)));
                }
                case "NEG-ERR" -> throw new Abort(answered ? FAILED : NO_NIP77,
                        "the relay ended the reconciliation with NEG-ERR: " + m.path(2).asText(m.toString()));
                case "CLOSED", "NOTICE" -> throw new Abort(answered ? FAILED : NO_NIP77,
                        (answered ? "the relay broke off the reconciliation: "
                                : "the relay does not speak NIP-77 (or refused it): ") + verb + " "
                                + clip(m.path(verb.equals("CLOSED") ? 2 : 1).asText(m.toString())));
                default -> {
                    // an EVENT/EOSE/OK for the same id cannot be ours: ignore
                }
            }
        }
    }

    /**
     * The next message the predicate accepts, skipping the rest (AUTH challenges, stray answers).
     * A silence of {@code timeoutSeconds} or the end of the connection aborts: before the relay
     * answered NEG-OPEN at all, as a relay that does not speak NIP-77.
     */
    private JsonNode await(RelayLink link, String what, boolean answered, java.util.function.Predicate<JsonNode> wanted) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (true) {
            long left = deadline - System.nanoTime();
            RelayLink.Incoming in;
            try {
                in = left <= 0 ? null : link.next(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Abort(FAILED, "interrupted");
            }
            int code = answered ? FAILED : NO_NIP77;
            String prefix = answered ? "" : "the relay does not speak NIP-77 (or refused it): ";
            if (in == null) {
                throw new Abort(code, prefix + "no " + what + " within " + timeoutSeconds + " s");
            }
            if (in instanceof RelayLink.Closed c) {
                throw new Abort(code, prefix + c.why() + " while waiting for " + what);
            }
            if (in instanceof RelayLink.Message msg && wanted.test(msg.node())) {
                return msg.node();
            }
        }
    }

    // ---------------------------------------------------------------- down: REQ by id

    private void download(RelayLink link, EventStore store, List<Id> needIds, long now) {
        MessageParser parser = new MessageParser(new MessageParser.Limits(16, Integer.MAX_VALUE, 100_000, 100_000));
        List<Event> batch = new ArrayList<>();
        long received = 0;
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
            link.send(array("REQ", subId).add(f));
            boolean done = false;
            while (!done) {
                JsonNode m;
                try {
                    m = await(link, "events for REQ " + subId, true, n -> isFor(n, subId) || verb(n).equals("NOTICE"));
                } catch (Abort a) {
                    fail(wanted.size(), "not received: " + a.getMessage());
                    wanted.clear();
                    if (link.isClosed()) {
                        flush(store, batch);
                        fail(needIds.size() - from - chunk.size(), "not requested: the connection ended");
                        return;
                    }
                    break;
                }
                switch (verb(m)) {
                    case "EVENT" -> {
                        received++;
                        Event e;
                        try {
                            e = parser.parseEvent(m.path(2).toString());
                        } catch (ProtocolException ex) {
                            fail(1, "from relay: " + ex.getMessage());
                            continue;
                        }
                        if (!wanted.remove(e.id().hex())) {
                            continue; // not asked for (or sent twice): ignore
                        }
                        String refusal = refusal(e, now);
                        if (refusal != null) {
                            fail(1, "from relay: " + refusal);
                            continue;
                        }
                        batch.add(e);
                        if (batch.size() >= SAVE_BATCH) {
                            flush(store, batch);
                        }
                    }
                    case "EOSE", "CLOSED" -> {
                        if (verb(m).equals("CLOSED")) {
                            err.println("sync: relay closed " + subId + ": " + m.path(2).asText(""));
                        }
                        link.send(array("CLOSE", subId));
                        done = true;
                    }
                    case "NOTICE" -> err.println("sync: relay notice: " + clip(m.path(1).asText(m.toString())));
                    default -> {
                    }
                }
            }
            if (!wanted.isEmpty()) {
                fail(wanted.size(), "the relay did not send a needed event");
            }
            flush(store, batch);
            err.println("sync: down: " + Math.min(needIds.size(), from + chunk.size()) + "/" + needIds.size()
                    + " requested, " + downloaded + " stored");
        }
        flush(store, batch);
    }

    private void flush(EventStore store, List<Event> batch) {
        if (batch.isEmpty()) {
            return;
        }
        List<SaveOutcome> outcomes;
        try {
            outcomes = store.save(batch);
        } catch (RuntimeException e) {
            fail(batch.size(), "local store: " + e.getMessage());
            batch.clear();
            return;
        }
        for (SaveOutcome o : outcomes) {
            switch (o) {
                case STORED -> downloaded++;
                case DUPLICATE -> {
                    // stored meanwhile by someone else: nothing left to do
                }
                case SUPERSEDED, DELETED -> {
                    skipped++;
                    reasons.merge("skipped: " + o.reason(), 1L, Long::sum);
                }
                case FAILED -> fail(1, "local store: " + o.reason());
            }
        }
        batch.clear();
    }

    // ---------------------------------------------------------------- up: EVENT, counting OKs

    private void upload(RelayLink link, EventStore store, List<Id> haveIds, long now) {
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
            if (events.size() < chunk.size()) {
                // gone since the reconciliation (expired, deleted): nothing to send
                skipped += chunk.size() - events.size();
                reasons.merge("skipped: no longer in the local store", (long) (chunk.size() - events.size()), Long::sum);
            }
            for (String json : events) {
                while (pending.size() >= MAX_IN_FLIGHT) {
                    if (!awaitOk(link, pending)) {
                        return;
                    }
                }
                JsonNode event = parseTree(json);
                pending.put(event.path("id").asText(), Boolean.TRUE);
                link.send(array("EVENT").add(event));
                sent++;
                if (sent % 1000 == 0) {
                    err.println("sync: up: " + sent + "/" + haveIds.size() + " sent, " + uploaded + " accepted");
                }
            }
        }
        while (!pending.isEmpty()) {
            if (!awaitOk(link, pending)) {
                return;
            }
        }
        err.println("sync: up: " + sent + "/" + haveIds.size() + " sent, " + uploaded + " accepted");
    }

    /** Waits for one OK among the pending events; false (all pending counted failed) when none comes. */
    private boolean awaitOk(RelayLink link, Map<String, Boolean> pending) {
        JsonNode m;
        try {
            m = await(link, "OK for " + pending.size() + " published event(s)", true,
                    n -> (verb(n).equals("OK") && pending.containsKey(n.path(1).asText())) || verb(n).equals("NOTICE"));
        } catch (Abort a) {
            fail(pending.size(), "no OK: " + a.getMessage());
            pending.clear();
            return !link.isClosed();
        }
        if (verb(m).equals("NOTICE")) {
            err.println("sync: relay notice: " + clip(m.path(1).asText(m.toString())));
            return true;
        }
        pending.remove(m.path(1).asText());
        if (m.path(2).asBoolean(false)) {
            uploaded++;
        } else {
            fail(1, "relay: " + m.path(3).asText(""));
        }
        return true;
    }

    // ---------------------------------------------------------------- helpers

    private void fail(long n, String reason) {
        if (n <= 0) {
            return;
        }
        failed += n;
        reasons.merge(reason, n, Long::sum);
    }

    private static ArrayNode array(String... parts) {
        ArrayNode a = JSON.createArrayNode();
        for (String p : parts) {
            a.add(p);
        }
        return a;
    }

    private static JsonNode parseTree(String json) {
        try {
            return JSON.readTree(json);
        } catch (Exception e) {
            throw new IllegalStateException("unreadable JSON: " + e.getMessage());
        }
    }

    private static String verb(JsonNode n) {
        return n.isArray() && n.size() > 0 ? n.get(0).asText("") : "";
    }

    private static boolean isFor(JsonNode n, String subId) {
        return n.isArray() && n.size() > 1 && subId.equals(n.get(1).asText(null));
    }

    private static String clip(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }
}
