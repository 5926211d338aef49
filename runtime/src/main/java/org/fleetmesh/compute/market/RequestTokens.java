package org.fleetmesh.compute.market;

import java.time.Instant;
import java.util.List;

import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.identity.capability.CapabilityRequest;
import org.fleetmesh.identity.capability.CapabilityVerifier;

/**
 * A request's capability token (docs/spec/compute.md, "Capability tokens"): it must verify against the DID document
 * of one of the roots the worker honours and grant {@code compute:run} for the job's fuel limit at the time.
 */
public final class RequestTokens {

    private RequestTokens() {
    }

    /** Null when {@code token} grants the fuel under one of {@code roots}; else why not (the last root's reason). */
    public static String problem(String token, long fuel, List<String> roots, DidResolver resolver, Instant now) {
        String why = "no root DID to verify the token against";
        for (String root : roots) {
            try {
                CapabilityVerifier.forDid(root, resolver).authorize(token, CapabilityRequest.compute(fuel, now));
                return null;
            } catch (RuntimeException e) {
                why = String.valueOf(e.getMessage());
            }
        }
        return why;
    }
}
