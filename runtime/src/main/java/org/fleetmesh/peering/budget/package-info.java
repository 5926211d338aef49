/**
 * Budgets (docs/spec/grants.md): a {@link org.fleetmesh.peering.budget.Bucket} (GCRA) per peer, direction and
 * resource, grouped in a {@link org.fleetmesh.peering.budget.PeerBudget}, and
 * {@link org.fleetmesh.peering.budget.Violations} that say when a peer must be disconnected. Reserve before the work,
 * apply or release after, as Swarm bee's accounting does. Pure: the clock is a parameter.
 */
package org.fleetmesh.peering.budget;
