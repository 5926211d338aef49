package org.fleetmesh.meshnode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.relay.Ingest;
import org.fleetmesh.relay.Origin;
import org.fleetmesh.relay.RelayLimits;
import org.fleetmesh.relay.RelayPolicy;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.SaveOutcome;

/**
 * {@code meshnode import}: JSONL events from stdin through the node's one way in ({@link Ingest}, origin
 * {@link Origin.Import}), so they are checked as the relay checks them.
 */
public final class ImportCommand {
    private static final int BATCH = 1000;
    /** The longest line read: an event the relay would take is shorter (its whole EVENT message is at most this). */
    static final int MAX_LINE = RelayLimits.DEFAULT.maxMessageLength();

    /**
     * Lines of a reader, each at most {@code max} characters (without its {@code \n} or {@code \r\n}); a longer one is
     * read to its end without being kept and comes back as {@link #TOO_LONG}: a file without newlines cannot fill the
     * heap.
     */
    static final class Lines {
        static final String TOO_LONG = new String("(too long)");
        private final java.io.Reader in;
        private final int max;
        private final StringBuilder line = new StringBuilder();

        Lines(java.io.Reader in, int max) {
            this.in = in;
            this.max = max;
        }

        private final char[] buf = new char[1 << 16];
        private int pos;
        private int len;

        /** The next line, {@link #TOO_LONG} (compare by identity), or null at the end. */
        String next() throws IOException {
            line.setLength(0);
            boolean over = false;
            boolean any = false;
            while (true) {
                if (pos == len) {
                    len = in.read(buf, 0, buf.length);
                    pos = 0;
                    if (len <= 0) {
                        len = 0;
                        break;
                    }
                }
                any = true;
                int nl = pos;
                while (nl < len && buf[nl] != '\n') {
                    nl++;
                }
                if (!over) {
                    int take = nl - pos;
                    if (line.length() + take > max + 1) { // max + 1 kept: one may be the \r of a \r\n
                        over = true;
                        line.setLength(0);
                    } else {
                        line.append(buf, pos, take);
                    }
                }
                if (nl < len) {
                    pos = nl + 1;
                    break;
                }
                pos = len;
            }
            if (!any) {
                return null;
            }
            int n = line.length();
            if (!over && n > 0 && line.charAt(n - 1) == '\r') {
                line.setLength(n - 1);
            }
            return over || line.length() > max ? TOO_LONG : line.toString();
        }
    }

    private ImportCommand() {
    }

    /** The CLI's ingest over a store: the relay's limits, no live subscribers. */
    public static Ingest ingest(EventStore store) {
        return new Ingest(store, RelayLimits.DEFAULT, RelayPolicy.OPEN, () -> System.currentTimeMillis() / 1000,
                Ingest.FanOutSink.NONE);
    }

    /** Reads JSONL from stdin; validates like the relay; reports accepted / duplicate / rejected. */
    static int run(String[] args) {
        boolean reorder = args.length == 2 && args[1].equals("--reorder");
        if (args.length > 2 || (args.length == 2 && !reorder)) {
            throw new UsageException("import takes no arguments but --reorder; it reads JSONL from standard input");
        }
        MessageParser parser = new MessageParser(MessageParser.Limits.DEFAULT);
        Report report = new Report();
        try (EventStore store = LocalNode.openStore();
                Ingest ingest = ingest(store);
                BufferedReader reader = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            Lines in = new Lines(reader, MAX_LINE);
            List<Event> batch = new ArrayList<>(BATCH);
            List<Long> lines = new ArrayList<>(BATCH);
            String line;
            long lineNo = 0;
            while ((line = in.next()) != null) {
                lineNo++;
                if (line == Lines.TOO_LONG) {
                    report.rejected(lineNo, "invalid: the line is longer than " + MAX_LINE + " characters");
                    continue;
                }
                if (line.isBlank()) {
                    continue;
                }
                try {
                    batch.add(parser.parseEvent(line));
                    lines.add(lineNo);
                } catch (ProtocolException ex) {
                    report.rejected(lineNo, ex.getMessage());
                    continue;
                }
                if (batch.size() == BATCH) {
                    flush(ingest, batch, lines, report);
                }
            }
            flush(ingest, batch, lines, report);
            report.print(System.err); // what was imported, whatever the reorder does
            if (reorder) {
                // asked for by the operator, who runs it with the node stopped: a relay serving the same database
                // would wait for the rewrite; one in the middle of a read makes it give up after a few seconds
                long t0 = System.nanoTime();
                try {
                    boolean done = store.reorderByTime();
                    System.err.printf(java.util.Locale.ROOT, done ? "reordered the stored events by time in %.1f s%n"
                            : "this storage backend keeps no order to rewrite%n", (System.nanoTime() - t0) / 1e9);
                } catch (IllegalStateException e) {
                    System.err.println("meshnode: " + e.getMessage());
                    return 1;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return report.failed > 0 ? 1 : 0;
    }

    /** One batch at a time: the next waits for this one's outcomes, so the write queue never overflows. */
    private static void flush(Ingest ingest, List<Event> batch, List<Long> lines, Report report) {
        if (batch.isEmpty()) {
            return;
        }
        List<Ingest.Outcome> outcomes = ingest.submit(List.copyOf(batch), new Origin.Import()).toCompletableFuture().join();
        for (int i = 0; i < outcomes.size(); i++) {
            report.outcome(lines.get(i), outcomes.get(i));
        }
        batch.clear();
        lines.clear();
    }

    static final class Report {
        /** Distinct reasons listed; the rest are counted under one line. */
        static final int MAX_REASONS = 100;
        long accepted;
        long duplicate;
        long rejected;
        long failed;
        final TreeMap<String, Long> reasons = new TreeMap<>();
        final List<String> firstRejections = new ArrayList<>();

        private long otherReasons;

        private void reason(String reason) {
            if (reasons.containsKey(reason) || reasons.size() < MAX_REASONS) {
                reasons.merge(reason, 1L, Long::sum);
            } else {
                otherReasons++;
            }
        }

        void rejected(long line, String reason) {
            rejected++;
            reason(reason);
            if (firstRejections.size() < 20) {
                firstRejections.add("line " + line + ": " + reason);
            }
        }

        void outcome(long line, Ingest.Outcome o) {
            switch (o.status()) {
                case ACCEPTED -> accepted++;
                case DUPLICATE -> {
                    duplicate++;
                    if (o.reason().equals(SaveOutcome.SUPERSEDED.reason())) {
                        reason(o.reason());
                    }
                }
                case REFUSED -> {
                    // the store failing (or too busy) is not the event's fault: exit 1, the line may be retried
                    if (o.reason().startsWith("error:") || o.reason().startsWith("rate-limited:")) {
                        failed++;
                        reason(o.reason());
                    } else {
                        rejected(line, o.reason());
                    }
                }
            }
        }

        void print(PrintStream out) {
            firstRejections.forEach(out::println);
            out.println("accepted " + accepted + ", duplicate " + duplicate + ", rejected " + rejected
                    + (failed > 0 ? ", failed " + failed : ""));
            reasons.forEach((reason, n) -> out.println("  " + n + " x " + reason));
            if (otherReasons > 0) {
                out.println("  " + otherReasons + " x (other reasons: only the first " + MAX_REASONS + " distinct are listed)");
            }
        }
    }
}
