package org.fleetmesh.relay.quarkus;

import org.jboss.logging.Logger;

import io.quarkus.arc.Arc;
import io.quarkus.runtime.shutdown.ShutdownListener;

/**
 * Quarkus's pre-shutdown phase, which runs before anything stops (the HTTP server, the WebSocket connections, the
 * beans): the relay tells each client it is going away (close 1001) while the connections are still open. A
 * {@code ShutdownEvent} observer is too late: by then the connections have been closed with 1000. Registered by the
 * deployment module's {@code ShutdownListenerBuildItem}.
 */
public final class GoingAwayListener implements ShutdownListener {
    private static final Logger LOG = Logger.getLogger(GoingAwayListener.class);

    @Override
    public void preShutdown(ShutdownNotification notification) {
        try {
            var relay = Arc.container().instance(RelayRuntime.class);
            if (relay.isAvailable()) {
                relay.get().goingAway();
            }
        } catch (RuntimeException e) {
            LOG.warnf("telling the clients the relay is going away failed: %s", e.toString());
        } finally {
            notification.done();
        }
    }
}
