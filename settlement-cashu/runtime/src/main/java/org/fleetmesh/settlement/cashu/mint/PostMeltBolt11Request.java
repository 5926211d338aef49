package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.fleetmesh.settlement.cashu.nut.BlindedMessage;
import org.fleetmesh.settlement.cashu.nut.Proof;

import java.util.List;

/**
 * NUT-05/23 {@code POST /v1/melt/bolt11} body with the NUT-08 blank {@code outputs} for fee change;
 * {@code outputs} is left out when there are none (a zero fee reserve needs no blank outputs).
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record PostMeltBolt11Request(@JsonProperty("quote") String quote,
                                    @JsonProperty("inputs") List<Proof> inputs,
                                    @JsonProperty("outputs") List<BlindedMessage> outputs) {
    public PostMeltBolt11Request {
        Wire.required(quote, "quote");
        inputs = Wire.list(inputs, "inputs");
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("a melt needs inputs");
        }
        outputs = Wire.optionalList(outputs, "outputs");
    }
}
