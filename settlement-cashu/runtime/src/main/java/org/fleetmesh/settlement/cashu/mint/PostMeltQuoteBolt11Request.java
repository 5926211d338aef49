package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonProperty;

/** NUT-23 {@code POST /v1/melt/quote/bolt11} body: the invoice to pay and the unit to pay it with. */
public record PostMeltQuoteBolt11Request(@JsonProperty("request") String request,
                                         @JsonProperty("unit") String unit) {
    public PostMeltQuoteBolt11Request {
        Wire.required(request, "request");
        Wire.required(unit, "unit");
    }
}
