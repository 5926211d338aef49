package org.fleetmesh.settlement.cashu.crypto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import org.bouncycastle.math.ec.ECPoint;
import org.fleetmesh.nostr.Hex;
import org.junit.jupiter.api.Test;

class DleqTest {
    private static final JsonNode NUT12 = NutVectors.load("nut12-dleq.json");

    @Test
    void hashEMatchesNut12Vector() {
        JsonNode v = NUT12.get("hash_e");
        byte[] e = Dleq.hashE(NutVectors.point(v.get("R1")), NutVectors.point(v.get("R2")),
                NutVectors.point(v.get("K")), NutVectors.point(v.get("C_")));
        assertEquals(v.get("hash").asText(), Hex.encode(e));
    }

    @Test
    void deterministicNonceReproducesNut12Proof() {
        JsonNode v = NUT12.get("deterministic_nonce");
        BigInteger a = NutVectors.scalar(v.get("a"));
        ECPoint blinded = NutVectors.point(v.get("B_"));
        assertEquals(v.get("A").asText(), Secp256k1.hex(Secp256k1.mulG(a)));
        assertEquals(v.get("C_").asText(), Secp256k1.hex(Bdhke.sign(blinded, a)));
        Dleq.Proof p = Dleq.create(a, blinded);
        assertEquals(v.get("e").asText(), p.eHex());
        assertEquals(v.get("s").asText(), p.sHex());
        assertTrue(Dleq.verifyBlinded(NutVectors.point(v.get("A")), blinded, NutVectors.point(v.get("C_")), p));
    }

    @Test
    void aliceVerifiesNut12BlindSignature() {
        JsonNode v = NUT12.get("blind_signature");
        JsonNode sig = v.get("blind_signature");
        assertTrue(Dleq.verifyBlinded(NutVectors.point(v.get("A")), NutVectors.point(v.get("B_")),
                NutVectors.point(sig.get("C_")), proof(sig.get("dleq"))));
    }

    @Test
    void carolVerifiesNut12Proof() {
        JsonNode v = NUT12.get("proof");
        JsonNode proof = v.get("proof");
        assertTrue(Dleq.verifyUnblinded(NutVectors.point(v.get("A")),
                proof.get("secret").asText().getBytes(StandardCharsets.UTF_8), NutVectors.point(proof.get("C")),
                NutVectors.scalar(proof.get("dleq").get("r")), proof(proof.get("dleq"))));
    }

    @Test
    void aliceRejectsNut12BlindSignatureWithAFlippedBitInE() {
        JsonNode v = NUT12.get("blind_signature");
        JsonNode sig = v.get("blind_signature");
        Dleq.Proof p = proof(sig.get("dleq"));
        Dleq.Proof forged = new Dleq.Proof(p.e().flipBit(0), p.s());
        assertFalse(Dleq.verifyBlinded(NutVectors.point(v.get("A")), NutVectors.point(v.get("B_")),
                NutVectors.point(sig.get("C_")), forged));
    }

    @Test
    void aliceRejectsNut12BlindSignatureWithAFlippedBitInS() {
        JsonNode v = NUT12.get("blind_signature");
        JsonNode sig = v.get("blind_signature");
        Dleq.Proof p = proof(sig.get("dleq"));
        Dleq.Proof forged = new Dleq.Proof(p.e(), p.s().flipBit(7));
        assertFalse(Dleq.verifyBlinded(NutVectors.point(v.get("A")), NutVectors.point(v.get("B_")),
                NutVectors.point(sig.get("C_")), forged));
    }

    @Test
    void aliceRejectsNut12BlindSignatureUnderAnotherMintKey() {
        JsonNode v = NUT12.get("blind_signature");
        JsonNode sig = v.get("blind_signature");
        ECPoint otherKey = Secp256k1.mulG(BigInteger.TWO);
        assertFalse(Dleq.verifyBlinded(otherKey, NutVectors.point(v.get("B_")), NutVectors.point(sig.get("C_")),
                proof(sig.get("dleq"))));
    }

