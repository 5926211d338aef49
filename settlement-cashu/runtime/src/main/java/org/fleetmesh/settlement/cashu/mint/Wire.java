package org.fleetmesh.settlement.cashu.mint;

import java.util.List;

/** Checks shared by the message records: a mint's answer that lacks a field the NUT requires is malformed. */
final class Wire {
    private Wire() {
    }

    static <T> T required(T value, String field) {
        if (value == null) {
            throw new IllegalArgumentException("missing \"" + field + "\"");
        }
        return value;
    }

    static long nonNegative(Long value, String field) {
        long v = required(value, field);
        if (v < 0) {
            throw new IllegalArgumentException("negative \"" + field + "\": " + v);
        }
        return v;
    }

    /** A required array: null is refused, elements must not be null; the copy is immutable. */
    static <T> List<T> list(List<T> value, String field) {
        required(value, field);
        for (T t : value) {
            if (t == null) {
                throw new IllegalArgumentException("null element in \"" + field + "\"");
            }
        }
        return List.copyOf(value);
    }

    /** An optional array: absent or null reads as empty. */
    static <T> List<T> optionalList(List<T> value, String field) {
        return value == null ? List.of() : list(value, field);
    }
}
