package org.fleetmesh.identity.didcomm;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A received message with what protected it: its envelopes outermost first (empty for a bare plaintext), the
 * authcrypt sender's and the signer's key ids, the kids it was decrypted with, and the signed message as it
 * came, for showing to a third party.
 */
public record UnpackedMessage(PlaintextMessage message, List<Protection> envelopes, Optional<String> senderKid,
        Optional<String> signerKid, List<String> decryptedWith, Optional<String> signedMessage) {

    public UnpackedMessage {
        Objects.requireNonNull(message, "message");
        envelopes = List.copyOf(envelopes);
        decryptedWith = List.copyOf(decryptedWith);
    }

    public boolean anoncrypted() {
        return envelopes.contains(Protection.ANONCRYPT);
    }

    public boolean authcrypted() {
        return envelopes.contains(Protection.AUTHCRYPT);
    }

    public boolean signed() {
        return envelopes.contains(Protection.SIGNED);
    }

    public boolean encrypted() {
        return anoncrypted() || authcrypted();
    }

    /** Whether the {@code from} is proven: by authcrypt (to us) or by a signature (to anyone). */
    public boolean senderAuthenticated() {
        return authcrypted() || signed();
    }
}
