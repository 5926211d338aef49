package org.fleetmesh.meshnode.sync;

import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.meshnode.ImportCommand;
import org.fleetmesh.meshnode.LocalNode;
import org.fleetmesh.meshnode.UsageException;
import org.fleetmesh.negentropy.Negentropy;
import org.fleetmesh.negentropy.NegInitiator;
import org.fleetmesh.negentropy.RelaySync;
import org.fleetmesh.negentropy.SortedVector;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.relay.Ingest;
import org.fleetmesh.relay.Origin;
import org.fleetmesh.relay.client.RelayLink;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.SaveOutcome;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code meshnode sync <ws-url> [--filter JSON] [--dir down|up|both] [--frame-size N] [--timeout S]}:
 * reconciles the local store with a relay over NIP-77, then moves only the difference: REQ by id for what is
 * missing here, EVENT for what is missing there. The client itself is {@link RelaySync} in the core; this is
 * the command line around it.
 *
 * <p>Exit codes: 0 success, 1 a transfer failed (or the reconciliation broke off, or the relay stopped answering
 * requests), 2 usage error, 3 the relay does not speak NIP-77 or refused it, 4 the relay's answers went past a bound
 * (more ids than {@code --max-need}, more rounds than allowed): stopped before moving anything.
 *
 * <p>Bounds against a relay that answers without end: the need set (default max(1,000,000, local events matching
 * the filter)), the have set (the local events matching), NEG-MSG rounds (64 plus one per 16 ids found, or
 * {@code --max-rounds}), a message from the relay (1 MiB, {@code --max-message}), the unread messages (4096 or
 * 8 MiB), each request's wait (the timeout, which only progress renews; 4 timeouts for a request in all) and requests left unanswered in a row (3).
 * Every fetched event must match the filter and lie in the range the relay announced its id in.
 */
public final class SyncCommand {
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;
    public static final int NO_NIP77 = 3;
    public static final int EXCEEDED = 4;

    static final long DEFAULT_FRAME_SIZE = 60_000;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final PrintStream err = System.err;
    private final PrintStream out = System.out;

    private URI url;
    private String filterJson = "{}";
    private Filter filter = Filter.ALL;
    private boolean down = true;
    private boolean up = true;
    private long frameSize = DEFAULT_FRAME_SIZE;
    private long timeoutSeconds = 30;
    private long maxNeed = NegInitiator.Limits.DEFAULT_MAX_NEED;
    private long maxRounds = 0;
    private int maxMessage = RelayLink.DEFAULT_MAX_MESSAGE_SIZE;

    // results
    private long have;
    private long need;
    private long rounds;
    private long downloaded;
    private RelaySync.Tally tally = new RelaySync.Tally();

