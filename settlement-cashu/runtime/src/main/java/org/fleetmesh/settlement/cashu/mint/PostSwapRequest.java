package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.fleetmesh.settlement.cashu.nut.BlindedMessage;
import org.fleetmesh.settlement.cashu.nut.Proof;

import java.util.List;

/** NUT-03 {@code POST /v1/swap} body. */
public record PostSwapRequest(@JsonProperty("inputs") List<Proof> inputs,
                              @JsonProperty("outputs") List<BlindedMessage> outputs) {
    public PostSwapRequest {
        inputs = Wire.list(inputs, "inputs");
        outputs = Wire.list(outputs, "outputs");
    }
}
