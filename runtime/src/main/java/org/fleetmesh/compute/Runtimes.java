package org.fleetmesh.compute;

import java.util.List;
import java.util.Optional;

import org.fleetmesh.spi.compute.ComputeRuntime;

/** The engines on the classpath ({@code ServiceLoader<ComputeRuntime>}), by id. */
public final class Runtimes {
    private Runtimes() {
    }

    /** Ids of every engine found, sorted. */
    public static List<String> ids() {
        throw new UnsupportedOperationException("skeleton");
    }

    public static Optional<ComputeRuntime> find(String id) {
        throw new UnsupportedOperationException("skeleton");
    }

    /** The engine {@code id}; IllegalArgumentException naming the known ids when there is none. */
    public static ComputeRuntime get(String id) {
        throw new UnsupportedOperationException("skeleton");
    }
}
