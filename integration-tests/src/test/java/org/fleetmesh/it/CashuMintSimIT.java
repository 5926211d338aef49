package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The simulated Cashu mint against cashu-ts as the independent wallet, so that both can serve as
 * the other side of fleetmesh's own Cashu wallet in later tests. No meshnode process is involved.
 */
class CashuMintSimIT {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Path dir;
    private CashuMintSim mint;
    private CashuTsWallet alice;
    private CashuTsWallet bob;

    @BeforeAll
    static void install() throws Exception {
        CashuMintSim.install();
    }

    @BeforeEach
    void wallets() throws Exception {
        dir = MeshnodeProcess.newDataDir("cashu");
        alice = new CashuTsWallet(dir.resolve("alice.json"));
        bob = new CashuTsWallet(dir.resolve("bob.json"));
    }

    @AfterEach
    void stop() throws Exception {
        if (mint != null) {
            mint.close();
        }
    }

    @Test
    void tokenSentByOneWalletIsReceivedByAnother() throws Exception {
        mint = CashuMintSim.start(dir.resolve("mint.json"));
        assertEquals(64, alice.mint(mint.url(), 64).path("amount").asLong());
        JsonNode sent = alice.send(mint.url(), 10);
        assertTrue(sent.path("token").asText().startsWith("cashuB"), sent.toString());

        assertEquals(10, bob.receive(mint.url(), sent.path("token").asText()).path("amount").asLong());
        assertEquals(54, alice.balance().path("balance").asLong());
        assertEquals(10, bob.balance().path("balance").asLong());
    }

    @Test
    void spendingATokenTwiceIsRefusedAsAlreadySpent() throws Exception {
        mint = CashuMintSim.start(dir.resolve("mint.json"));
        alice.mint(mint.url(), 64);
        String token = alice.send(mint.url(), 10).path("token").asText();
        bob.receive(mint.url(), token);

        CashuTsWallet carol = new CashuTsWallet(dir.resolve("carol.json"));
        CashuTsWallet.Failed refused = assertThrows(CashuTsWallet.Failed.class, () -> carol.receive(mint.url(), token));
        assertEquals(11001, refused.code, refused.detail);
        assertEquals(0, carol.balance().path("balance").asLong());
    }

    @Test
    void htlcClaimWithThePreimageSpendsItAndCheckstateShowsThePreimage() throws Exception {
        mint = CashuMintSim.start(dir.resolve("mint.json"));
        Htlc h = Htlc.fresh();
        alice.mint(mint.url(), 64);
        String token = alice.lockHtlc(mint.url(), 8, h.hash, h.receiverPub, now() + 3600, h.refundPub).path("token").asText();

        assertEquals(8, bob.claimHtlc(mint.url(), token, h.preimage, h.receiverKey).path("amount").asLong());

        JsonNode states = alice.check(mint.url(), token).path("states");
        assertFalse(states.isEmpty());
        for (JsonNode s : states) {
            assertEquals("SPENT", s.path("state").asText());
            assertEquals(h.preimage, NostrClient.tree(s.path("witness").asText()).path("preimage").asText());
        }
    }

    @Test
    void htlcClaimWithAWrongPreimageIsRefused() throws Exception {
        mint = CashuMintSim.start(dir.resolve("mint.json"));
        Htlc h = Htlc.fresh();
        alice.mint(mint.url(), 64);
        String token = alice.lockHtlc(mint.url(), 8, h.hash, h.receiverPub, now() + 3600, h.refundPub).path("token").asText();

        CashuTsWallet.Failed refused = assertThrows(CashuTsWallet.Failed.class,
                () -> bob.claimHtlc(mint.url(), token, Htlc.random32(), h.receiverKey));
        assertEquals(10001, refused.code, refused.detail);
        for (JsonNode s : alice.check(mint.url(), token).path("states")) {
            assertEquals("UNSPENT", s.path("state").asText());
        }
    }

    @Test
    void inputFeesAreChargedWhenTheKeysetHasAFee() throws Exception {
        mint = CashuMintSim.start(dir.resolve("mint.json"), "--fee-ppk", "1000");
        assertEquals(1000, mint.get("/v1/keysets").path("keysets").get(0).path("input_fee_ppk").asLong());
        alice.mint(mint.url(), 64);
        String token = alice.send(mint.url(), 10).path("token").asText();
        // one 64 sat input swapped: 1 sat fee, 10 sent, 53 kept
        assertEquals(53, alice.balance().path("balance").asLong());

        int inputs = alice.check(mint.url(), token).path("states").size();
        assertEquals(10 - inputs, bob.receive(mint.url(), token).path("amount").asLong());
    }

    @Test
    void meltPaysAnInvoiceAndReturnsTheUnusedFeeReserveAsChange() throws Exception {
        mint = CashuMintSim.start(dir.resolve("mint.json"));
        try (CashuMintSim payee = CashuMintSim.start(dir.resolve("payee.json"), "--no-auto-pay")) {
            String invoice = payee.post("/v1/mint/quote/bolt11", "{\"amount\":20,\"unit\":\"sat\"}").path("request").asText();
            alice.mint(mint.url(), 64);

            JsonNode melt = alice.melt(mint.url(), invoice);
            assertEquals("PAID", melt.path("state").asText(), melt.toString());
            assertEquals(2, melt.path("change").asLong(), melt.toString());
            assertEquals(44, alice.balance().path("balance").asLong());
            assertEquals(invoice, mint.paid().get(0).path("request").asText());
        }
    }

    @Test
    void aSwapCommittedBeforeACrashStaysSpentAfterRestart() throws Exception {
        mint = CashuMintSim.start(dir.resolve("mint.json"));
        String keysets = mint.get("/v1/keysets").toString();
        alice.mint(mint.url(), 64);
        String token = alice.send(mint.url(), 10).path("token").asText();

        mint.hangNext("/v1/swap");
        CompletableFuture<Throwable> receiving = CompletableFuture.supplyAsync(() -> {
            try {
                bob.receive(mint.url(), token);
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        while (mint.hung() == 0) {
            assertFalse(receiving.isDone(), "the receive finished although the mint never answered");
            Thread.sleep(50);
        }
        mint.kill();
        assertTrue(receiving.get(30, TimeUnit.SECONDS) instanceof CashuTsWallet.Failed, "the cut receive must fail");

        mint.restart();
        assertEquals(keysets, mint.get("/v1/keysets").toString());
        for (JsonNode s : alice.check(mint.url(), token).path("states")) {
            assertEquals("SPENT", s.path("state").asText());
        }
        assertEquals(11001, assertThrows(CashuTsWallet.Failed.class, () -> bob.receive(mint.url(), token)).code);
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    /** A preimage with its hash, the receiver's key pair and a refund key (compressed, even y). */
    private record Htlc(String preimage, String hash, String receiverKey, String receiverPub, String refundPub) {
        static Htlc fresh() throws Exception {
            String preimage = random32();
            String hash = Hex.encode(MessageDigest.getInstance("SHA-256").digest(Hex.decode(preimage, 32)));
            String receiverKey = random32();
            return new Htlc(preimage, hash, receiverKey, compressed(receiverKey), compressed(random32()));
        }

        static String random32() {
            byte[] b = new byte[32];
            RANDOM.nextBytes(b);
            return Hex.encode(b);
        }

        // BIP-340 keys are x-only; NUT-11 compares keys by x, so the even-y "02" form is the same key
        static String compressed(String secretHex) {
            return "02" + Hex.encode(Schnorr.publicKey(Hex.decode(secretHex, 32)));
        }
    }
}
