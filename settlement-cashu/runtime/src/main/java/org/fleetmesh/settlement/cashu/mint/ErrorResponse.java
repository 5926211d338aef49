package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/** NUT-00 "Errors": the body of a mint's {@code 400}, {@code {"detail": "oops", "code": 1337}}. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ErrorResponse(@JsonProperty("detail") String detail, @JsonProperty("code") Integer code) {
    public ErrorResponse {
        Wire.required(detail, "detail");
        Wire.required(code, "code");
    }
}
