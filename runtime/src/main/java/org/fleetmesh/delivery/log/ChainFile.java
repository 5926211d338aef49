package org.fleetmesh.delivery.log;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A receipt chain export (JSONL, one {@code {"receipt": <event>, "consistency": [hex ...]}} per receipt in chain
 * order) and its verification: every signature, every prev link, every consistency proof.
 */
public final class ChainFile {
    private static final String WHAT = "the line";

    /** The outcome: {@code lines} read; {@code badLine} the first bad line (1-based) or 0, and why. */
    public record Result(long lines, long badLine, String why) {
        public boolean ok() {
            return badLine == 0;
        }
    }

    private ChainFile() {
    }

    /** One export line for a receipt (its JSON event text) and its consistency proof from the previous size. */
    public static String line(String receiptJson, List<byte[]> consistency) {
        return "{\"receipt\":" + receiptJson + ",\"consistency\":" + LogJson.hexArray(consistency) + "}";
    }

    /**
     * Verifies a whole chain, from its first receipt: each line's receipt is authentic, a well-formed receipt of the
     * same receiver to the same sender as the first, names the previous line's receipt as prev (none on the first),
     * has a seq above the previous one and cumulative bytes not below it, and its consistency proof verifies from the
     * previous checkpoint (the empty tree before the first). Blank lines are skipped; an empty file is a valid empty
     * chain.
     */
    public static Result verify(BufferedReader lines) throws IOException {
        long lineNo = 0;
        long receipts = 0;
        Receipt previous = null;
        String line;
        while ((line = lines.readLine()) != null) {
            lineNo++;
            if (line.isBlank()) {
                continue;
            }
            String why;
            Receipt r = null;
            try {
                JsonNode o = LogJson.read(line, WHAT);
                Event e = LogJson.event(LogJson.member(o, "receipt", WHAT), "the receipt");
                List<byte[]> consistency = LogJson.hashes(o, "consistency", WHAT);
                why = Events.verify(e);
                if (why == null) {
                    r = Receipt.parse(e);
                    why = link(previous, r, consistency);
                }
            } catch (IllegalArgumentException e) {
                why = e.getMessage();
            } catch (ReceiptException e) {
                why = e.breach().word() + ": " + e.getMessage();
            }
            if (why != null) {
                return new Result(lineNo, lineNo, why);
            }
            previous = r;
            receipts++;
        }
        return new Result(lineNo, 0, receipts + " receipts verified");
    }

    private static String link(Receipt previous, Receipt r, List<byte[]> consistency) {
        if (previous == null) {
            if (r.prev() != null) {
                return "prev: the first receipt names a prev " + r.prev().hex()
                        + " (an export starts at the chain's first receipt)";
            }
            if (!Merkle.verifyConsistency(0, r.size(), Merkle.emptyRoot(), r.root(), consistency)) {
                return "fork: the first receipt's consistency proof is not empty";
            }
            return null;
        }
        if (!r.receiver().equals(previous.receiver())) {
            return "signature: signed by " + r.receiver().hex() + ", not the chain's receiver " + previous.receiver().hex();
        }
        if (!r.sender().equals(previous.sender())) {
            return "format: p names " + r.sender().hex() + ", not the chain's sender " + previous.sender().hex();
        }
        if (r.prev() == null || !r.prev().equals(previous.id())) {
            return "prev: prev is " + (r.prev() == null ? "absent" : r.prev().hex()) + ", not the previous receipt "
                    + previous.id().hex();
        }
        if (r.seq() <= previous.seq()) {
            return "format: seq " + r.seq() + " does not follow " + previous.seq();
        }
        if (r.bytes() < previous.bytes()) {
            return "counts: bytes went down from " + previous.bytes() + " to " + r.bytes();
        }
        if (r.size() == previous.size() && r.bytes() != previous.bytes()) {
            return "counts: bytes changed from " + previous.bytes() + " to " + r.bytes() + " with no leaf appended";
        }
        if (r.size() < previous.size()) {
            return "fork: the tree shrank from " + previous.size() + " to " + r.size();
        }
        if (!Merkle.verifyConsistency(previous.size(), r.size(), previous.root(), r.root(), consistency)) {
            return "fork: the consistency proof from size " + previous.size() + " to " + r.size() + " does not verify";
        }
        return null;
    }
}
