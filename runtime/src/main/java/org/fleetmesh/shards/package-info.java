/**
 * Shards (docs/spec/shards.md): the parts of the event space a node declares it holds, its kind 30803 claims (count,
 * Negentropy fingerprint and RFC 9162 root of the set), Negentropy reconciliation with peers over {@code /mesh} that
 * pulls the difference through the delivery path, and sampling that catches a peer withholding events from a shard it
 * asserts. Pure: the store's live indexes, the link, the delivery path and the clock come in as parameters; the
 * Quarkus edge is {@code org.fleetmesh.shards.quarkus}.
 */
package org.fleetmesh.shards;
