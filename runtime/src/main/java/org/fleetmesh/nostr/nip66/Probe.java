package org.fleetmesh.nostr.nip66;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What one round of checks found at a relay: the round-trip times in milliseconds of the checks that completed
 * ({@code open}: the WebSocket connects; {@code read}: a REQ gets its EOSE; {@code write}: an EVENT gets its OK,
 * true or false), the relay's NIP-11 document when it served one, and why each other check failed.
 *
 * @param url the relay's normalized URL ({@link RelayUrl})
 */
public record Probe(String url, OptionalLong open, OptionalLong read, OptionalLong write, Optional<String> nip11,
        List<String> failures) {
    public Probe {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(open, "open");
        Objects.requireNonNull(read, "read");
        Objects.requireNonNull(write, "write");
        Objects.requireNonNull(nip11, "nip11");
        failures = List.copyOf(failures);
    }

    /** Whether the relay answered anything at all (a relay that did not is not described: there is nothing to say). */
    public boolean reached() {
        return open.isPresent() || nip11.isPresent();
    }
}
