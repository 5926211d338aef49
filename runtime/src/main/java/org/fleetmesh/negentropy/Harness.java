package org.fleetmesh.negentropy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/**
 * The stdio protocol of the reference conformance harness (hoytech/negentropy test/), so its
 * drivers (fuzz.pl, protoversion.pl) can run this implementation against the C++ and JS ones.
 *
 * <p>In: {@code item,<created_at>,<id-hex>}, {@code seal}, {@code initiate}, {@code msg,<hex>}.
 * Out: {@code msg,<hex>}, {@code have,<id-hex>}, {@code need,<id-hex>}, {@code done}. The
 * {@code FRAMESIZELIMIT} environment variable sets the frame size limit (0 or unset: unlimited);
 * {@code NEGENTROPY_STORAGE=tree} reconciles over a {@link FingerprintTree} snapshot instead of the
 * sorted vector (same bytes; for benchmarks).
 * Any error ends the process with status 1 and the reason on stderr, as the reference harness does.
 */
public final class Harness {
    private final long frameSizeLimit;
    private final PrintStream out;
    private SortedVector.Builder items = SortedVector.builder();
    private Negentropy negentropy;
    private int haveReported;
    private int needReported;

    Harness(long frameSizeLimit, PrintStream out) {
        this.frameSizeLimit = frameSizeLimit;
        this.out = out;
    }

    public static void main(String[] args) throws IOException {
        String limit = System.getenv("FRAMESIZELIMIT");
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.US_ASCII);
        try {
            Harness harness = new Harness(limit == null ? 0 : Long.parseUnsignedLong(limit.trim()), out);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
            String line;
            while ((line = in.readLine()) != null) {
                harness.accept(line);
            }
        } catch (NegentropyException | IllegalArgumentException e) {
            out.flush();
            System.err.println("negentropy harness: " + e.getMessage());
            System.exit(1);
        }
        out.flush();
    }

    /** Handles one input line, writing any answer lines and flushing after each message. */
    void accept(String line) {
        if (line.isEmpty()) {
            return;
        }
        String[] fields = line.split(",", -1);
        switch (fields[0]) {
            case "item" -> {
                if (fields.length != 3) {
                    throw new NegentropyException("wrong num of fields: " + line);
                }
                if (items == null) {
                    throw new NegentropyException("already sealed");
                }
                items.insert(Long.parseUnsignedLong(fields[1].trim()), Id.ofHex(fields[2].trim()));
            }
            case "seal" -> {
                if (items == null) {
                    throw new NegentropyException("already sealed");
                }
                SortedVector sealed = items.seal();
                Storage storage = sealed;
                if ("tree".equals(System.getenv("NEGENTROPY_STORAGE"))) { // benchmarks: the relay's live-index storage
                    java.util.List<Item> sorted = new java.util.ArrayList<>(sealed.size());
                    sealed.iterate(0, sealed.size(), (it, i) -> sorted.add(it));
                    storage = FingerprintTree.fromSorted(sorted).snapshot();
                }
                negentropy = new Negentropy(storage, frameSizeLimit);
                items = null;
            }
            case "initiate" -> send(requireSealed().initiate());
            case "msg" -> {
                byte[] query = fields.length >= 2 ? HexFormat.of().parseHex(fields[1].trim()) : new byte[0];
                Negentropy ne = requireSealed();
                byte[] reply = ne.reconcile(query);
                if (ne.isInitiator()) {
                    haveReported = report("have", ne.haveIds(), haveReported);
                    needReported = report("need", ne.needIds(), needReported);
                    if (reply == null) {
                        out.println("done");
                        out.flush();
                        return;
                    }
                }
                send(reply);
            }
            default -> throw new NegentropyException("unknown cmd: " + fields[0]);
        }
    }

    private Negentropy requireSealed() {
        if (negentropy == null) {
            throw new NegentropyException("not sealed");
        }
        return negentropy;
    }

    private int report(String kind, List<Id> ids, int alreadyReported) {
        for (int i = alreadyReported; i < ids.size(); i++) {
            out.println(kind + "," + ids.get(i).toHex());
        }
        return ids.size();
    }

    private void send(byte[] message) {
        out.println("msg," + HexFormat.of().formatHex(message));
        out.flush();
    }
}
