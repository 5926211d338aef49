/**
 * Standing: each subject's {@code view_transit} and {@code view_compute}, computed by this node alone from the
 * findings it verified, with its own weights and decay (docs/spec/standing.md), and the actions the views drive.
 */
package org.fleetmesh.standing;
