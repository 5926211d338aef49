package org.fleetmesh.shards;

import java.util.Objects;

import org.fleetmesh.nostr.Filter;

/**
 * A declared shard: a stable id (the claim's {@code d} tag), a deterministic NIP-01 filter (no {@code limit}) and a
 * mode. Two nodes hold the same shard when both id and filter are equal (the filter compared in its canonical form).
 */
public record Shard(String id, Filter filter, Mode mode) {

    /** What the node promises about the shard. */
    public enum Mode {
        /** The node promises completeness: a peer may sample it and a missing event is withholding (S2). */
        ASSERTED("asserted"),
        /** Best effort: replicated, never sampled for withholding. */
        REPLICATED("replicated");

        private final String word;

        Mode(String word) {
            this.word = word;
        }

        /** The mode as written in configuration and in the claim's {@code mode} tag. */
        public String word() {
            return word;
        }

        /** The mode named {@code word}, or null when there is none. */
        public static Mode of(String word) {
            for (Mode m : values()) {
                if (m.word.equals(word)) {
                    return m;
                }
            }
            return null;
        }
    }

    public Shard {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(mode, "mode");
    }
}
