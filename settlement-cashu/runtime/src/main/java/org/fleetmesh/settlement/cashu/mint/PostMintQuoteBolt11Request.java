package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/** NUT-23 {@code POST /v1/mint/quote/bolt11} body; {@code description} is optional and left out when null. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PostMintQuoteBolt11Request(@JsonProperty("amount") long amount,
                                         @JsonProperty("unit") String unit,
                                         @JsonProperty("description") String description) {
    public PostMintQuoteBolt11Request {
        if (amount <= 0) {
            throw new IllegalArgumentException("mint quote amount must be positive: " + amount);
        }
        Wire.required(unit, "unit");
    }
}
