package org.fleetmesh.peering;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The {@code /mesh/status} document (docs/spec/mesh-link.md, "Status"): this node's DID and Nostr key, and per peer
 * {@code did, url, state, since, rtt_ms, tier, grant_in, grant_out, used, violations, strain}, the last six from the
 * node's link sessions ({@link LinkSessions#describe}) and null when they say nothing, then what operators need
 * besides ({@code declared, links, role, duplicates, quarantined_until, last_error}).
 */
public final class MeshStatus {
    /** Members the link sessions fill; written as null when absent. */
    public static final List<String> DESCRIBED = List.of("tier", "grant_in", "grant_out", "used", "violations", "strain");

    private MeshStatus() {
    }

    public static ObjectNode of(String did, String pubkey, List<PeerLinks.View> peers, LinkSessions sessions) {
        ObjectNode root = MeshJson.object();
        root.put("did", did);
        root.put("pubkey", pubkey);
        ArrayNode list = root.putArray("peers");
        for (PeerLinks.View v : peers) {
            ObjectNode p = list.addObject();
            p.put("did", v.peerKey());
            if (v.url().isPresent()) {
                p.put("url", v.url().get().toString());
            } else {
                p.putNull("url");
            }
            p.put("state", v.state().word());
            p.put("since", v.since().toString());
            if (v.rttMillis().isPresent()) {
                p.put("rtt_ms", Math.round(v.rttMillis().get() * 1000) / 1000.0);
            } else {
                p.putNull("rtt_ms");
            }
            Map<String, Object> described = new LinkedHashMap<>();
            try {
                sessions.describe(v.peerKey(), described);
            } catch (RuntimeException e) {
                described.put("describe_error", e.toString());
            }
            for (String key : DESCRIBED) {
                p.set(key, MeshJson.MAPPER.valueToTree(described.get(key)));
            }
            described.forEach((k, value) -> {
                if (!DESCRIBED.contains(k) && !p.has(k)) {
                    p.set(k, MeshJson.MAPPER.valueToTree(value));
                }
            });
            p.put("declared", v.declared());
            if (!v.key().equals(v.peerKey())) {
                p.put("declared_did", v.key());
            }
            p.put("links", v.links());
            if (v.role().isPresent()) {
                p.put("role", v.role().get().label());
            } else {
                p.putNull("role");
            }
            p.put("duplicates", v.duplicates());
            if (v.quarantinedUntil().isPresent()) {
                p.put("quarantined_until", v.quarantinedUntil().get().toString());
            } else {
                p.putNull("quarantined_until");
            }
            if (v.lastError().isPresent()) {
                p.put("last_error", v.lastError().get());
            } else {
                p.putNull("last_error");
            }
        }
        return root;
    }
}
