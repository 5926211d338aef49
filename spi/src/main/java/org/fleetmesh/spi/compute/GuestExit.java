package org.fleetmesh.spi.compute;

/** The guest called WASI {@code proc_exit(code)}: the job ended normally with that exit code. */
public final class GuestExit extends RuntimeException {
    private final int code;

    public GuestExit(int code) {
        super("proc_exit(" + code + ")", null, false, false);
        this.code = code;
    }

    public int code() {
        return code;
    }
}
