package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/** NUT-07 answer: one {@link ProofState} per requested Y, in the request's order. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PostCheckStateResponse(@JsonProperty("states") List<ProofState> states) {
    public PostCheckStateResponse {
        states = Wire.list(states, "states");
    }
}
