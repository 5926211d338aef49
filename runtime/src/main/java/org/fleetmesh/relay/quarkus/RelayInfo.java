package org.fleetmesh.relay.quarkus;

import org.fleetmesh.relay.RelayLimits;

import java.util.List;

import org.fleetmesh.identity.EndpointAnnouncement;
import org.fleetmesh.peering.grant.Grant;
import org.fleetmesh.peering.grant.Tier;
import org.fleetmesh.peering.grant.TierPolicy;
import org.fleetmesh.relay.limits.ClientLimits;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The NIP-11 relay information document. */
final class RelayInfo {
    static final List<Integer> SUPPORTED_NIPS = List.of(1, 9, 11, 40, 42, 45, 59, 66, 70, 77);

    private RelayInfo() {
    }

    /** @param self the node's own Nostr pubkey (hex): NIP-11 {@code self}; {@code pubkey} is the operator's */
    static String document(ObjectMapper mapper, RelayConfig config, RelayLimits limits, String self, String version) {
        return document(mapper, config, limits, ClientLimits.OFF, self, version);
    }

    /** @param clients the budgets plain clients are held to: their tiers go in the {@code fleetmesh} object */
    static String document(ObjectMapper mapper, RelayConfig config, RelayLimits limits, ClientLimits clients, String self,
            String version) {
        ObjectNode doc = mapper.createObjectNode();
        doc.put("name", config.name());
        doc.put("description", config.description());
        config.pubkey().ifPresent(p -> doc.put("pubkey", p));
        doc.put("self", self);
        config.contact().ifPresent(c -> doc.put("contact", c));
        config.icon().ifPresent(i -> doc.put("icon", i));
        SUPPORTED_NIPS.forEach(doc.putArray("supported_nips")::add);
        config.software().ifPresent(u -> doc.put("software", u));
        doc.put("version", version);
        ObjectNode l = doc.putObject("limitation");
        l.put("max_message_length", limits.maxMessageLength());
        l.put("max_subscriptions", maxSubscriptions(limits, clients));
        l.put("max_filters", limits.maxFilters());
        l.put("max_limit", limits.maxLimit());
        l.put("default_limit", limits.defaultLimit());
        l.put("max_subid_length", 64);
        l.put("max_event_tags", limits.maxEventTags());
        l.put("max_content_length", limits.maxContentLength());
        l.put("min_pow_difficulty", 0);
        l.put("auth_required", config.authRequiredReads() || config.authRequiredWrites());
        l.put("payment_required", false);
        l.put("restricted_writes", config.authRequiredWrites());
        if (limits.createdAtLowerSkew() > 0) {
            l.put("created_at_lower_limit", limits.createdAtLowerSkew());
        }
        l.put("created_at_upper_limit", limits.createdAtUpperSkew());
        doc.set("fleetmesh", fleetmesh(mapper, clients));
        return doc.toString();
    }

    /**
     * NIP-11 {@code max_subscriptions}, "total number of subscriptions that may be active on a single websocket
     * connection": with client limits on, a fresh client (tier 0) holds at most its tier's concurrent subscriptions,
     * counted over its address's connections, so the relay advertises the smaller of the two bounds (a client that
     * climbs gets more, as NIP-11 allows: "may have higher limits").
     */
    static int maxSubscriptions(RelayLimits limits, ClientLimits clients) {
        int perConnection = limits.maxSubscriptions();
        return clients.isOn() ? Math.min(perConnection, clients.policy().tier(0).subscriptions()) : perConnection;
    }

    /** This node's own part: the kinds it speaks and, when client limits are on, the tiers clients climb. */
    static ObjectNode fleetmesh(ObjectMapper mapper, ClientLimits clients) {
        ObjectNode f = mapper.createObjectNode();
        ObjectNode kinds = f.putObject("kinds");
        kinds.put("grant", Grant.KIND);
        kinds.put("endpoint", EndpointAnnouncement.KIND);
        kinds.put("claim", org.fleetmesh.shards.Claim.KIND);
        kinds.put("receipt", org.fleetmesh.delivery.log.Receipt.KIND);
        kinds.put("finding", org.fleetmesh.standing.Finding.KIND);
        kinds.put("offer", org.fleetmesh.compute.market.Offer.KIND);
        kinds.put("job", org.fleetmesh.compute.market.JobRecord.KIND);
        ObjectNode c = f.putObject("client_limits");
        c.put("enabled", clients.isOn());
        if (clients.isOn()) {
            TierPolicy p = clients.policy();
            c.put("keyed_by", "source address and pubkey");
            c.put("window_seconds", p.windowSeconds());
            c.put("climb_after_clean_windows", p.cleanWindowsToClimb());
            ArrayNode tiers = c.putArray("tiers");
            for (Tier t : p.tiers()) {
                ObjectNode o = tiers.addObject();
                o.put("tier", t.level());
                o.put("bytes", t.bytesPerWindow());
                o.put("events", t.eventsPerWindow());
                o.put("reqs", t.reqsPerWindow());
                o.put("subscriptions", t.subscriptions());
            }
        }
        return f;
    }
}
