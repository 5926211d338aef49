/**
 * The Quarkus edge of {@code org.fleetmesh.standing}: its configuration ({@code fleetmesh.standing.*}), the runtime
 * that turns local evidence into findings, verifies the findings that arrive, broadcasts S2 and acts on the views, and
 * the {@code /mesh/standing} and {@code /mesh/findings} routes.
 */
package org.fleetmesh.standing.quarkus;
