/**
 * Verification of compute results (docs/spec/compute-runtimes.md): which jobs a buyer re-executes ({@link
 * org.fleetmesh.compute.verify.Sampling}) and the re-execution itself over the node's sandbox.
 */
package org.fleetmesh.compute.verify;
