/**
 * A node's identity as W3C DIDs, as pure code: DID strings and keys in, DID documents ({@code ObjectNode}) out.
 *
 * <ul>
 * <li>{@link org.fleetmesh.identity.Multikey} and {@link org.fleetmesh.identity.KeyType}: the node's three key types
 * (ed25519 transport, x25519 agreement, secp256k1 Nostr), each checked on the way in.</li>
 * <li>{@link org.fleetmesh.identity.DidKey}, {@link org.fleetmesh.identity.DidPeer} (numalgo 0),
 * {@link org.fleetmesh.identity.DidPeer2}, {@link org.fleetmesh.identity.DidPeer4},
 * {@link org.fleetmesh.identity.DidNostr}: one class per DID method, each creating and resolving its DIDs.</li>
 * <li>{@link org.fleetmesh.identity.DidResolver}: the offline resolver over all of them; failures are
 * {@link org.fleetmesh.identity.DidResolutionException}s named by W3C DID Resolution error.</li>
 * <li>{@link org.fleetmesh.identity.NodeDidDocument}: the node's own DIDs (from its
 * {@link org.fleetmesh.identity.NodeKeys} alone) and the documents it serves (plus its
 * {@link org.fleetmesh.identity.NodeEndpoints}).</li>
 * <li>{@link org.fleetmesh.identity.EndpointAnnouncement}: where the node is reached, as a signed kind 30802 event.</li>
 * </ul>
 * The encodings underneath (base58btc, multibase, multicodec, multihash) are in {@code multiformats}.
 */
package org.fleetmesh.identity;
