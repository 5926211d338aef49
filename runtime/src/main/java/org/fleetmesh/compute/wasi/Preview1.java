package org.fleetmesh.compute.wasi;

import java.util.List;

import org.fleetmesh.spi.compute.Guest;
import org.fleetmesh.spi.compute.Host;
import org.fleetmesh.spi.compute.HostImport;

/**
 * fleetmesh's WASI preview 1 host for one run (docs/spec/compute-sandbox.md, "Host"): argv = "main" and the job's
 * arguments, no environment, stdin = the input, stdout and stderr captured (together at most the output limit), both
 * clocks pinned to the job's time, random from SHA-256(seed ‖ counter), no preopened directories; every other
 * preview1 function answers an errno. Each call charges fuel.
 */
public final class Preview1 implements Host {
    public static final String MODULE = "wasi_snapshot_preview1";

    public Preview1(List<String> args, byte[] stdin, long timeSeconds, byte[] seed, int outputLimit) {
    }

    /** Every preview1 function with its signature, in a fixed order. */
    public static List<HostImport> functions() {
        throw new UnsupportedOperationException("skeleton");
    }

    @Override
    public List<HostImport> imports() {
        return functions();
    }

    @Override
    public long[] call(int index, Guest guest, long[] args) {
        throw new UnsupportedOperationException("skeleton");
    }

    public byte[] stdout() {
        throw new UnsupportedOperationException("skeleton");
    }

    public byte[] stderr() {
        throw new UnsupportedOperationException("skeleton");
    }
}
