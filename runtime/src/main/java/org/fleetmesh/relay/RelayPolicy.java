package org.fleetmesh.relay;

import java.net.URI;
import java.util.Optional;

/**
 * Who may do what (NIP-42).
 *
 * @param authRequiredReads REQ and COUNT need an authenticated pubkey
 * @param authRequiredWrites EVENT needs an authenticated pubkey
 * @param relayUrl this relay's public URL, which AUTH events must name; when absent, the host
 *        the client connected to must match the AUTH event's relay host
 * @param authWindowSeconds how far an AUTH event's created_at may be from now
 */
public record RelayPolicy(boolean authRequiredReads, boolean authRequiredWrites, Optional<URI> relayUrl,
        long authWindowSeconds) {

    public static final RelayPolicy OPEN = new RelayPolicy(false, false, Optional.empty(), 600);
}
