package org.fleetmesh.delivery.log;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.List;

/**
 * A receipt chain export (JSONL, one {@code {"receipt": <event>, "consistency": [hex ...]}} per receipt in chain
 * order) and its verification: every signature, every prev link, every consistency proof.
 */
public final class ChainFile {

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
        throw new UnsupportedOperationException();
    }

    /** Verifies a whole chain, from its first receipt. */
    public static Result verify(BufferedReader lines) throws IOException {
        throw new UnsupportedOperationException();
    }
}
