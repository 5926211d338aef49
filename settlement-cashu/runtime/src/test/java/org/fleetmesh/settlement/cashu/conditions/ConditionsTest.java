package org.fleetmesh.settlement.cashu.conditions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.settlement.cashu.nut.BlindedMessage;
import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.nut.Vectors;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

class ConditionsTest {
    static final JsonNode S = Vectors.load("nut10-nut14-secrets.json");
    static final String C = "02698c4e2b5f9534cd0687d87513c759790cf829aa5739184a3e3735471fbda904";
    static final String ID = "009a1f293253e41e";
    static final long NOW = 1_760_000_000L;
    static final byte[] ALICE = key(1);
    static final byte[] BOB = key(2);
    static final byte[] CAROL = key(3);

    static byte[] key(int i) {
        byte[] k = new byte[32];
        k[31] = (byte) i;
        k[0] = 0x11;
        return k;
    }

    /** A compressed key for a secret key; "02" + x-only is a valid encoding for BIP-340 purposes. */
    static String pub(byte[] sk) {
        return "02" + Hex.encode(Schnorr.publicKey(sk));
    }

    static Proof locked(WellKnownSecret s) {
        return new Proof(8, ID, s.serialize(), C, null, null);
    }

    static WellKnownSecret p2pk(String nonce, String pubkey, List<List<String>> tags) {
        return new WellKnownSecret("P2PK", nonce, pubkey, tags);
    }

    @Test
    void specSecretsParseAndSerializeToTheSameString() throws Exception {
        assertEquals(4, S.get("secrets").size());
        for (JsonNode v : S.get("secrets")) {
            WellKnownSecret s = WellKnownSecret.parse(v.get("secret").asText()).orElseThrow();
            assertEquals(v.get("kind").asText(), s.kind());
            assertEquals(v.get("nonce").asText(), s.nonce());
            assertEquals(v.get("data").asText(), s.data());
            assertEquals(Nut.json().convertValue(v.get("tags"), List.class), s.tags());
            assertEquals(v.get("secret").asText(), s.serialize(), v.get("name").asText());
        }
    }

    @Test
    void nut10TagExamples() throws Exception {
        assertEquals(6, S.get("nut10_tags").size());
        for (JsonNode v : S.get("nut10_tags")) {
            String secret = "[\"P2PK\",{\"nonce\":\"n\",\"data\":\"d\",\"tags\":" + v.get("tags_json").asText() + "}]";
            if (v.get("valid").asBoolean()) {
                assertTrue(WellKnownSecret.parse(secret).isPresent(), v.get("name").asText());
            } else {
                assertThrows(ConditionException.class, () -> WellKnownSecret.parse(secret), v.get("name").asText());
            }
        }
    }

    @Test
    void complexExampleConditionsParse() throws Exception {
        JsonNode e = S.get("nut11_complex_conditions");
        WellKnownSecret s = WellKnownSecret.parse(S.get("secrets").get(1).get("secret").asText()).orElseThrow();
        Conditions c = Conditions.parse(s);
        assertEquals(SigFlag.valueOf(e.get("sigflag").asText()), c.sigFlag());
        assertEquals(Nut.json().convertValue(e.get("pubkeys"), List.class), c.pubkeys());
        assertEquals(e.get("n_sigs").asInt(), c.nSigs());
        assertEquals(e.get("locktime").asLong(), c.locktime().getAsLong());
        assertEquals(Nut.json().convertValue(e.get("refund"), List.class), c.refund());
        assertEquals(e.get("n_sigs_refund").asInt(), c.nSigsRefund());
        assertEquals(1, c.requiredRefundSigs());
    }

    @Test
    void nut11BasicExampleProofVerifies() throws Exception {
        Proof p = Nut.json().treeToValue(S.get("nut11_basic_proof"), Proof.class);
        assertTrue(P2pk.verify(p, NOW).ok());
    }

    @Test
    void plainSecretsAreNotWellKnown() throws Exception {
        assertEquals(Optional.empty(), WellKnownSecret.parse("407915bc212be61a77e3e6d2aeb4c727980bda51cd06a6afc29e2861768a7837"));
        assertEquals(Optional.empty(), WellKnownSecret.parse("[1,2]"));
        assertEquals(Optional.empty(), WellKnownSecret.parse("[not json"));
    }

    @Test
    void wellKnownShapeWithBadFieldsIsMalformed() {
        assertThrows(ConditionException.class, () -> WellKnownSecret.parse("[\"P2PK\",{\"nonce\":1,\"data\":\"d\"}]"));
        assertThrows(ConditionException.class, () -> WellKnownSecret.parse("[\"P2PK\",{\"nonce\":\"n\"}]"));
        assertThrows(ConditionException.class,
                () -> WellKnownSecret.parse("[\"P2PK\",{\"nonce\":\"n\",\"data\":\"d\",\"tags\":{}}]"));
    }

    @Test
    void plainProofsPassTheTransactionCheck() {
        Proof p = new Proof(1, ID, "407915bc", C, null, null);
        assertTrue(SpendingConditions.verify(List.of(p), List.of(), null, NOW).ok());
    }

