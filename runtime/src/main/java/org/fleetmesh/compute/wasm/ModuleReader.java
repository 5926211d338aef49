package org.fleetmesh.compute.wasm;

import java.util.List;

/** Reads a WebAssembly binary into its sections and function bodies (strict LEB128, bounded sizes). */
public final class ModuleReader {
    private ModuleReader() {
    }

    /** One section: its id and its payload's position in the module's bytes. */
    public record Section(int id, int start, int end) {
    }

    /** A read module. */
    public record Module(byte[] bytes, List<Section> sections) {
    }

    /** Throws {@link MalformedModule} saying what is wrong. */
    public static Module read(byte[] bytes) {
        throw new UnsupportedOperationException("skeleton");
    }

    /** Bytes that are not a well-formed module, and where. */
    public static final class MalformedModule extends RuntimeException {
        public MalformedModule(String message) {
            super(message, null, false, false);
        }
    }
}
