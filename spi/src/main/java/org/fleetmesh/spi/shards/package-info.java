/** The durable list of shards a node declares ({@link org.fleetmesh.spi.shards.ShardBook}). */
package org.fleetmesh.spi.shards;
