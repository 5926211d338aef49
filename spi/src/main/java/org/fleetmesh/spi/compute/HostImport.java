package org.fleetmesh.spi.compute;

import java.util.List;

/** A function the host offers to modules: import {@code module}.{@code name} with this signature. */
public record HostImport(String module, String name, List<ValType> params, List<ValType> results) {
    public HostImport {
        params = List.copyOf(params);
        results = List.copyOf(results);
    }
}
