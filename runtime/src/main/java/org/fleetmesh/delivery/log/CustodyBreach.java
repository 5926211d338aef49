package org.fleetmesh.delivery.log;

/**
 * The evidence of a custody breach (docs/spec/custody.md): a JSON object with the signed receipts, the sender's
 * mirror of the tree before it, the frame and what was expected, enough for a third party to recheck it with
 * {@link #verify(String)}.
 */
public final class CustodyBreach {

    /** The breach kinds, written in the evidence's {@code breach} member as {@link #word()}. */
    public enum Kind {
        SIGNATURE, FORMAT, PREV, FORK, MISSING, COUNTS, ROLLBACK;

        public String word() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The kind named by {@code word}, or null. */
        public static Kind ofWord(String word) {
            for (Kind k : values()) {
                if (k.word().equals(word)) {
                    return k;
                }
            }
            return null;
        }
    }

    /** What a recheck found: {@code holds} when the evidence shows the breach it names. */
    public record Verdict(boolean holds, Kind kind, String why) {
    }

    private CustodyBreach() {
    }

    /** Rechecks evidence JSON on its own: parses it, checks the signatures and recomputes the roots. */
    public static Verdict verify(String evidenceJson) {
        throw new UnsupportedOperationException();
    }
}
