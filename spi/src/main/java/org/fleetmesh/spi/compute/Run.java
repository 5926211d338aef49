package org.fleetmesh.spi.compute;

import java.time.Duration;

/**
 * One execution: an admitted, metered module ({@code module}, WebAssembly binary), the memory cap in 64 KiB pages
 * (the engine refuses growth past it and instantiates no module declaring more), the host, the fuel to start with,
 * and the wall-clock limit after which the engine stops the instance.
 */
public record Run(byte[] module, String moduleHash, int maxMemoryPages, Host host, long fuel, Duration timeout) {
}
