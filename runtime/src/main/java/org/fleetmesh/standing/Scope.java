package org.fleetmesh.standing;

/** What a finding is about: the peer as a carrier of events, or as a compute worker. Neither moves the other's view. */
public enum Scope {
    TRANSIT("transit"), COMPUTE("compute");

    private final String wire;

    Scope(String wire) {
        this.wire = wire;
    }

    /** The word in the {@code scope} tag. */
    public String wire() {
        return wire;
    }

    /** The scope written {@code word}, or null for anything else. */
    public static Scope parse(String word) {
        for (Scope s : values()) {
            if (s.wire.equals(word)) {
                return s;
            }
        }
        return null;
    }
}
