/**
 * The Quarkus edge of {@code org.fleetmesh.identity}: the key configuration ({@code fleetmesh.keys.*}), the node's
 * keys as a CDI bean, and the did:nostr well-known route. Everything they call is pure code in the parent package.
 */
package org.fleetmesh.identity.quarkus;
