package org.fleetmesh.identity.quarkus;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;

import org.fleetmesh.identity.EndpointAnnouncement;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.relay.Origin;
import org.fleetmesh.relay.quarkus.RelayRuntime;
import org.fleetmesh.spi.storage.EventStore;
import org.jboss.logging.Logger;

import io.quarkus.vertx.http.HttpServerStart;

/**
 * Stores the node's endpoint announcement (kind 30802) through the relay's ingest once the HTTP port is bound, when
 * the stored one is missing or names other endpoints, so that REQ serves where the node is now.
 */
@ApplicationScoped
public class EndpointAnnouncer {
    private static final Logger LOG = Logger.getLogger(EndpointAnnouncer.class);

    @Inject
    NodeIdentity identity;

    @Inject
    NodeAddress address;

    @Inject
    RelayRuntime relays;

    @Inject
    EventStore store;

    void onHttpStart(@ObservesAsync HttpServerStart started) {
        try {
            announce();
        } catch (RuntimeException e) {
            LOG.error("could not store this node's endpoint announcement", e);
        }
    }

    /** Signs and stores a new announcement unless the stored one already says the same. */
    void announce() {
        NodeSecrets secrets = identity.secrets();
        NodeDidDocument node = NodeDidDocument.of(secrets.publicKeys(), address.endpoints());
        long now = System.currentTimeMillis() / 1000;
        Optional<EndpointAnnouncement> stored = stored(node, now);
        java.util.OptionalLong due = EndpointAnnouncement.due(stored, node.endpoints(), now);
        if (due.isEmpty()) {
            LOG.infof("endpoint announcement of %s is current (%s)", node.shortForm(), node.endpoints().mesh());
            return;
        }
        EndpointAnnouncement fresh = EndpointAnnouncement.sign(secrets, node, due.getAsLong());
        relays.relay().ingest().submit(List.of(fresh.event()), new Origin.Import()).thenAccept(outcomes -> {
            var o = outcomes.get(0);
            if (o.accepted()) {
                LOG.infof("stored endpoint announcement %s of %s: %s", o.id().hex(), node.shortForm(), node.endpoints());
            } else {
                LOG.errorf("this node's endpoint announcement was refused: %s", o.reason());
            }
        });
    }

    private Optional<EndpointAnnouncement> stored(NodeDidDocument node, long now) {
        Filter filter = new Filter(null, Set.of(node.keys().nostr()), Set.of(EndpointAnnouncement.KIND),
                Map.of("d", Set.of(node.shortForm())), null, null, 1);
        List<String> found = new ArrayList<>();
        store.query(filter, now, (id, json) -> {
            found.add(json);
            return false;
        });
        if (found.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(EndpointAnnouncement.verify(new MessageParser(MessageParser.Limits.DEFAULT)
                    .parseEvent(found.get(0))));
        } catch (ProtocolException | IllegalArgumentException e) {
            LOG.warnf("the stored endpoint announcement of %s does not verify (%s); replacing it", node.shortForm(),
                    e.getMessage());
            return Optional.empty();
        }
    }
}
