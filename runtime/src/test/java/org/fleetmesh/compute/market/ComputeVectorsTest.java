package org.fleetmesh.compute.market;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import org.fleetmesh.compute.Commitment;
import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.Test;

/** The vectors of docs/spec/compute.md ("Vectors"): each value here is printed there. */
class ComputeVectorsTest {
    static final HexFormat HEX = HexFormat.of();
    static final String ZEROS = "0".repeat(64);
    static final JobSpec SPEC = new JobSpec(JobSpec.sha256(new byte[0]),
            JobSpec.sha256("abc".getBytes(StandardCharsets.UTF_8)), List.of("x"), 1_000_000, 16, 1_700_000_000L,
            ZEROS);
    static final Request REQUEST = new Request(SPEC, 5000, "ln", "00".repeat(16), "did:key:z6MkExample",
            Optional.empty());
    static final byte[] K = new byte[32];
    static final byte[] NONCE = new byte[12];
    static final JobResult RESULT = new JobResult(0, "ABC".getBytes(StandardCharsets.UTF_8), new byte[0], 4242,
            SPEC.module(), SPEC.input(), JobSpec.sha256("ABC".getBytes(StandardCharsets.UTF_8)));
    /** A fixed secret key (1), so the vectors' event ids are stable; signatures are randomized (BIP-340 aux). */
    static final byte[] SECRET = HEX.parseHex("00".repeat(31) + "01");

    static {
        for (int i = 0; i < 32; i++) {
            K[i] = (byte) (i + 1);
        }
        for (int i = 0; i < 12; i++) {
            NONCE[i] = (byte) i;
        }
    }

    @Test
    void requestCanonicalFormAndDigest() {
        assertEquals("{\"buyer\":\"did:key:z6MkExample\",\"job\":{\"module\":\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4"
                + "649b934ca495991b7852b855\",\"input\":\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015"
                + "ad\",\"args\":[\"x\"],\"fuel_limit\":1000000,\"memory_pages\":16,\"time\":1700000000,\"seed\":\""
                + ZEROS + "\"},\"max_price_msat\":5000,\"nonce\":\"" + "00".repeat(16) + "\",\"rail\":\"ln\"}",
                REQUEST.canonicalJson());
        assertEquals(V.REQUEST_DIGEST, REQUEST.digest());
        assertEquals(V.JOB_DIGEST, SPEC.digest());
    }

