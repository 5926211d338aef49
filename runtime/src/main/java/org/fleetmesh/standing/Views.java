package org.fleetmesh.standing;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/** Every subject's views, keyed by DID short form; a subject without findings is absent (both views 1.0). */
public record Views(Map<String, SubjectView> subjects) {
    public static final Views NONE = new Views(Map.of());

    public Views {
        subjects = Collections.unmodifiableMap(new TreeMap<>(subjects));
    }

    /** {@code view_transit} of a subject, 1.0 when nothing is known against it. */
    public double transit(String subject) {
        SubjectView v = subjects.get(subject);
        return v == null ? 1.0 : v.transit();
    }

    /** {@code view_compute} of a subject, 1.0 when nothing is known against it. */
    public double compute(String subject) {
        SubjectView v = subjects.get(subject);
        return v == null ? 1.0 : v.compute();
    }
}
