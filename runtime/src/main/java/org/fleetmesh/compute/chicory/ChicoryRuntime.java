package org.fleetmesh.compute.chicory;

import org.fleetmesh.spi.compute.ComputeRuntime;
import org.fleetmesh.spi.compute.Ending;
import org.fleetmesh.spi.compute.Run;

/**
 * The pure-Java engine on Chicory 1.7.5: id {@code chicory} compiles each module to JVM bytecode with Chicory's
 * runtime compiler (compiled machines cached per module hash, bounded), id {@code chicory-interpreter} interprets.
 */
public class ChicoryRuntime implements ComputeRuntime {
    public static final String ID = "chicory";
    public static final String INTERPRETER_ID = "chicory-interpreter";

    private final boolean compiled;

    /** The compiling engine ({@code chicory}). */
    public ChicoryRuntime() {
        this(true);
    }

    protected ChicoryRuntime(boolean compiled) {
        this.compiled = compiled;
    }

    @Override
    public String id() {
        return compiled ? ID : INTERPRETER_ID;
    }

    @Override
    public Ending run(Run run) {
        throw new UnsupportedOperationException("skeleton");
    }
}
