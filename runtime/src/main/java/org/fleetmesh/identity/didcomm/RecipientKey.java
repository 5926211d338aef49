package org.fleetmesh.identity.didcomm;

import java.util.Objects;

import org.fleetmesh.identity.Multikey;

/** A recipient of an encrypted message: its key id (the {@code kid} of its {@code recipients} entry) and public key. */
public record RecipientKey(String kid, Multikey key) {
    public RecipientKey {
        Objects.requireNonNull(kid, "kid");
        Objects.requireNonNull(key, "key");
        if (!DidUrl.isKid(kid)) {
            throw new IllegalArgumentException("a recipient kid is a DID URL with a fragment, got '" + kid + "'");
        }
    }
}
