/**
 * The relay-to-relay peer link at {@code /mesh} (docs/spec/mesh-link.md).
 *
 * <ul>
 * <li>Pure protocol: {@link org.fleetmesh.peering.MeshHandshake} (one side's state machine of the mutual
 * authentication), its messages ({@link org.fleetmesh.peering.MeshHello}, {@link org.fleetmesh.peering.MeshAuth},
 * {@link org.fleetmesh.peering.MeshOk}, {@link org.fleetmesh.peering.MeshErr}), the signed
 * {@link org.fleetmesh.peering.Transcript}, {@link org.fleetmesh.peering.SeenProofs} (the replay cache) and the
 * outcome, a {@link org.fleetmesh.peering.PeerIdentity} or a {@link org.fleetmesh.peering.Refusal}.</li>
 * <li>{@link org.fleetmesh.peering.MeshLink}: one connection, driving a handshake over any socket.</li>
 * <li>Edges: {@link org.fleetmesh.peering.quarkus.MeshEndpoint} (websockets-next, the responder, with its
 * {@link org.fleetmesh.peering.quarkus.MeshConfig} in {@code peering.quarkus}) and
 * {@link org.fleetmesh.peering.MeshClient} (Vert.x, the initiator).</li>
 * </ul>
 */
package org.fleetmesh.peering;