    /** A bound above all the money that exists is refused, on the wire and when built; the largest one is taken. */
    @Test
    void maxPriceMsatIsAtMostTwentyOneMillionBitcoin() throws Exception {
        com.fasterxml.jackson.databind.node.ObjectNode body = REQUEST.body();
        body.put("max_price_msat", org.fleetmesh.spi.settlement.Msat.MAX);
        assertEquals(org.fleetmesh.spi.settlement.Msat.MAX, Request.fromJson(body).maxPriceMsat());
        body.put("max_price_msat", org.fleetmesh.spi.settlement.Msat.MAX + 1);
        MarketProtocolException e = org.junit.jupiter.api.Assertions.assertThrows(MarketProtocolException.class,
                () -> Request.fromJson(body));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().startsWith("request: max_price_msat: between 0 and"),
                e.getMessage());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> new Request(SPEC,
                Long.MAX_VALUE, "ln", "00".repeat(16), "did:key:z6MkExample", Optional.empty()));
    }

    @Test
    void theTokenIsNotPartOfTheDigest() {
        Request withToken = new Request(SPEC, 5000, "ln", "00".repeat(16), "did:key:z6MkExample", Optional.of("t"));
        assertEquals(REQUEST.digest(), withToken.digest());
        assertEquals("t", withToken.body().get("token").asText());
    }

    @Test
    void sealUnderAFixedKeyAndNonce() throws Exception {
        byte[] plain = ResultJson.write(RESULT).getBytes(StandardCharsets.UTF_8);
        assertEquals("{\"exit_code\":0,\"stdout\":\"QUJD\",\"stderr\":\"\",\"fuel_used\":4242,\"module_hash\":\""
                + SPEC.module() + "\",\"input_digest\":\"" + SPEC.input() + "\",\"output_digest\":\""
                + RESULT.outputDigest() + "\"}", new String(plain, StandardCharsets.UTF_8));
        byte[] ct = Seal.seal(K, NONCE, REQUEST.digest(), plain);
        assertEquals(V.CIPHERTEXT, HEX.formatHex(ct));
        assertEquals(new String(plain, StandardCharsets.UTF_8),
                new String(Seal.open(K, NONCE, REQUEST.digest(), ct), StandardCharsets.UTF_8));
        // another job's digest as AAD, or a flipped byte, does not open
        assertThrows(MarketProtocolException.class, () -> Seal.open(K, NONCE, SPEC.digest(), ct));
        ct[0] ^= 1;
        assertThrows(MarketProtocolException.class, () -> Seal.open(K, NONCE, REQUEST.digest(), ct));
    }

    @Test
    void commitmentAndPaymentHash() {
        assertEquals(V.COMMITMENT, Commitment.of(K, Commitment.Summary.of(RESULT)));
        assertEquals(V.PAYMENT_HASH, new org.fleetmesh.spi.settlement.Preimage(K).hash().hex());
    }

    @Test
    void offerEventIdAndRoundTrip() throws Exception {
        Offer o = new Offer("default", "did:key:z6MkExample", List.of("chicory", "wasmtime"), 10, 1000, 1_000_000_000L,
                256, 4_194_304, List.of("ln"), "");
        Event e = o.sign(SECRET, 1_700_000_000L);
        assertEquals(V.OFFER_ID, e.id().hex());
        assertEquals(o, Offer.parse(e));
        assertEquals(new PubKey(Schnorr.publicKey(SECRET)), e.pubkey());
    }

    @Test
    void recordEventIdAndRoundTrip() throws Exception {
        JobRecord r = new JobRecord(REQUEST.digest(), SPEC.digest(), SPEC.module(), SPEC.input(),
                Commitment.of(K, Commitment.Summary.of(RESULT)), V.PAYMENT_HASH, 4242, 1000, "chicory",
                "ab".repeat(32), Optional.empty());
        Event e = r.sign(SECRET, 1_700_000_000L);
        assertEquals(V.RECORD_ID, e.id().hex());
        assertEquals(r, JobRecord.parse(e));
        assertEquals(Optional.of(RESULT.outputDigest()), JobRecord.parse(r.withOutput(RESULT.outputDigest())
                .sign(SECRET, 1_700_000_001L)).output());
    }

    @Test
    void priceRoundsUpAndHasAFloor() {
        assertEquals(1000, Offer.price(1, 1000, 123_456));
        assertEquals(12_346, Offer.price(10, 1000, 1_234_567));
        assertEquals(1, Offer.price(1, 0, 1));
        assertEquals(0, Offer.price(0, 0, 1_000_000));
        assertEquals(Long.MAX_VALUE, Offer.price(Long.MAX_VALUE, 0, 2));
    }

    @Test
    void offerRefusesBadIntegersAndMissingTags() {
        Event e = Events.sign(SECRET, 1, Offer.KIND, List.of(List.of("d", "x"), List.of("did", "d"),
                List.of("runtime", "chicory"), List.of("price_per_kfuel", "-1"), List.of("min_price", "0"),
                List.of("max_fuel", "1"), List.of("max_memory_pages", "1"), List.of("max_module_bytes", "1")), "");
        MarketProtocolException x = assertThrows(MarketProtocolException.class, () -> Offer.parse(e));
        assertEquals("tag \"price_per_kfuel\": a non-negative decimal integer, not -1", x.getMessage());
        Event noRuntime = Events.sign(SECRET, 1, Offer.KIND, List.of(List.of("d", "x"), List.of("did", "d"),
                List.of("price_per_kfuel", "1"), List.of("min_price", "0"), List.of("max_fuel", "1"),
                List.of("max_memory_pages", "1"), List.of("max_module_bytes", "1")), "");
        assertThrows(MarketProtocolException.class, () -> Offer.parse(noRuntime));
    }

    @Test
    void aSecondTagOfANameReadOnceIsRefused() throws Exception {
        Offer o = new Offer("default", "did:key:z6MkExample", List.of("chicory"), 10, 1000, 1_000_000_000L, 256,
                4_194_304, List.of("ln"), "");
        List<List<String>> priced = new java.util.ArrayList<>(o.tags());
        priced.add(List.of("price_per_kfuel", "0"));
        MarketProtocolException x = assertThrows(MarketProtocolException.class,
                () -> Offer.parse(Events.sign(SECRET, 1, Offer.KIND, priced, "")));
        assertEquals("duplicate tag \"price_per_kfuel\"", x.getMessage());

        JobRecord r = new JobRecord(REQUEST.digest(), SPEC.digest(), SPEC.module(), SPEC.input(),
                Commitment.of(K, Commitment.Summary.of(RESULT)), V.PAYMENT_HASH, 4242, 1000, "chicory",
                "ab".repeat(32), Optional.of(RESULT.outputDigest()));
        List<List<String>> twoOutputs = new java.util.ArrayList<>(r.tags());
        twoOutputs.add(List.of("output", ZEROS));
        x = assertThrows(MarketProtocolException.class,
                () -> JobRecord.parse(Events.sign(SECRET, 1, JobRecord.KIND, twoOutputs, "")));
        assertEquals("duplicate tag \"output\"", x.getMessage());
        assertEquals(r, JobRecord.parse(Events.sign(SECRET, 1, JobRecord.KIND, r.tags(), "")));
    }

    /** The values docs/spec/compute.md prints. */
    static final class V {
        static final String REQUEST_DIGEST = "46ccd5210da50a72f9c4b731a95d5cbeef271682ab72c76f12330c12597c37bb";
        static final String JOB_DIGEST = "e9418e4462f15e8b42b548dfe42b6d082ca1dbce984e51ef8ca8ecf7f62112d0";
        static final String CIPHERTEXT = "9b89d0a099d74b35b1d136f5636f7b590b02896758d4763572d43a41ab7aa8bc1750e1d842f276e0bf11a2d7fb5e8524"
                + "543742d6d0acdb0ceac98ebecf6d5a2dd038b798e7a6f74df47482a311b038f225dd3ac39b1aea17b383c3373d325b6d"
                + "02248dda29938fda643ce4ad3acdcc4e967d948968196d9197f0ef4752d74fdf32af9725881a1a1650ab278eae066145"
                + "684774146b63f590ec9fab3df6217c0cec29a87ab1d1baf2e82322812770f9ef451e383c48857f0d0504e136c092702a"
                + "84e449b88a63db1d08694bff26f6723551f4c7dcde0bee1fde9364ff41440ed4bfba6ec96e7eea0f9098d3c23525398e"
                + "a1fade660f99b67ec390e1764e185181f3a4fc544740a871f76daa648521fab9db1f34b222efea94ad5dc18f5947b38d"
                + "60a5e64f7183da5939e2fadf961f9fbe8df6a5d95dc70a341c6e091033f35db96d73";
        static final String COMMITMENT = "3fc2c41e36fb0c512d853904bc4d1467a49d6d67512a332da71e2415c629ca16";
        static final String PAYMENT_HASH = "ae216c2ef5247a3782c135efa279a3e4cdc61094270f5d2be58c6204b7a612c9";
        static final String OFFER_ID = "bb4d787d5784e597ffcfde221247e40da8f274ae0b131d57a0cf1677277d939f";
        static final String RECORD_ID = "b9a3377815f6662fc843a354a7426319cae84466fb215ad853d6e79fcbb4416b";
    }
}
