/**
 * Capability tokens (docs/spec/capabilities.md): Biscuit v2 tokens rooted in the node's Ed25519 transport key
 * that let a worker or an operator tool use a node without holding any of its keys.
 *
 * <ul>
 * <li>{@link org.fleetmesh.identity.capability.CapabilityIssuer} issues a token for a subject, its
 * {@link org.fleetmesh.identity.capability.Rights} (the {@link org.fleetmesh.identity.capability.Right} vocabulary,
 * compute with a fuel limit) and an expiry.</li>
 * <li>{@link org.fleetmesh.identity.capability.Capability#attenuate} lets a holder narrow a token offline with an
 * {@link org.fleetmesh.identity.capability.Attenuation}: one more block of checks.</li>
 * <li>{@link org.fleetmesh.identity.capability.CapabilityVerifier} allows a
 * {@link org.fleetmesh.identity.capability.CapabilityRequest} into an
 * {@link org.fleetmesh.identity.capability.Authorization} or refuses it with a
 * {@link org.fleetmesh.identity.capability.CapabilityException} naming the reason; it knows the root from the key,
 * the node's DID document or a DID, and revoked tokens from a
 * {@link org.fleetmesh.identity.capability.RevocationList}.</li>
 * </ul>
 */
package org.fleetmesh.identity.capability;