    @Test
    void signedProofVerifiesAndUnsignedDoesNot() throws Exception {
        Proof p = locked(WellKnownSecret.p2pk("n1", pub(ALICE), Conditions.none()));
        assertFalse(P2pk.verify(p, NOW).ok());
        assertFalse(P2pk.verify(P2pk.signProof(p, BOB), NOW).ok());
        assertTrue(P2pk.verify(P2pk.signProof(p, ALICE), NOW).ok());
    }

    @Test
    void signatureVerifiesWithEitherParityPrefix() {
        String sig = P2pk.sign("hello", ALICE);
        assertTrue(P2pk.verifySignature(sig, "hello", "02" + pub(ALICE).substring(2)));
        assertTrue(P2pk.verifySignature(sig, "hello", "03" + pub(ALICE).substring(2).toUpperCase()));
        assertFalse(P2pk.verifySignature(sig, "hullo", pub(ALICE)));
        assertFalse(P2pk.verifySignature("zz", "hello", pub(ALICE)));
    }

    @Test
    void twoOfThreeNeedsTwoDistinctKeys() throws Exception {
        Conditions c = new Conditions(SigFlag.SIG_INPUTS, List.of(pub(BOB), pub(CAROL)), 2, OptionalLong.empty(),
                List.of(), 0);
        Proof p = locked(WellKnownSecret.p2pk("n", pub(ALICE), c));
        Proof once = P2pk.signProof(p, ALICE);
        assertFalse(P2pk.verify(P2pk.signProof(once, ALICE), NOW).ok(), "two signatures by one key count once");
        assertTrue(P2pk.verify(P2pk.signProof(once, CAROL), NOW).ok());
    }

    @Test
    void refundKeysOnlyAfterLocktime() throws Exception {
        Conditions future = new Conditions(SigFlag.SIG_INPUTS, List.of(), 0, OptionalLong.of(NOW + 10),
                List.of(pub(BOB)), 0);
        Proof p = P2pk.signProof(locked(WellKnownSecret.p2pk("n", pub(ALICE), future)), BOB);
        assertFalse(P2pk.verify(p, NOW).ok());
        assertTrue(P2pk.verify(p, NOW + 11).ok());
        assertTrue(P2pk.verify(P2pk.signProof(locked(WellKnownSecret.p2pk("n", pub(ALICE), future)), ALICE), NOW + 11)
                .ok(), "the locktime pathway stays open after expiry");
    }

    @Test
    void expiredLockWithoutRefundIsAnyoneCanSpend() {
        Conditions c = new Conditions(SigFlag.SIG_INPUTS, List.of(), 0, OptionalLong.of(NOW - 1), List.of(), 0);
        assertTrue(P2pk.verify(locked(WellKnownSecret.p2pk("n", pub(ALICE), c)), NOW).ok());
    }

    @Test
    void invalidLocktimeIsAPermanentLock() {
        Proof p = locked(p2pk("n", pub(ALICE), List.of(List.of("locktime", "soon"))));
        assertFalse(P2pk.verify(p, Long.MAX_VALUE).ok());
    }

    @Test
    void duplicateTagsAreMalformed() throws Exception {
        Proof p = P2pk.signProof(locked(p2pk("n", pub(ALICE),
                List.of(List.of("n_sigs", "1"), List.of("n_sigs", "1")))), ALICE);
        Verdict v = P2pk.verify(p, NOW);
        assertFalse(v.ok());
        assertTrue(v.reason().startsWith("malformed secret"), v.reason());
    }

    @Test
    void badSigflagAndNSigsAreMalformed() throws Exception {
        for (List<String> tag : List.of(List.of("sigflag", "SIG_SOME"), List.of("n_sigs", "0"),
                List.of("n_sigs", "two"), List.of("n_sigs", "2"), List.of("n_sigs_refund", "1"))) {
            Proof p = P2pk.signProof(locked(p2pk("n", pub(ALICE), List.of(tag))), ALICE);
            Verdict v = P2pk.verify(p, NOW);
            assertFalse(v.ok(), tag.toString());
            assertTrue(v.reason().startsWith("malformed secret"), v.reason());
        }
    }

    @Test
    void sameXCoordinateTwiceInAPathwayIsMalformed() throws Exception {
        String x = pub(ALICE).substring(2);
        Proof dup = P2pk.signProof(locked(p2pk("n", "02" + x, List.of(List.of("pubkeys", "03" + x.toUpperCase())))),
                ALICE);
        assertFalse(P2pk.verify(dup, NOW).ok());
        Proof both = P2pk.signProof(locked(p2pk("n", "02" + x, List.of(List.of("locktime", "1"),
                List.of("refund", "03" + x)))), ALICE);
        assertTrue(P2pk.verify(both, NOW).ok(), "a key may appear in both pathways");
    }

