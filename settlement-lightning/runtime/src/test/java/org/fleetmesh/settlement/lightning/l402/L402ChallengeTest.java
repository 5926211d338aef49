package org.fleetmesh.settlement.lightning.l402;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Optional;

import org.fleetmesh.settlement.lightning.macaroon.Macaroon;
import org.fleetmesh.spi.settlement.Preimage;
import org.junit.jupiter.api.Test;

class L402ChallengeTest {
    final Macaroon token = L402Token.mint(L402TokenTest.ROOT, "fleetmesh", L402Identifier.random(Preimage.random().hash()),
            new L402Token.Terms(L402TokenTest.EXPIRY, L402TokenTest.FILTER, 5));
    final L402Challenge challenge = new L402Challenge(token, "lnbcrt10n1pexample");

    @Test
    void currentAndLegacyForms() {
        assertEquals("L402 version=\"0\", token=\"" + token.toBase64() + "\", invoice=\"lnbcrt10n1pexample\"", challenge.header());
        assertEquals("LSAT macaroon=\"" + token.toBase64() + "\", invoice=\"lnbcrt10n1pexample\"", challenge.legacyHeader());
        assertEquals(List.of(challenge.header(), challenge.legacyHeader()), challenge.headers());
    }

    @Test
    void clientReadsBothForms() {
        for (String h : challenge.headers()) {
            L402Challenge back = L402Challenge.parse(h).orElseThrow();
            assertArrayEquals(token.serialize(), back.macaroon().serialize());
            assertEquals("lnbcrt10n1pexample", back.invoice());
        }
        L402Challenge loose = L402Challenge.parse("l402   invoice=lnbcrt1,token=" + token.toBase64()).orElseThrow();
        assertEquals("lnbcrt1", loose.invoice());
        assertEquals(Optional.empty(), L402Challenge.parse("Bearer realm=\"x\""));
        assertThrows(IllegalArgumentException.class, () -> L402Challenge.parse("L402 version=\"1\", token=\"x\", invoice=\"y\""));
        assertThrows(IllegalArgumentException.class, () -> L402Challenge.parse("L402 invoice=\"y\""));
    }
}
