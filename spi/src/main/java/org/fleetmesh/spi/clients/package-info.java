/** How the node tells clients apart for their budgets: {@link org.fleetmesh.spi.clients.ClientKeys}. */
package org.fleetmesh.spi.clients;
