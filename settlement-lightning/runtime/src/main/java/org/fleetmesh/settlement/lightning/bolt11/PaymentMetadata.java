package org.fleetmesh.settlement.lightning.bolt11;

import org.fleetmesh.nostr.Hex;

/** Opaque payment_metadata (`m`) the payer echoes back in the onion. */
public final class PaymentMetadata extends ByteValue {
    public PaymentMetadata(byte[] bytes) {
        super(bytes, -1);
    }

    public static PaymentMetadata ofHex(String hex) {
        return new PaymentMetadata(Hex.decodeLower(hex));
    }
}
