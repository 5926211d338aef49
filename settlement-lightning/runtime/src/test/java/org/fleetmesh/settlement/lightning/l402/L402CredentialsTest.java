package org.fleetmesh.settlement.lightning.l402;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import java.util.Optional;

import org.fleetmesh.settlement.lightning.macaroon.Macaroon;
import org.fleetmesh.spi.settlement.Preimage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class L402CredentialsTest {
    final Preimage preimage = Preimage.random();
    final Macaroon token = L402Token.mint(L402TokenTest.ROOT, "fleetmesh", L402Identifier.random(preimage.hash()),
            new L402Token.Terms(L402TokenTest.EXPIRY, L402TokenTest.FILTER, 5));
    final String b64 = token.toBase64();
    final String hex = preimage.revealHex();

    void assertReads(String header) {
        L402Credentials c = L402Credentials.parse(header).orElseThrow(() -> new AssertionError("not read: " + header));
        assertArrayEquals(token.serialize(), c.macaroon().serialize(), header);
        assertEquals(preimage, c.preimage(), header);
    }

    L402Refusal.Code refusal(String header) {
        return assertThrows(L402Refusal.class, () -> L402Credentials.parse(header), header).code();
    }

    @Test
    void everyAcceptedForm() {
        String urlSafe = b64.replace('+', '-').replace('/', '_').replace("=", "");
        String b64Preimage = Base64.getEncoder().encodeToString(preimage.toBytes());
        String b64UrlPreimage = Base64.getUrlEncoder().withoutPadding().encodeToString(preimage.toBytes());
        assertReads("L402 " + b64 + ":" + hex);
        assertReads("LSAT " + b64 + ":" + hex);
        assertReads("l402 " + b64 + ":" + hex);
        assertReads("Lsat " + b64 + ":" + hex);
        assertReads("  L402 \t " + b64 + ":" + hex + " \t");
        assertReads("L402 " + b64 + " : " + hex);
        assertReads("L402 \"" + b64 + ":" + hex + "\"");
        assertReads("L402 " + urlSafe + ":" + hex);
        assertReads("L402 " + b64 + ":" + hex.toUpperCase());
        assertReads("LSAT " + b64 + ":" + b64Preimage);
        assertReads("LSAT " + b64 + ":" + b64UrlPreimage);
        assertReads("L402 token=\"" + b64 + "\", preimage=\"" + hex + "\"");
        assertReads("L402 version=\"0\", token=\"" + b64 + "\", preimage=\"" + hex + "\"");
        assertReads("LSAT macaroon=\"" + b64 + "\",preimage=" + hex);
        assertReads("L402 Token = \"" + b64 + "\" ,  PREIMAGE=\"" + hex + "\"");
    }

    @Test
    void otherSchemesAndAbsentHeadersAreNoCredentials() {
        assertEquals(Optional.empty(), L402Credentials.parse(null));
        assertEquals(Optional.empty(), L402Credentials.parse(""));
        assertEquals(Optional.empty(), L402Credentials.parse("   "));
        assertEquals(Optional.empty(), L402Credentials.parse("Bearer abc"));
        assertEquals(Optional.empty(), L402Credentials.parse("Basic dXNlcjpwYXNz"));
        assertEquals(Optional.empty(), L402Credentials.parse("L402X " + b64 + ":" + hex));
    }

    @ParameterizedTest
    @ValueSource(strings = { "L402", "L402   ", "LSAT :", "L402 MAC", "L402 MAC:", "L402 :PRE", "L402 MAC:PRE:PRE",
            "L402 MAC,MAC:PRE", "L402 MAC:abcd", "L402 MAC:" + "ab", "L402 MAC:zz", "L402 token=\"MAC\"",
            "L402 preimage=\"PRE\"", "L402 token=\"MAC\", macaroon=\"MAC\", preimage=\"PRE\"",
            "L402 token=\"MAC, preimage=\"PRE\"", "L402 token=\"MAC\", token=\"MAC\", preimage=\"PRE\"",
            "L402 version=\"1\", token=\"MAC\", preimage=\"PRE\"", "L402 token=\"MAC\" preimage=\"PRE\"",
            "L402 token=\"MAC\", preimage=", "L402 \"MAC:PRE" })
    void malformedHeaders(String template) {
        String header = template.replace("MAC", b64).replace("PRE", hex);
        assertEquals(L402Refusal.Code.MALFORMED_AUTHORIZATION, refusal(header));
    }

    @Test
    void preimageOfWrongLengthOrControlCharacters() {
        assertEquals(L402Refusal.Code.MALFORMED_AUTHORIZATION, refusal("L402 " + b64 + ":" + hex.substring(2)));
        assertEquals(L402Refusal.Code.MALFORMED_AUTHORIZATION, refusal("L402 " + b64 + ":" + hex + "00"));
        assertEquals(L402Refusal.Code.MALFORMED_AUTHORIZATION,
                refusal("L402 " + b64.substring(0, 10) + (char) 1 + b64.substring(10) + ":" + hex));
    }

    @Test
    void nonAsciiDigitsInAHexPreimageAreMalformed() {
        // Character.digit accepts fullwidth '０'..'９', 'ａ'..'ｆ' and Arabic-Indic digits; HexFormat threw NumberFormatException
        assertEquals(L402Refusal.Code.MALFORMED_AUTHORIZATION, refusal("L402 " + b64 + ":" + "\uff10".repeat(64)));
        assertEquals(L402Refusal.Code.MALFORMED_AUTHORIZATION, refusal("L402 " + b64 + ":" + "\u0661".repeat(64)));
        assertEquals(L402Refusal.Code.MALFORMED_AUTHORIZATION,
                refusal("L402 token=\"" + b64 + "\", preimage=\"" + hex.substring(1) + "\uff41\""));
    }

    @Test
    void unreadableMacaroonIsABadToken() {
        assertEquals(L402Refusal.Code.BAD_TOKEN, refusal("L402 AgEEbHNhdA:" + hex));
        assertEquals(L402Refusal.Code.BAD_TOKEN, refusal("L402 !!!!:" + hex));
        assertEquals(L402Refusal.Code.BAD_TOKEN,
                refusal("L402 " + Base64.getEncoder().encodeToString(new byte[] { 2, 0, 0 }) + ":" + hex));
    }

    @Test
    void clientHeaderRoundTrips() {
        L402Credentials c = new L402Credentials(token, preimage);
        assertEquals("L402 " + b64 + ":" + hex, c.toHeader());
        assertReads(c.toHeader());
        assertTrue(!c.toString().contains(hex), "toString must not print the preimage");
    }
}
