package org.fleetmesh.compute;

import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a job produced when it ran to its end (returned from {@code _start} or called {@code proc_exit}): the exit code,
 * stdout and stderr, the fuel it used, and the digests that name it (SHA-256 hex of the module as submitted, of stdin,
 * of stdout). {@link #toJson()} is the JSON of {@code meshnode compute run} and of the agent API's result.
 */
public record JobResult(int exitCode, byte[] stdout, byte[] stderr, long fuelUsed, String moduleHash,
        String inputDigest, String outputDigest) {

    /** {@code {"exit_code","stdout" (base64),"stderr" (base64),"fuel_used","module_hash","input_digest","output_digest"}}. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("exit_code", exitCode);
        m.put("stdout", Base64.getEncoder().encodeToString(stdout));
        m.put("stderr", Base64.getEncoder().encodeToString(stderr));
        m.put("fuel_used", fuelUsed);
        m.put("module_hash", moduleHash);
        m.put("input_digest", inputDigest);
        m.put("output_digest", outputDigest);
        return m;
    }
}
