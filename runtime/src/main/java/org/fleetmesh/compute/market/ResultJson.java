package org.fleetmesh.compute.market;

import java.io.IOException;
import java.util.Base64;

import org.fleetmesh.compute.JobResult;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A {@link JobResult} as the sealed plaintext carries it: {@link JobResult#toJson()} written with its members in that
 * order, no whitespace (docs/spec/compute.md, "Sealed result").
 */
public final class ResultJson {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ResultJson() {
    }

    public static String write(JobResult r) {
        try {
            return JSON.writeValueAsString(r.toJson());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads it back; IllegalArgumentException says what is missing. */
    public static JobResult read(String json) {
        JsonNode n;
        try {
            n = JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("result: not JSON");
        }
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException("result: a JSON object");
        }
        try {
            return new JobResult(n.get("exit_code").asInt(), Base64.getDecoder().decode(n.get("stdout").asText()),
                    Base64.getDecoder().decode(n.get("stderr").asText()), n.get("fuel_used").asLong(),
                    n.get("module_hash").asText(), n.get("input_digest").asText(), n.get("output_digest").asText());
        } catch (NullPointerException | IllegalArgumentException e) {
            throw new IllegalArgumentException("result: exit_code, stdout, stderr, fuel_used, module_hash,"
                    + " input_digest and output_digest are required");
        }
    }
}
