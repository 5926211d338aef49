/** The node's durable book of findings and the verdict it reached on each ({@link org.fleetmesh.spi.standing.StandingBook}). */
package org.fleetmesh.spi.standing;
