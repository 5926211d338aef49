package org.fleetmesh.settlement.cashu.request;

import java.util.List;

/** NUT-18 {@code nut10}: the NUT-10 lock the payee asks for, {@code {"k": kind, "d": data, "t"?: tags}}. */
public record Nut10Option(String kind, String data, List<List<String>> tags) {
    public Nut10Option {
        if (kind == null || data == null) {
            throw new IllegalArgumentException("nut10 kind and data are required");
        }
        tags = tags == null ? null : PaymentRequest.copyTags(tags);
    }
}
