package org.fleetmesh.standing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The {@code GET /mesh/standing} document (docs/spec/standing.md, "The standing document"): per subject its DID, Nostr
 * key, both views, and the findings counted and ignored, with at most {@code maxDetails} of them listed (counted first,
 * heaviest first; then ignored, newest first), each with its weight or why it weighs nothing.
 */
public final class StandingDocument {
    private static final ObjectMapper JSON = new ObjectMapper();

    private StandingDocument() {
    }

    public static ObjectNode of(Views views, int maxDetails) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode subjects = root.putArray("subjects");
        for (SubjectView v : views.subjects().values()) {
            ObjectNode s = subjects.addObject();
            s.put("did", v.subject());
            if (v.pubkey() == null) {
                s.putNull("pubkey");
            } else {
                s.put("pubkey", v.pubkey());
            }
            s.put("view_transit", v.transit());
            s.put("view_compute", v.compute());
            ObjectNode findings = s.putObject("findings");
            findings.put("counted", v.counted().size());
            findings.put("ignored", v.ignored().size());
            ArrayNode details = findings.putArray("details");
            for (Counted c : v.counted()) {
                if (details.size() >= maxDetails) {
                    break;
                }
                ObjectNode d = detail(details, c.eventId(), c.observer(), c.severity(), c.scope(), c.rule(), c.verdict());
                d.put("counted", true);
                d.put("weight", c.weight());
            }
            for (Ignored i : v.ignored()) {
                if (details.size() >= maxDetails) {
                    break;
                }
                ObjectNode d = detail(details, i.eventId(), i.observer(), i.severity(), i.scope(), i.rule(), i.verdict());
                d.put("counted", false);
                d.put("why", i.why());
            }
        }
        return root;
    }

    private static ObjectNode detail(ArrayNode details, String id, String observer, String severity, String scope,
            String rule, String verdict) {
        ObjectNode d = details.addObject();
        d.put("id", id);
        d.put("observer", observer);
        d.put("severity", severity);
        d.put("scope", scope);
        d.put("rule", rule);
        d.put("verdict", verdict);
        return d;
    }
}
