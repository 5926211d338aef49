package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.fleetmesh.settlement.cashu.nut.BlindedMessage;

import java.util.List;

/** NUT-04/23 {@code POST /v1/mint/bolt11} body. */
public record PostMintBolt11Request(@JsonProperty("quote") String quote,
                                    @JsonProperty("outputs") List<BlindedMessage> outputs) {
    public PostMintBolt11Request {
        Wire.required(quote, "quote");
        outputs = Wire.list(outputs, "outputs");
    }
}
