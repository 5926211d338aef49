package org.fleetmesh.adapters.quarkus;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.annotation.Priority;

import org.eclipse.microprofile.config.ConfigProvider;
import org.fleetmesh.adapters.BuiltAdapters;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;

/** Refuses to start a node whose settings switch on an adapter its build left out ({@link BuiltAdapters}). */
@ApplicationScoped
public class AdapterCheck {
    private static final Logger LOG = Logger.getLogger(AdapterCheck.class);

    void onStart(@Observes @Priority(1) StartupEvent e) {
        BuiltAdapters built = BuiltAdapters.parse(System.getProperty(BuiltAdapters.PROPERTY));
        List<String> problems = built.problems(key -> ConfigProvider.getConfig().getOptionalValue(key, String.class));
        if (!problems.isEmpty()) {
            throw new IllegalStateException("this build cannot run these settings: " + String.join("; ", problems));
        }
        LOG.debugf("adapters in this build: %s", built.capabilities());
    }
}