    @Test
    void sigAllSignedByTheWalletVerifiesAndBindsTheOutputs() throws Exception {
        Conditions c = new Conditions(SigFlag.SIG_ALL, List.of(), 0, OptionalLong.empty(), List.of(), 0);
        WellKnownSecret s = WellKnownSecret.p2pk("n", pub(ALICE), c);
        List<Proof> inputs = List.of(locked(s), new Proof(2, ID, s.serialize(), C, null, null));
        List<BlindedMessage> outputs = List.of(new BlindedMessage(8, ID, C));
        List<Proof> signed = P2pk.signSigAll(inputs, outputs, null, ALICE);
        assertTrue(SpendingConditions.verify(signed, outputs, null, NOW).ok());
        List<BlindedMessage> other = List.of(new BlindedMessage(10, ID, C));
        assertFalse(SpendingConditions.verify(signed, other, null, NOW).ok());
        assertFalse(SpendingConditions.verify(signed, outputs, "quote", NOW).ok());
    }

    @Test
    void sigAllWithAPlainInputIsRejected() throws Exception {
        Conditions c = new Conditions(SigFlag.SIG_ALL, List.of(), 0, OptionalLong.empty(), List.of(), 0);
        List<Proof> inputs = new ArrayList<>(List.of(locked(WellKnownSecret.p2pk("n", pub(ALICE), c)),
                new Proof(1, ID, "plain", C, null, null)));
        List<Proof> signed = P2pk.signSigAll(inputs, List.of(), null, ALICE);
        assertEquals("SIG_ALL: all inputs must have the same kind, data and tags",
                SpendingConditions.verify(signed, List.of(), null, NOW).reason());
    }

    @Test
    void htlcHashLockExample() {
        JsonNode h = S.get("nut14_hash_lock");
        assertEquals(h.get("data").asText(), Htlc.hashLock(Hex.decodeLower(h.get("preimage").asText())));
    }

    @Test
    void htlcWithoutPubkeysIsSpentByThePreimageAlone() throws Exception {
        JsonNode h = S.get("nut14_hash_lock");
        Proof p = locked(WellKnownSecret.htlc("n", h.get("data").asText(), Conditions.none()));
        assertFalse(Htlc.verify(p, NOW).ok());
        assertFalse(Htlc.verify(Htlc.unlock(p, "00".repeat(32), null), NOW).ok());
        assertTrue(Htlc.verify(Htlc.unlock(p, h.get("preimage").asText(), null), NOW).ok());
    }

    @Test
    void htlcReceiverNeedsPreimageAndSignature() throws Exception {
        JsonNode h = S.get("nut14_hash_lock");
        Conditions c = new Conditions(SigFlag.SIG_INPUTS, List.of(pub(BOB)), 0, OptionalLong.of(NOW + 100),
                List.of(pub(ALICE)), 0);
        Proof p = locked(WellKnownSecret.htlc("n", h.get("data").asText(), c));
        String preimage = h.get("preimage").asText();
        assertFalse(Htlc.verify(Htlc.unlock(p, preimage, null), NOW).ok());
        assertFalse(Htlc.verify(Htlc.unlock(p, preimage, ALICE), NOW).ok(), "refund key before locktime");
        assertTrue(Htlc.verify(Htlc.unlock(p, preimage, BOB), NOW).ok());
        assertTrue(Htlc.verify(Htlc.unlock(p, preimage, BOB), NOW + 1000).ok(), "receiver pathway stays open");
    }

    @Test
    void htlcSenderRefundsAfterLocktime() throws Exception {
        JsonNode h = S.get("nut14_hash_lock");
        Conditions c = new Conditions(SigFlag.SIG_INPUTS, List.of(pub(BOB)), 0, OptionalLong.of(NOW + 100),
                List.of(pub(ALICE)), 0);
        Proof p = P2pk.signProof(locked(WellKnownSecret.htlc("n", h.get("data").asText(), c)), ALICE);
        assertFalse(Htlc.verify(p, NOW).ok());
        assertTrue(Htlc.verify(p, NOW + 101).ok());
    }

    @Test
    void witnessJsonHasTheNutShape() throws Exception {
        Witness w = new Witness("ab".repeat(32), List.of("cd".repeat(64)));
        assertEquals("{\"preimage\":\"" + "ab".repeat(32) + "\",\"signatures\":[\"" + "cd".repeat(64) + "\"]}",
                w.json());
        assertEquals(w, Witness.parse(w.json()));
        assertEquals("{\"signatures\":[]}", new Witness(null, null).json());
        assertThrows(ConditionException.class, () -> Witness.parse("{\"signatures\":[\"abc\"]}"));
        assertThrows(ConditionException.class, () -> Witness.parse("[]"));
    }

    @Test
    void conditionsTagsRoundTrip() throws Exception {
        Conditions c = new Conditions(SigFlag.SIG_ALL, List.of(pub(BOB)), 2, OptionalLong.of(123),
                List.of(pub(CAROL)), 1);
        WellKnownSecret s = WellKnownSecret.parse(WellKnownSecret.p2pk("n", pub(ALICE), c).serialize()).orElseThrow();
        assertEquals(c, Conditions.parse(s));
    }
}
