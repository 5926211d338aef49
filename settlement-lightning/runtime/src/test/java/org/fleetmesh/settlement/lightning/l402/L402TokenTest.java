package org.fleetmesh.settlement.lightning.l402;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import org.fleetmesh.settlement.lightning.macaroon.Caveat;
import org.fleetmesh.settlement.lightning.macaroon.Macaroon;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.Preimage;
import org.junit.jupiter.api.Test;

class L402TokenTest {
    static final byte[] ROOT = filled(32, 0x5a);
    static final String FILTER = "ab".repeat(32);
    static final long EXPIRY = 1_800_000_000L;

    static byte[] filled(int n, int v) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) v);
        return b;
    }

    final Preimage preimage = Preimage.random();
    final L402Identifier id = L402Identifier.random(preimage.hash());
    final Macaroon token = L402Token.mint(ROOT, "fleetmesh", id, new L402Token.Terms(EXPIRY, FILTER, 7));

    L402Token.Verified verify(Macaroon m, Preimage p, long now, String filter) {
        return L402Token.verify(new L402Credentials(m, p), ROOT, now, filter);
    }

    L402Refusal.Code refusal(Macaroon m, Preimage p, long now, String filter) {
        return assertThrows(L402Refusal.class, () -> verify(m, p, now, filter)).code();
    }

    @Test
    void identifierLayoutByteForByte() {
        byte[] hash = new byte[32];
        byte[] tokenId = new byte[32];
        for (int i = 0; i < 32; i++) {
            hash[i] = (byte) (i + 1);
            tokenId[i] = (byte) (0xa0 + i);
        }
        byte[] raw = new L402Identifier(new PaymentHash(hash), tokenId).encode();
        assertEquals(66, raw.length);
        assertEquals(0, raw[0]);
        assertEquals(0, raw[1]);
        assertArrayEquals(hash, Arrays.copyOfRange(raw, 2, 34));
        assertArrayEquals(tokenId, Arrays.copyOfRange(raw, 34, 66));
        L402Identifier back = L402Identifier.decode(raw);
        assertEquals(new PaymentHash(hash), back.paymentHash());
        assertArrayEquals(tokenId, back.tokenId());
    }

    @Test
    void identifierRefusesOtherVersionsAndLengths() {
        byte[] raw = id.encode();
        raw[1] = 1;
        assertEquals("unsupported identifier version 1",
                assertThrows(IllegalArgumentException.class, () -> L402Identifier.decode(raw)).getMessage());
        byte[] big = id.encode();
        big[0] = 1;
        assertThrows(IllegalArgumentException.class, () -> L402Identifier.decode(big));
        assertThrows(IllegalArgumentException.class, () -> L402Identifier.decode(Arrays.copyOf(id.encode(), 65)));
        assertThrows(IllegalArgumentException.class, () -> L402Identifier.decode(Arrays.copyOf(id.encode(), 67)));
        assertThrows(IllegalArgumentException.class, () -> L402Identifier.decode(new byte[1]));
    }

    @Test
    void randomTokenIdsDiffer() {
        PaymentHash h = preimage.hash();
        assertEquals(false, Arrays.equals(L402Identifier.random(h).tokenId(), L402Identifier.random(h).tokenId()));
    }

    @Test
    void mintedTokenCarriesIdentifierAndCaveatsThroughBase64() {
        Macaroon back = Macaroon.fromBase64(token.toBase64());
        assertArrayEquals(id.encode(), back.identifier());
        assertEquals("fleetmesh", back.location());
        assertEquals(List.of("expiry=" + EXPIRY, "filter=" + FILTER, "quota=7"),
                back.caveats().stream().map(Caveat::predicate).toList());
        assertEquals(2, back.serialize()[0]);
        // URL-safe without padding reads the same
        String urlSafe = token.toBase64().replace('+', '-').replace('/', '_').replace("=", "");
        assertArrayEquals(token.serialize(), Macaroon.fromBase64(urlSafe).serialize());
    }

    @Test
    void verifiesAndReportsTerms() {
        L402Token.Verified v = verify(Macaroon.fromBase64(token.toBase64()), preimage, EXPIRY - 1, FILTER);
        assertEquals(id, v.identifier());
        assertEquals(EXPIRY, v.expiresAt());
        assertEquals(7, v.quota());
    }

    @Test
    void wrongPreimage() {
        assertEquals(L402Refusal.Code.WRONG_PREIMAGE, refusal(token, Preimage.random(), 0, FILTER));
    }

    @Test
    void expiredAtTheExpirySecond() {
        assertEquals(L402Refusal.Code.EXPIRED, refusal(token, preimage, EXPIRY, FILTER));
        assertEquals(L402Refusal.Code.EXPIRED, refusal(token, preimage, EXPIRY + 100, FILTER));
    }

    @Test
    void filterMismatch() {
        assertEquals(L402Refusal.Code.FILTER_MISMATCH, refusal(token, preimage, 0, "cd".repeat(32)));
    }

    @Test
    void otherRootKeyIsABadToken() {
        Macaroon foreign = L402Token.mint(filled(32, 1), "fleetmesh", id, new L402Token.Terms(EXPIRY, FILTER, 7));
        assertEquals(L402Refusal.Code.BAD_TOKEN, refusal(foreign, preimage, 0, FILTER));
    }

    @Test
    void tamperedCaveatIsABadToken() {
        byte[] raw = token.serialize();
        String text = new String(raw, java.nio.charset.StandardCharsets.ISO_8859_1);
        int at = text.indexOf("quota=7");
        raw[at + 6] = '9'; // quota=9 under the old signature
        Macaroon tampered = Macaroon.deserialize(raw);
        assertEquals("quota=9", tampered.caveats().get(2).predicate());
        assertEquals(L402Refusal.Code.BAD_TOKEN, refusal(tampered, preimage, 0, FILTER));
    }

    @Test
    void tamperedIdentifierIsABadToken() {
        // swap in the hash of a preimage the attacker knows: the signature no longer matches
        Preimage mine = Preimage.random();
        byte[] raw = token.serialize();
        byte[] idBytes = id.encode();
        int at = indexOf(raw, idBytes);
        System.arraycopy(mine.hash().toBytes(), 0, raw, at + 2, 32);
        assertEquals(L402Refusal.Code.BAD_TOKEN, refusal(Macaroon.deserialize(raw), mine, 0, FILTER));
    }

    @Test
    void droppedCaveatIsABadToken() {
        Macaroon noQuota = Macaroon.mint(ROOT, "", id.encode()).addFirstPartyCaveat("expiry=" + EXPIRY)
                .addFirstPartyCaveat("filter=" + FILTER);
        assertEquals(L402Refusal.Code.BAD_TOKEN, refusal(noQuota, preimage, 0, FILTER));
    }

    @Test
    void otherIdentifierVersionIsABadToken() {
        byte[] raw = ByteBuffer.allocate(66).putShort((short) 1).put(preimage.hash().toBytes()).put(new byte[32]).array();
        Macaroon wrong = Macaroon.mint(ROOT, "", raw).addFirstPartyCaveat("expiry=" + EXPIRY)
                .addFirstPartyCaveat("filter=" + FILTER).addFirstPartyCaveat("quota=1");
        assertEquals(true, wrong.verifySignature(ROOT));
        assertEquals(L402Refusal.Code.BAD_TOKEN, refusal(wrong, preimage, 0, FILTER));
    }

    @Test
    void attenuationIsHonouredAndUnknownCaveatsRefused() {
        assertEquals(3, verify(token.addFirstPartyCaveat("quota=3"), preimage, 0, FILTER).quota());
        assertEquals(7, verify(token.addFirstPartyCaveat("quota=30"), preimage, 0, FILTER).quota());
        Macaroon sooner = token.addFirstPartyCaveat("expiry=1000");
        assertEquals(L402Refusal.Code.EXPIRED, refusal(sooner, preimage, 1000, FILTER));
        assertEquals(1000, verify(sooner, preimage, 999, FILTER).expiresAt());
        assertEquals(L402Refusal.Code.FILTER_MISMATCH,
                refusal(token.addFirstPartyCaveat("filter=" + "00".repeat(32)), preimage, 0, FILTER));
        assertEquals(L402Refusal.Code.UNKNOWN_CAVEAT, refusal(token.addFirstPartyCaveat("ip=127.0.0.1"), preimage, 0, FILTER));
        assertEquals(L402Refusal.Code.UNKNOWN_CAVEAT, refusal(token.addFirstPartyCaveat("no equals sign"), preimage, 0, FILTER));
        assertEquals(L402Refusal.Code.UNKNOWN_CAVEAT, refusal(token.addFirstPartyCaveat("quota=-1"), preimage, 0, FILTER));
        assertEquals(L402Refusal.Code.UNKNOWN_CAVEAT, refusal(token.addFirstPartyCaveat("quota=ten"), preimage, 0, FILTER));
        assertEquals(L402Refusal.Code.UNKNOWN_CAVEAT,
                refusal(token.addFirstPartyCaveat("expiry=99999999999999999999"), preimage, 0, FILTER));
    }

    static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }
}
