/**
 * The Quarkus edge of {@code org.fleetmesh.delivery}: its configuration ({@code fleetmesh.delivery.*},
 * {@code FLEETMESH_FEDERATE}) and the bean that builds the node's {@code Delivery} over its store, ingest and ledgers.
 * The link sessions ({@code peering.quarkus}) install it on every link; the admin API reaches it for per-peer filters
 * and resuming a halted peer.
 */
package org.fleetmesh.delivery.quarkus;
