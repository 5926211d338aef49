/**
 * The compute runtime SPI (docs/spec/compute.md): what a WebAssembly engine implements so that fleetmesh can run
 * compute/1.0 jobs on it. The core admits and meters a module, and supplies the WASI preview 1 host; an engine only
 * instantiates the metered module with the host's imports, runs its {@code _start}, and reports how it ended. Every
 * engine therefore sees the same bytes and the same host, which is what makes {@code fuel_used} identical across them.
 */
package org.fleetmesh.spi.compute;
