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
import org.fleetmesh.nostr.EventClass;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.SaveOutcome;

/** {@code meshnode import}: JSONL events from stdin into the store, checked as the relay checks them. */
public final class ImportCommand {
    private static final int BATCH = 1000;

    private ImportCommand() {
    }

    /** Reads JSONL from stdin; validates like the relay; reports accepted / duplicate / rejected. */
    static int run(String[] args) {
        if (args.length > 1) {
            throw new UsageException("import takes no arguments; it reads JSONL from standard input");
        }
        MessageParser parser = new MessageParser(MessageParser.Limits.DEFAULT);
        Report report = new Report();
        long now = System.currentTimeMillis() / 1000;
        try (EventStore store = LocalNode.openStore();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            List<Event> batch = new ArrayList<>(BATCH);
            String line;
            long lineNo = 0;
            while ((line = in.readLine()) != null) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                String refusal;
                Event e = null;
                try {
                    e = parser.parseEvent(line);
                    refusal = refusal(e, now);
                } catch (ProtocolException ex) {
                    refusal = ex.getMessage();
                }
                if (refusal != null) {
                    report.rejected(lineNo, refusal);
                    continue;
                }
                batch.add(e);
                if (batch.size() == BATCH) {
                    flush(store, batch, report);
                }
            }
            flush(store, batch, report);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        report.print(System.err);
        return report.failed > 0 ? 1 : 0;
    }

    /**
     * The relay's admission rules and signature check. NIP-70 authorship is not asked for: the operator stands
     * in for the authors, so that export followed by import loses nothing.
     */
    public static String refusal(Event e, long now) {
        String refusal = org.fleetmesh.relay.Admission.refusal(e, org.fleetmesh.relay.RelayLimits.DEFAULT, now);
        if (refusal == null && e.eventClass() == EventClass.EPHEMERAL) {
            refusal = "invalid: ephemeral events are never stored";
        }
        return refusal != null ? refusal : Events.verify(e);
    }

    private static void flush(EventStore store, List<Event> batch, Report report) {
        if (batch.isEmpty()) {
            return;
        }
        for (SaveOutcome o : store.save(batch)) {
            report.outcome(o);
        }
        batch.clear();
    }

    static final class Report {
        long accepted;
        long duplicate;
        long rejected;
        long failed;
        final TreeMap<String, Long> reasons = new TreeMap<>();
        final List<String> firstRejections = new ArrayList<>();

        void rejected(long line, String reason) {
            rejected++;
            reasons.merge(reason, 1L, Long::sum);
            if (firstRejections.size() < 20) {
                firstRejections.add("line " + line + ": " + reason);
            }
        }

        void outcome(SaveOutcome o) {
            switch (o) {
                case STORED -> accepted++;
                case DUPLICATE, SUPERSEDED -> {
                    duplicate++;
                    if (o == SaveOutcome.SUPERSEDED) {
                        reasons.merge(o.reason(), 1L, Long::sum);
                    }
                }
                case DELETED -> {
                    rejected++;
                    reasons.merge(o.reason(), 1L, Long::sum);
                }
                case FAILED -> {
                    failed++;
                    reasons.merge(o.reason(), 1L, Long::sum);
                }
            }
        }

        void print(PrintStream out) {
            firstRejections.forEach(out::println);
            out.println("accepted " + accepted + ", duplicate " + duplicate + ", rejected " + rejected
                    + (failed > 0 ? ", failed " + failed : ""));
            reasons.forEach((reason, n) -> out.println("  " + n + " x " + reason));
        }
    }
}