    SyncCommand() {
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
                                     [--max-need N] [--max-rounds N] [--max-message BYTES]
                  Reconciles the local store (FLEETMESH_DATA_DIR, or the QUARKUS_DATASOURCE_* database) with a relay
                  over NIP-77 (negentropy), then moves only the difference:
                    --dir down   fetch the events the relay has and this store lacks (REQ by id, verified, stored)
                    --dir up     publish the events this store has and the relay lacks (EVENT, counting OK answers)
                    --dir both   both (default)
                  --filter JSON      which events to reconcile (default {} = all)
                  --frame-size N     largest negentropy message this side sends, in bytes (default 60000; 0 = unlimited,
                                     else at least 4096)
                  --timeout S        seconds to wait for an answer from the relay (default 30); while fetching, only
                                     events that were asked for renew it (NOTICEs do not), a request of 500 ids has
                                     4 timeouts in all, and after 3 requests in a row left unanswered the sync stops
                  --max-need N       ids the relay may list as missing here before the sync stops (exit 4) without
                                     fetching any (default 1000000, or the local events matching the filter if more)
                  --max-rounds N     negentropy rounds before the sync stops (exit 4) (default 0: 64 plus one for
                                     every 16 ids found)
                  --max-message B    largest message read from the relay, in bytes (default 1048576, 65536..67108864);
                                     a larger one ends the connection
                  Fetched events must match the filter and lie in the range the relay announced their id in; others are
                  refused, counted by reason, and not stored.
                  Resumable: there is no sync state besides the two stores, so running the command again reconciles
                  afresh and moves only what is still missing; a run that moved everything is followed by have 0, need 0.
                  stdout: one JSON summary {"have","need","rounds","downloaded","uploaded","failed","skipped","seconds"}
                  (every exit but 2);
                  progress on stderr.
                  exit: 0 done, 1 some transfer failed (or the reconciliation broke off, or the relay stopped answering),
                        2 usage error, 3 the relay does not speak NIP-77 (or refused it), 4 the relay's answers went past
                        --max-need or --max-rounds (nothing was moved)""");
    }

    void parse(List<String> args) {
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
                case "--max-need" -> {
                    maxNeed = number(value(args, ++i, arg), arg);
                    if (maxNeed < 1) {
                        throw new UsageException("--max-need must be at least 1");
                    }
                }
                case "--max-rounds" -> {
                    maxRounds = number(value(args, ++i, arg), arg);
                    if (maxRounds < 0) {
                        throw new UsageException("--max-rounds must be 0 (the default budget) or more");
                    }
                }
                case "--max-message" -> {
                    long m = number(value(args, ++i, arg), arg);
                    if (m < 65536 || m > 64 << 20) {
                        throw new UsageException("--max-message must be between 65536 and 67108864 bytes");
                    }
                    maxMessage = (int) m;
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
            // the whole argument: '{"kinds":[1]},{"kinds":[2]}' is refused, not read as its first filter
            JsonNode f = JSON.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(filterJson);
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

    private int execute() {
        long started = System.nanoTime();
        long now = System.currentTimeMillis() / 1000;
        int code;
        try (EventStore store = LocalNode.openStore(); Ingest ingest = ImportCommand.ingest(store)) {
            SortedVector items = RelaySync.localItems(store, filter, now);
            err.println("sync: " + items.size() + " local events match " + filterJson + "; reconciling with " + url);
            RelayLink link;
            try {
                link = RelayLink.connect(url, timeoutSeconds, maxMessage);
            } catch (Exception e) {
                Throwable c = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
                err.println("meshnode sync: cannot connect to " + url + ": " + c.getMessage());
                printSummary(started);
                return FAILED;
            }
            try (link) {
                RelaySync sync = new RelaySync(link, timeoutSeconds, line -> err.println("sync: " + line));
                tally = sync.tally();
                NegInitiator r;
                try {
                    r = sync.reconcile(filterJson, items, frameSize, limits(items.size()));
                } finally {
                    rounds = sync.rounds();
                }
                have = r.haveIds().size();
                need = r.needIds().size();
                err.println("sync: reconciled in " + rounds + " round(s): have " + have + " (only here), need " + need
                        + " (only there)");
                if (down && need > 0) {
                    Origin origin = new Origin.Sync(url.toString());
                    sync.fetch(r.needIds(), RelaySync.admission(filter, r), batch -> store(ingest, origin, batch));
                }
                if (up && have > 0) {
                    sync.push(store, r.haveIds(), now);
                }
            }
            code = tally.failed() > 0 ? FAILED : OK;
        } catch (RelaySync.SyncFailure f) {
            err.println("meshnode sync: " + f.getMessage());
            code = f.unsupported() ? NO_NIP77 : f.exceeded() ? EXCEEDED : FAILED;
        } catch (RuntimeException e) {
            err.println("meshnode sync: " + e);
            code = FAILED;
        }
        tally.reasons().forEach((reason, n) -> err.println("  " + n + " x " + reason));
        printSummary(started);
        return code;
    }

    private NegInitiator.Limits limits(long localItems) {
        return limits(maxNeed, maxRounds, localItems);
    }

    /**
     * The reconciliation's bounds for a local side of {@code localItems}: need at most max(--max-need, local items),
     * have at most the local items, rounds per --max-rounds (0: 64 plus one per 16 ids found).
     */
    static NegInitiator.Limits limits(long maxNeed, long maxRounds, long localItems) {
        return new NegInitiator.Limits(Math.max(maxNeed, localItems), localItems, maxRounds);
    }

    private void printSummary(long started) {
        ObjectNode s = JSON.createObjectNode();
        s.put("have", have);
        s.put("need", need);
        s.put("rounds", rounds);
        s.put("downloaded", downloaded);
        s.put("uploaded", tally.uploaded());
        s.put("failed", tally.failed());
        s.put("seconds", Math.round((System.nanoTime() - started) / 1e6) / 1000.0);
        s.put("skipped", tally.skipped());
        out.println(s.toString());
        out.flush();
    }

    /** The down direction's events through the node's ingest, counted; the next batch waits for these outcomes. */
    private void store(Ingest ingest, Origin origin, List<Event> batch) {
        for (Ingest.Outcome o : ingest.submit(batch, origin).toCompletableFuture().join()) {
            switch (o.status()) {
                case ACCEPTED -> downloaded++;
                case DUPLICATE -> {
                    if (o.reason().equals(SaveOutcome.SUPERSEDED.reason())) {
                        tally.skip(1, o.reason());
                    }
                    // else stored meanwhile by someone else: nothing left to do
                }
                case REFUSED -> {
                    if (o.reason().equals(SaveOutcome.DELETED.reason())) {
                        tally.skip(1, o.reason());
                    } else if (o.reason().startsWith("error:") || o.reason().startsWith("rate-limited:")) {
                        tally.fail(1, "local store: " + o.reason());
                    } else {
                        tally.fail(1, "from relay: " + o.reason());
                    }
                }
            }
        }
    }
}
