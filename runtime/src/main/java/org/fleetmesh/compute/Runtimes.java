package org.fleetmesh.compute;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;

import org.fleetmesh.spi.compute.ComputeRuntime;

/**
 * The engines on the classpath ({@code ServiceLoader<ComputeRuntime>}, registered in
 * {@code META-INF/services/org.fleetmesh.spi.compute.ComputeRuntime}), by id. Loaded once; engines are thread-safe.
 */
public final class Runtimes {
    private static volatile Map<String, ComputeRuntime> byId;

    private Runtimes() {
    }

    private static Map<String, ComputeRuntime> all() {
        Map<String, ComputeRuntime> m = byId;
        if (m == null) {
            synchronized (Runtimes.class) {
                if (byId == null) {
                    Map<String, ComputeRuntime> found = new TreeMap<>();
                    ClassLoader cl = Thread.currentThread().getContextClassLoader();
                    for (ComputeRuntime r : ServiceLoader.load(ComputeRuntime.class,
                            cl != null ? cl : Runtimes.class.getClassLoader())) {
                        found.putIfAbsent(r.id(), r);
                    }
                    byId = found;
                }
                m = byId;
            }
        }
        return m;
    }

    /** Ids of every engine found, sorted. */
    public static List<String> ids() {
        return List.copyOf(all().keySet());
    }

    public static Optional<ComputeRuntime> find(String id) {
        return Optional.ofNullable(all().get(id));
    }

    /** The engine {@code id}; IllegalArgumentException naming the known ids when there is none. */
    public static ComputeRuntime get(String id) {
        return find(id).orElseThrow(() -> new IllegalArgumentException(
                "no compute runtime '" + id + "' (have: " + String.join(", ", ids()) + ")"));
    }
}
