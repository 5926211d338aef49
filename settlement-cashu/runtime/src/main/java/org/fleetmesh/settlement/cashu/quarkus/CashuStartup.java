package org.fleetmesh.settlement.cashu.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.fleetmesh.settlement.cashu.rail.CashuRail;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;

/**
 * Makes the rail at start when Cashu is enabled, so that what a crash left open is resolved before anything else
 * (the bean is otherwise made on first use).
 */
@ApplicationScoped
public class CashuStartup {
    private static final Logger LOG = Logger.getLogger(CashuStartup.class);

    @Inject
    CashuConfig config;

    @Inject
    Instance<CashuRail> rail;

    void onStart(@Observes StartupEvent e) {
        if (!config.enabled()) {
            return;
        }
        try {
            rail.get();
        } catch (RuntimeException ex) {
            LOG.errorf("cashu: the rail could not be made: %s", ex.getMessage());
        }
    }
}
