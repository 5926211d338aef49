/**
 * Plain Nostr clients held to budgets (docs/spec/relay.md, "Client limits"): per source address and per pubkey,
 * events, bytes and REQs per window and concurrent subscriptions, at a tier that starts at 0 for a key the node has
 * not seen and climbs after clean windows ({@link org.fleetmesh.peering.grant.TierPolicy}), over GCRA buckets
 * ({@link org.fleetmesh.peering.budget.Bucket}). Every map of keys is bounded. Pure: the clock is a parameter.
 */
package org.fleetmesh.relay.limits;
