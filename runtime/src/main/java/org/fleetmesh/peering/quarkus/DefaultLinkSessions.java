package org.fleetmesh.peering.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

import org.fleetmesh.peering.LinkSessions;

import io.quarkus.arc.DefaultBean;

/** Until a link protocol is installed, an authenticated link answers every message {@code unsupported}. */
@ApplicationScoped
public class DefaultLinkSessions {

    @Produces
    @DefaultBean
    @ApplicationScoped
    LinkSessions unsupported() {
        return LinkSessions.UNSUPPORTED;
    }
}
