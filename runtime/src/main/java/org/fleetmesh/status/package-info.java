/**
 * The operator's status page (docs/OPERATING.md, "Reading the status page"; docs/spec/mesh-link.md, "Status page"):
 * {@link org.fleetmesh.status.RateRing}, the last hour of counter samples turned into rates, and
 * {@link org.fleetmesh.status.StreamSlots}, the bound on concurrent status streams. The Quarkus edge,
 * {@code org.fleetmesh.status.quarkus}, serves {@code GET /mesh/}, its script and style, and the server-sent event
 * stream {@code GET /mesh/status/stream}.
 */
package org.fleetmesh.status;
