package org.fleetmesh.settlement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;

import org.fleetmesh.spi.settlement.Invoice;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.PaymentResult;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.spi.settlement.SettlementException;
import org.junit.jupiter.api.Test;

class PreimageTest {
    static final String ZEROS = "00".repeat(32);

    @Test
    void hashIsSha256OfTheThirtyTwoBytes() {
        // SHA-256 of 32 zero bytes
        assertEquals("66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925",
                Preimage.ofHex(ZEROS).hash().hex());
    }

    @Test
    void toStringNeverShowsTheSecret() {
        Preimage k = Preimage.random();
        assertFalse(k.toString().contains(k.revealHex()));
        assertTrue(k.toString().contains(k.hash().hex()));
    }

    @Test
    void unlocksOnlyItsOwnHash() {
        Preimage k = Preimage.random();
        assertTrue(k.unlocks(k.hash()));
        assertFalse(Preimage.random().unlocks(k.hash()));
    }

    @Test
    void valuesAreThirtyTwoBytes() {
        assertThrows(IllegalArgumentException.class, () -> new Preimage(new byte[31]));
        assertThrows(IllegalArgumentException.class, () -> new PaymentHash(new byte[33]));
        assertThrows(IllegalArgumentException.class, () -> PaymentHash.ofHex("AB".repeat(32)));
    }

    @Test
    void paymentHashIsAValue() {
        PaymentHash h = Preimage.ofHex(ZEROS).hash();
        assertEquals(h, PaymentHash.ofHex(h.hex()));
        assertEquals(h.hashCode(), PaymentHash.ofHex(h.hex()).hashCode());
        byte[] b = h.toBytes();
        b[0] ^= 1;
        assertNotEquals(h, new PaymentHash(b));
    }

    @Test
    void invoiceNeedsAPositiveAmount() {
        PaymentHash h = Preimage.random().hash();
        assertThrows(IllegalArgumentException.class, () -> new Invoice("ln", "lnbc1", h, 0, Instant.EPOCH));
        assertTrue(new Invoice("ln", "lnbc1", h, 1, Instant.EPOCH).expired(Instant.EPOCH));
    }

    @Test
    void paymentResultCarriesAPreimageOrAReason() {
        assertTrue(PaymentResult.succeeded(Preimage.random(), 10).succeeded());
        PaymentResult f = PaymentResult.failed(SettlementException.Reason.NO_ROUTE, "no path");
        assertEquals(SettlementException.Reason.NO_ROUTE, f.failure().orElseThrow());
        assertTrue(f.preimage().isEmpty());
    }

    @Test
    void settlementExceptionNamesItsReason() {
        var e = new SettlementException(SettlementException.Reason.NOT_ACCEPTED, "nothing locked in");
        assertEquals(SettlementException.Reason.NOT_ACCEPTED, e.reason());
        assertTrue(e.getMessage().startsWith("NOT_ACCEPTED"));
    }
}
