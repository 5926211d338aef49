package org.fleetmesh.compute.market;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import org.fleetmesh.spi.compute.JobEntry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A job as the agent API shows it (docs/spec/compute.md, "Agent API view"): {@code id, worker, state, job, price_msat,
 * rail, invoice, payment_hash, record, reexecuted, reexecution, error}; absent values are null.
 */
public final class JobView {
    private static final ObjectMapper JSON = new ObjectMapper();

    private JobView() {
    }

    public static Map<String, Object> of(JobEntry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", e.id());
        m.put("worker", e.role() == JobEntry.Role.BUYER ? e.peer() : "local");
        m.put("state", e.state());
        JsonNode request = tree(e.request());
        m.put("job", request == null ? null : JSON.convertValue(request.get("job"), Map.class));
        m.put("price_msat", e.priceMsat());
        m.put("rail", e.rail().isEmpty() ? null : e.rail()); // which rail the invoice is on (several may be)
        m.put("invoice", e.invoice().isEmpty() ? null : e.invoice());
        m.put("payment_hash", e.paymentHash().isEmpty() ? null : e.paymentHash());
        JsonNode sealed = tree(e.sealed());
        JsonNode record = sealed == null ? null : sealed.get("record");
        m.put("record", record == null || record.isNull() ? null : JSON.convertValue(record, Map.class));
        m.put("reexecuted", !e.reexecution().isEmpty());
        m.put("reexecution", e.reexecution().isEmpty() ? null : e.reexecution());
        m.put("error", e.error().isEmpty() ? null : e.error());
        return m;
    }

    static JsonNode tree(String json) {
        if (json == null || json.isEmpty()) {
            return null;
        }
        try {
            return JSON.readTree(json);
        } catch (IOException ex) {
            return null;
        }
    }
}
