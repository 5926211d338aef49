package org.fleetmesh.relay.quarkus;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.fleetmesh.spi.clients.ClientKeys;

/** The relay's {@link org.fleetmesh.relay.limits.ClientAddress} offered to adapters as the SPI's {@link ClientKeys}. */
@ApplicationScoped
public class ClientKeysBean implements ClientKeys {
    @Inject
    RelayRuntime relay;

    @Override
    public String header() {
        return relay.clientAddress().header();
    }

    @Override
    public String of(String remoteHost, List<String> headerValues) {
        return relay.clientAddress().of(remoteHost, headerValues);
    }
}
