/**
 * The Quarkus edge of {@code org.fleetmesh.identity}: the key configuration ({@code fleetmesh.keys.*}), the node's
 * keys as a CDI bean, where the node is reached now, the DID and did:nostr well-known routes, and the
 * endpoint announcement stored at start. Everything they call is pure code in the parent package.
 */
package org.fleetmesh.identity.quarkus;
