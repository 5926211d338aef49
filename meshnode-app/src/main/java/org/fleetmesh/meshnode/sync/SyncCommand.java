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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code meshnode sync <ws-url> [--filter JSON] [--dir down|up|both] [--frame-size N] [--timeout S]}:
 * reconciles the local store with a relay over NIP-77, then moves only the difference: REQ by id for what is
 * missing here, EVENT for what is missing there. The client itself is {@link RelaySync} in the core; this is
 * the command line around it.
 *
 * <p>Exit codes: 0 success, 1 a transfer failed (or the reconciliation broke off), 2 usage error,
 * 3 the relay does not speak NIP-77 or refused it.
 */
public final class SyncCommand {
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;
    public static final int NO_NIP77 = 3;

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

    // results
    private long have;
    private long need;
    private long rounds;
    private long downloaded;
    private RelaySync.Tally tally = new RelaySync.Tally();

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

    private int execute() {
        long started = System.nanoTime();
        long now = System.currentTimeMillis() / 1000;
        int code;
        try (EventStore store = LocalNode.openStore(); Ingest ingest = ImportCommand.ingest(store)) {
            SortedVector items = RelaySync.localItems(store, filter, now);
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
                RelaySync sync = new RelaySync(link, timeoutSeconds, line -> err.println("sync: " + line));
                tally = sync.tally();
                NegInitiator r;
                try {
                    r = sync.reconcile(filterJson, items, frameSize);
                } finally {
                    rounds = sync.rounds();
                }
                have = r.haveIds().size();
                need = r.needIds().size();
                err.println("sync: reconciled in " + rounds + " round(s): have " + have + " (only here), need " + need
                        + " (only there)");
                if (down && need > 0) {
                    Origin origin = new Origin.Sync(url.toString());
                    sync.fetch(r.needIds(), batch -> store(ingest, origin, batch));
                }
                if (up && have > 0) {
                    sync.push(store, r.haveIds(), now);
                }
            }
            code = tally.failed() > 0 ? FAILED : OK;
        } catch (RelaySync.SyncFailure f) {
            err.println("meshnode sync: " + f.getMessage());
            code = f.unsupported() ? NO_NIP77 : FAILED;
        } catch (RuntimeException e) {
            err.println("meshnode sync: " + e);
            code = FAILED;
        }
        tally.reasons().forEach((reason, n) -> err.println("  " + n + " x " + reason));
        printSummary(started);
        return code;
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
