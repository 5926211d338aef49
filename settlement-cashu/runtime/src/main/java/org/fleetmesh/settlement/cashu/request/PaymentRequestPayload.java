package org.fleetmesh.settlement.cashu.request;

import java.util.List;

import org.fleetmesh.settlement.cashu.nut.Proof;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * What a payer sends for a NUT-18 request: {@code {"id"?,"memo"?,"mint","unit","proofs"}}, read and written with
 * {@link org.fleetmesh.settlement.cashu.nut.Nut#json()}.
 */
@JsonPropertyOrder({ "id", "memo", "mint", "unit", "proofs" })
public record PaymentRequestPayload(
        @JsonProperty("id") String id,
        @JsonProperty("memo") String memo,
        @JsonProperty(value = "mint", required = true) String mint,
        @JsonProperty(value = "unit", required = true) String unit,
        @JsonProperty(value = "proofs", required = true) List<Proof> proofs) {

    public PaymentRequestPayload {
        if (mint == null || mint.isEmpty() || unit == null || unit.isEmpty()) {
            throw new IllegalArgumentException("payload mint and unit are required");
        }
        if (proofs == null || proofs.isEmpty() || proofs.stream().anyMatch(x -> x == null)) {
            throw new IllegalArgumentException("payload has no proofs");
        }
        if (proofs.size() > 10_000) {
            throw new IllegalArgumentException("payload has more than 10000 proofs");
        }
        proofs = List.copyOf(proofs);
    }
}
