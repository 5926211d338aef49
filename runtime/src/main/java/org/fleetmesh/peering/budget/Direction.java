package org.fleetmesh.peering.budget;

/** Which way the traffic a budget meters flows, seen from this node. */
public enum Direction {
    /** From the peer to this node: held to the grant this node gave. */
    IN,
    /** From this node to the peer: paced by the grant the peer gave. */
    OUT
}
