package org.fleetmesh.compute.chicory;

/** Chicory's interpreter ({@code chicory-interpreter}): no compilation step, slower per instruction. */
public final class ChicoryInterpreter extends ChicoryRuntime {
    public ChicoryInterpreter() {
        super(false);
    }
}
