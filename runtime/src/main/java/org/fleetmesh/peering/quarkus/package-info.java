/**
 * The Quarkus edge of {@code org.fleetmesh.peering}: the {@code /mesh} endpoint (websockets-next) and its
 * configuration ({@code fleetmesh.mesh.*}). The handshake, the link and its bounds are pure code in the parent package.
 */
package org.fleetmesh.peering.quarkus;
