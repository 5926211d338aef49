/**
 * The Quarkus edge of shards: the declared shards setting ({@code FLEETMESH_SHARDS}), the bean that keeps a live index
 * per shard and publishes its claims, the admin routes under {@code /mesh/shards}.
 */
package org.fleetmesh.shards.quarkus;
