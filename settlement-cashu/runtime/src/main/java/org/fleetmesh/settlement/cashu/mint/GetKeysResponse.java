package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.fleetmesh.settlement.cashu.nut.Keyset;

import java.util.List;

/** NUT-01/02 answer to {@code GET /v1/keys}, {@code GET /v1/keys/{id}} and (without keys) {@code GET /v1/keysets}. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record GetKeysResponse(@JsonProperty("keysets") List<Keyset> keysets) {
    public GetKeysResponse {
        keysets = Wire.list(keysets, "keysets");
    }
}
