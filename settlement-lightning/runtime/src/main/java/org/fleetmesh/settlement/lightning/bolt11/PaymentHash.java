package org.fleetmesh.settlement.lightning.bolt11;

import org.fleetmesh.nostr.Hex;

/** The SHA-256 payment_hash (`p`) whose preimage proves payment. */
public final class PaymentHash extends ByteValue {
    public PaymentHash(byte[] bytes) {
        super(bytes, 32);
    }

    public static PaymentHash ofHex(String hex) {
        return new PaymentHash(Hex.decode(hex, 32));
    }
}
