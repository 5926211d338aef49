package org.fleetmesh.settlement.cashu.request;

import java.util.List;

/** NUT-18 transport {@code {"t": type, "a": target, "g"?: tags}}: e.g. {@code nostr} + nprofile, {@code post} + URL. */
public record Transport(String type, String target, List<List<String>> tags) {
    public static final String NOSTR = "nostr";
    public static final String POST = "post";

    public Transport {
        if (type == null || target == null) {
            throw new IllegalArgumentException("transport type and target are required");
        }
        tags = tags == null ? null : PaymentRequest.copyTags(tags);
    }
}
