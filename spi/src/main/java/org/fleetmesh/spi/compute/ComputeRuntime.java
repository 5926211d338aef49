package org.fleetmesh.spi.compute;

/**
 * A WebAssembly engine. Implementations are thread-safe: several runs may go at once, each with its own instance.
 * An engine may cache what it compiled per {@link Run#moduleHash()}.
 */
public interface ComputeRuntime {

    /** Stable id, as jobs and offers name it: {@code chicory}, {@code chicory-interpreter}, {@code wasmtime}. */
    String id();

    /**
     * Instantiates {@link Run#module()} with the host's functions, sets the fuel global to {@link Run#fuel()}, calls
     * {@code _start}, and reports how it ended. Never throws for anything the module does.
     */
    Ending run(Run run);
}