    @Test
    void carolRejectsNut12ProofWithATamperedSecret() {
        JsonNode v = NUT12.get("proof");
        JsonNode proof = v.get("proof");
        assertFalse(Dleq.verifyUnblinded(NutVectors.point(v.get("A")),
                (proof.get("secret").asText() + "x").getBytes(StandardCharsets.UTF_8), NutVectors.point(proof.get("C")),
                NutVectors.scalar(proof.get("dleq").get("r")), proof(proof.get("dleq"))));
    }

    @Test
    void carolRejectsNut12ProofWithAnotherBlindingFactor() {
        JsonNode v = NUT12.get("proof");
        JsonNode proof = v.get("proof");
        BigInteger r = NutVectors.scalar(proof.get("dleq").get("r"));
        assertFalse(Dleq.verifyUnblinded(NutVectors.point(v.get("A")),
                proof.get("secret").asText().getBytes(StandardCharsets.UTF_8), NutVectors.point(proof.get("C")),
                r.add(BigInteger.ONE), proof(proof.get("dleq"))));
    }

    @Test
    void carolRejectsNut12ProofWithAFlippedBitInE() {
        JsonNode v = NUT12.get("proof");
        JsonNode proof = v.get("proof");
        Dleq.Proof p = proof(proof.get("dleq"));
        assertFalse(Dleq.verifyUnblinded(NutVectors.point(v.get("A")),
                proof.get("secret").asText().getBytes(StandardCharsets.UTF_8), NutVectors.point(proof.get("C")),
                NutVectors.scalar(proof.get("dleq").get("r")), new Dleq.Proof(p.e().flipBit(255), p.s())));
    }

    @Test
    void createdProofVerifiesForAliceAndCarol() {
        BigInteger a = Secp256k1.randomScalar();
        BigInteger r = Secp256k1.randomScalar();
        byte[] secret = "fresh secret".getBytes(StandardCharsets.UTF_8);
        ECPoint bigA = Secp256k1.mulG(a);
        ECPoint blinded = Bdhke.blind(secret, r);
        ECPoint blindSig = Bdhke.sign(blinded, a);
        Dleq.Proof p = Dleq.create(a, blinded, Secp256k1.randomScalar());
        assertTrue(Dleq.verifyBlinded(bigA, blinded, blindSig, p));
        ECPoint c = Bdhke.unblind(blindSig, r, bigA);
        assertTrue(Dleq.verifyUnblinded(bigA, secret, c, r, p));
    }

    @Test
    void proofForAnotherKeyFailsVerification() {
        BigInteger a = Secp256k1.randomScalar();
        BigInteger forger = Secp256k1.randomScalar();
        ECPoint blinded = Bdhke.blind(new byte[] {1}, Secp256k1.randomScalar());
        // A proof made with the forger's key does not prove that C_ = aB_ for the published A.
        Dleq.Proof p = Dleq.create(forger, blinded);
        assertFalse(Dleq.verifyBlinded(Secp256k1.mulG(a), blinded, Bdhke.sign(blinded, a), p));
        assertFalse(Dleq.verifyBlinded(Secp256k1.mulG(a), blinded, Bdhke.sign(blinded, forger), p));
    }

    @Test
    void outOfRangeResponseIsRejectedNotThrown() {
        JsonNode v = NUT12.get("blind_signature");
        JsonNode sig = v.get("blind_signature");
        Dleq.Proof p = proof(sig.get("dleq"));
        assertFalse(Dleq.verifyBlinded(NutVectors.point(v.get("A")), NutVectors.point(v.get("B_")),
                NutVectors.point(sig.get("C_")), new Dleq.Proof(p.e(), Secp256k1.N)));
        assertFalse(Dleq.verifyBlinded(NutVectors.point(v.get("A")), NutVectors.point(v.get("B_")),
                NutVectors.point(sig.get("C_")), new Dleq.Proof(p.e(), BigInteger.ZERO)));
    }

    @Test
    void malformedHexIsRejectedWithAReason() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Dleq.Proof.fromHex("00", "00"));
        assertTrue(e.getMessage().contains("64 hex"), e.getMessage());
    }

    private static Dleq.Proof proof(JsonNode dleq) {
        return Dleq.Proof.fromHex(dleq.get("e").asText(), dleq.get("s").asText());
    }
}
