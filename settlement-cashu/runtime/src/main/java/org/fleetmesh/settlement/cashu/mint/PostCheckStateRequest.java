package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/** NUT-07 {@code POST /v1/checkstate} body: the proofs' {@code Y = hash_to_curve(secret)}, 66 hex each. */
public record PostCheckStateRequest(@JsonProperty("Ys") List<String> ys) {
    public PostCheckStateRequest {
        ys = Wire.list(ys, "Ys");
    }
}
