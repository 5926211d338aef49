package org.fleetmesh.spi.compute;

/**
 * The running instance as a host function sees it: its exported memory {@code "memory"} (little-endian, as WebAssembly
 * is) and its fuel counter, the exported mutable i64 global {@link Metered#FUEL_GLOBAL}. An access outside the memory
 * throws {@link HostAbort} with {@link HostAbort.Reason#MEMORY_FAULT}.
 */
public interface Guest {

    /** The memory's current size in bytes. */
    long memorySize();

    byte[] read(int address, int length);

    void write(int address, byte[] bytes);

    int readI32(int address);

    void writeI32(int address, int value);

    void writeI64(int address, long value);

    /** Fuel left. */
    long fuel();

    void fuel(long left);
}
