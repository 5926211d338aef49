/**
 * Bilateral grants (docs/spec/grants.md): the kind 30801 {@link org.fleetmesh.peering.grant.Grant} and its
 * {@link org.fleetmesh.peering.grant.GrantTerms}, and the {@link org.fleetmesh.peering.grant.TierPolicy} that starts
 * every unknown key in tier 0 and moves it by clean windows and violations. Pure: values in, values out.
 */
package org.fleetmesh.peering.grant;
