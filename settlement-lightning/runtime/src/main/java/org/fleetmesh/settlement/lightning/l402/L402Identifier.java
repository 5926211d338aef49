package org.fleetmesh.settlement.lightning.l402;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Arrays;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.spi.settlement.PaymentHash;

/**
 * The identifier of an L402 macaroon in the layout of Lightning Labs' aperture:
 * {@code version (uint16 big-endian, 0) || payment_hash (32 bytes) || token_id (32 bytes)}, 66 bytes.
 * The payment hash binds the token to one invoice; the token id makes every token unique.
 */
public final class L402Identifier {
    public static final int VERSION = 0;
    public static final int LENGTH = 2 + 32 + 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final PaymentHash paymentHash;
    private final byte[] tokenId;

    public L402Identifier(PaymentHash paymentHash, byte[] tokenId) {
        if (paymentHash == null) {
            throw new IllegalArgumentException("payment hash is required");
        }
        if (tokenId == null || tokenId.length != 32) {
            throw new IllegalArgumentException("a token id is 32 bytes");
        }
        this.paymentHash = paymentHash;
        this.tokenId = tokenId.clone();
    }

    /** A fresh identifier for {@code hash} with a random token id. */
    public static L402Identifier random(PaymentHash hash) {
        byte[] id = new byte[32];
        RANDOM.nextBytes(id);
        return new L402Identifier(hash, id);
    }

    public byte[] encode() {
        return ByteBuffer.allocate(LENGTH).putShort((short) VERSION).put(paymentHash.toBytes()).put(tokenId).array();
    }

    /** Reads the 66-byte layout; throws {@link IllegalArgumentException} with the rule that failed. */
    public static L402Identifier decode(byte[] raw) {
        if (raw == null || raw.length < 2) {
            throw new IllegalArgumentException("identifier too short for a version");
        }
        int version = ((raw[0] & 0xff) << 8) | (raw[1] & 0xff);
        if (version != VERSION) {
            throw new IllegalArgumentException("unsupported identifier version " + version);
        }
        if (raw.length != LENGTH) {
            throw new IllegalArgumentException("identifier is " + raw.length + " bytes, version 0 has " + LENGTH);
        }
        return new L402Identifier(new PaymentHash(Arrays.copyOfRange(raw, 2, 34)), Arrays.copyOfRange(raw, 34, 66));
    }

    public PaymentHash paymentHash() {
        return paymentHash;
    }

    public byte[] tokenId() {
        return tokenId.clone();
    }

    public String tokenIdHex() {
        return Hex.encode(tokenId);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof L402Identifier i && paymentHash.equals(i.paymentHash) && Arrays.equals(tokenId, i.tokenId);
    }

    @Override
    public int hashCode() {
        return paymentHash.hashCode() * 31 + Arrays.hashCode(tokenId);
    }

    @Override
    public String toString() {
        return "L402Identifier[v0, hash=" + paymentHash.hex() + ", token=" + tokenIdHex() + "]";
    }
}
