package org.fleetmesh.spi.compute;

/**
 * How a run ended. {@code fuel} and {@code flags} are the values of the exported globals {@link Metered#FUEL_GLOBAL} and
 * {@link Metered#FLAGS_GLOBAL} when it ended (read after a trap too), {@code exitCode} is meaningful for RETURNED (0)
 * and EXITED, {@code detail} says what trapped or aborted.
 */
public record Ending(Kind kind, int exitCode, long fuel, int flags, HostAbort.Reason abort, String detail) {
    public enum Kind {
        /** {@code _start} returned: exit code 0. */
        RETURNED,
        /** The guest called {@code proc_exit}. */
        EXITED,
        /** The instance trapped (unreachable, out-of-bounds access, division by zero, stack overflow, ...). */
        TRAPPED,
        /** A host function threw {@link HostAbort}: see {@code abort}. */
        ABORTED,
        /** The wall-clock limit passed. */
        TIMEOUT,
        /** The engine could not instantiate the module (e.g. memory over the cap, link error): {@code detail}. */
        NOT_INSTANTIATED
    }
}
