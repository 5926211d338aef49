package org.fleetmesh.settlement.cashu.rail;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.settlement.cashu.conditions.Conditions;
import org.fleetmesh.settlement.cashu.conditions.Htlc;
import org.fleetmesh.settlement.cashu.conditions.SigFlag;
import org.fleetmesh.settlement.cashu.conditions.WellKnownSecret;
import org.fleetmesh.settlement.cashu.conditions.Witness;
import org.fleetmesh.settlement.cashu.request.Nut10Option;
import org.fleetmesh.settlement.cashu.request.PaymentRequest;
import org.fleetmesh.settlement.cashu.request.Transport;
import org.fleetmesh.settlement.cashu.wallet.Seed;
import org.junit.jupiter.api.Test;

/** The vectors of docs/spec/settlement-cashu.md, "Vectors": they must keep producing the bytes the spec shows. */
class EscrowVectorsTest {
    static final byte[] SEED = new byte[32];
    static {
        for (int i = 0; i < 32; i++) {
            SEED[i] = (byte) (i + 1);
        }
    }
    static final String LOCK_KEY = "f81eac7cd03ccb613544fc48b27433c0cd5b8c9202ba558c71f8a9b0b41f0b9b";
    static final String LOCK_PUB = "023b9557dcc88dbe5fecebc1de11d0428e22c5d2e64e9d062fdfbf7116e322d144";
    static final String HASH = "425ed4e4a36b30ea21b90e21c712c649e8214c29b7eaf68089d1039c6e55384c";
    static final String CREQ = "creqAqGF0gaNhdGRwb3N0YWF4Imh0dHA6Ly8xMjcuMC4wLjE6Nzc3Ny9jYXNodS92MS9wYXlhZ_dhaXA0MjVlZDRlNGEzNmIzMGVhYWEVYXVjc2F0YW2BdWh0dHA6Ly8xMjcuMC4wLjE6MzMzOGFkcGZsZWV0bWVzaCBlc2Nyb3dhc_VlbnV0MTCjYWtkSFRMQ2FkeEA0MjVlZDRlNGEzNmIzMGVhMjFiOTBlMjFjNzEyYzY0OWU4MjE0YzI5YjdlYWY2ODA4OWQxMDM5YzZlNTUzODRjYXSCgmdwdWJrZXlzeEIwMjNiOTU1N2RjYzg4ZGJlNWZlY2ViYzFkZTExZDA0MjhlMjJjNWQyZTY0ZTlkMDYyZmRmYmY3MTE2ZTMyMmQxNDSCaGxvY2t0aW1lajE4MDAwMDAwMDA=";

    @Test
    void theLockKeyIsDerivedFromTheSeed() {
        assertEquals(LOCK_KEY, Hex.encode(Seed.lockKey(SEED)));
        assertEquals(LOCK_PUB, Seed.lockPublicKey(SEED));
    }

    @Test
    void theHashLockIsSha256OfK() {
        byte[] k = new byte[32];
        Arrays.fill(k, (byte) 0x42);
        assertEquals(HASH, Htlc.hashLock(k));
    }

    @Test
    void theRequestEncodesAsTheSpecShows() throws Exception {
        PaymentRequest r = new PaymentRequest(HASH.substring(0, 16), OptionalLong.of(21), "sat", true,
                List.of("http://127.0.0.1:3338"), "fleetmesh escrow",
                List.of(new Transport("post", "http://127.0.0.1:7777/cashu/v1/pay", null)),
                new Nut10Option("HTLC", HASH, List.of(List.of("pubkeys", LOCK_PUB), List.of("locktime", "1800000000"))));
        assertEquals(CREQ, r.encode());
        assertEquals(r, PaymentRequest.decode(CREQ));
    }

    /**
     * The payee's claim witness on a proof with the payer's secret below: k and the BIP-340 signature of SHA256(secret)
     * by lock_key (auxiliary randomness 32 zero bytes here, random in use); the refund witness, by the same key in this
     * vector, carries the same signature without the preimage.
     */
    @Test
    void theClaimAndRefundWitnessesAreAsTheSpecShows() throws Exception {
        String secret = WellKnownSecret.htlc("00112233445566778899aabbccddeeff", HASH, new Conditions(SigFlag.SIG_INPUTS,
                List.of(LOCK_PUB), 0, OptionalLong.of(1800000000L), List.of(LOCK_PUB), 0)).serialize();
        String sig = Hex.encode(org.fleetmesh.nostr.Schnorr.sign(java.security.MessageDigest.getInstance("SHA-256")
                .digest(secret.getBytes(java.nio.charset.StandardCharsets.UTF_8)), Seed.lockKey(SEED), new byte[32]));
        assertEquals(SIGNATURE, sig);
        assertEquals(true, org.fleetmesh.settlement.cashu.conditions.P2pk.verifySignature(sig, secret, LOCK_PUB));
        assertEquals("{\"preimage\":\"" + "42".repeat(32) + "\",\"signatures\":[\"" + SIGNATURE + "\"]}",
                new Witness("42".repeat(32), List.of(sig)).json());
        assertEquals("{\"signatures\":[\"" + SIGNATURE + "\"]}", new Witness(null, List.of(sig)).json());
    }

    static final String SIGNATURE = "96d7e6f34af0c994374dadcc386c93a9efc2b1a0403eb126afaca9cbf31d7b6684ab6d6ebe992872ecab11d7e05ffbbe4feaa17dcf718972e264f559454c3ae4";

    @Test
    void thePayersSecretHasTheTermsAndItsRefundKey() {
        Conditions c = new Conditions(SigFlag.SIG_INPUTS, List.of(LOCK_PUB), 0, OptionalLong.of(1800000000L),
                List.of(LOCK_PUB), 0);
        assertEquals("[\"HTLC\",{\"nonce\":\"00112233445566778899aabbccddeeff\",\"data\":\"" + HASH
                + "\",\"tags\":[[\"pubkeys\",\"" + LOCK_PUB + "\"],[\"locktime\",\"1800000000\"],[\"refund\",\""
                + LOCK_PUB + "\"],[\"sigflag\",\"SIG_INPUTS\"]]}]",
                WellKnownSecret.htlc("00112233445566778899aabbccddeeff", HASH, c).serialize());
    }
}
