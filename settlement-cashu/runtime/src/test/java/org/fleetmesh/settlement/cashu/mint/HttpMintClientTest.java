package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.fleetmesh.settlement.cashu.nut.BlindSignature;
import org.fleetmesh.settlement.cashu.nut.BlindedMessage;
import org.fleetmesh.settlement.cashu.nut.Keyset;
import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each call sends the method, path and body its NUT specifies and reads the NUT's example answer. */
class HttpMintClientTest {
    private static final ObjectMapper JSON = Nut.json();

    private CannedMint mint;
    private HttpMintClient client;

    @BeforeEach
    void start() throws IOException {
        mint = new CannedMint();
        client = new HttpMintClient(mint.uri(), Duration.ofSeconds(10), HttpClient.newHttpClient());
    }

    @AfterEach
    void stop() {
        mint.close();
    }

    @Test
    void aClientFromASupplierIsMadeAtTheFirstCallAndOnce() {
        java.util.concurrent.atomic.AtomicInteger made = new java.util.concurrent.atomic.AtomicInteger();
        HttpMintClient lazy = new HttpMintClient(mint.uri(), Duration.ofSeconds(10), Duration.ofSeconds(10), () -> {
            made.incrementAndGet();
            return HttpClient.newHttpClient();
        });
        assertEquals(0, made.get(), "no client before a call");
        mint.answerResource(200, "info.json");
        assertEquals("Bob's Cashu mint", lazy.info().name());
        mint.answerResource(200, "info.json");
        assertEquals("Bob's Cashu mint", lazy.info().name());
        assertEquals(1, made.get(), "one client for every call");
    }

    @Test
    void infoGetsV1InfoAndReadsTheNut06Example() {
        mint.answerResource(200, "info.json");

        MintInfo info = client.info();

        assertRequest("GET", "/v1/info", null);
        assertEquals("Bob's Cashu mint", info.name());
        assertEquals("0283bf290884eed3a7ca2663fc0260de2e2064d6b355ea13f98dec004b7a7ead99", info.pubkey());
        assertEquals("Nutshell/0.15.0", info.version());
        assertEquals("A description that can be a long piece of text.", info.descriptionLong());
        assertEquals(new MintInfo.Contact("twitter", "@me"), info.contact().get(1));
        assertEquals(2, info.urls().size());
        assertEquals(1725304480L, info.time());
        assertEquals("https://mint.host/tos", info.tosUrl());
        MintInfo.MethodSetting mintSat = info.nuts().mint().find("bolt11", "sat").orElseThrow();
        assertEquals(0L, mintSat.minAmount());
        assertEquals(10000L, mintSat.maxAmount());
        assertEquals(100L, info.nuts().melt().find("bolt11", "sat").orElseThrow().minAmount());
    }

    @Test
    void infoTellsWhichNutsTheMintSupports() {
        mint.answerResource(200, "info.json");

        MintInfo info = client.info();

        for (int nut : new int[] { 4, 5, 7, 8, 9, 10, 12 }) {
            assertTrue(info.supports(nut), "NUT-" + nut);
        }
        for (int nut : new int[] { 11, 14, 15, 17 }) {
            assertFalse(info.supports(nut), "NUT-" + nut);
        }
    }

    @Test
    void keysGetsTheActiveKeysetsWithTheirKeys() {
        mint.answerResource(200, "keys.json");

        List<Keyset> keysets = client.keys();

        assertRequest("GET", "/v1/keys", null);
        assertEquals(1, keysets.size());
        Keyset k = keysets.get(0);
        assertEquals("009a1f293253e41e", k.id());
        assertEquals("sat", k.unit());
        assertTrue(k.active());
        assertEquals(100, k.inputFeePpk());
        assertEquals(1896187313L, k.finalExpiry().orElseThrow());
        assertEquals(List.of(1L, 2L, 4L, 8L), List.copyOf(k.keys().keySet()));
        assertEquals("0253de5237f189606f29d8a690ea719f74d65f617bb1cb6fbea34f2bc4f930016d", k.key(8));
    }

    @Test
    void keysOfOneKeysetGetsV1KeysWithTheId() {
        mint.answerResource(200, "keys-by-id.json");

        Keyset k = client.keys("009a1f293253e41e");

        assertRequest("GET", "/v1/keys/009a1f293253e41e", null);
        assertEquals("009a1f293253e41e", k.id());
        assertTrue(k.finalExpiry().isEmpty());
        assertEquals(4, k.keys().size());
    }

    @Test
    void keysetsListsAllKeysetsWithoutKeys() {
        mint.answerResource(200, "keysets.json");

        List<Keyset> keysets = client.keysets();

        assertRequest("GET", "/v1/keysets", null);
        assertEquals(2, keysets.size());
        assertEquals("015ba18a8adcd02e715a58358eb618da4a4b3791151a4bee5e968bb88406ccf76a", keysets.get(0).id());
        assertTrue(keysets.get(0).keys().isEmpty());
        assertFalse(keysets.get(1).active());
        assertTrue(keysets.get(1).finalExpiry().isEmpty());
    }

    @Test
    void swapPostsInputsAndOutputs() throws IOException {
        mint.answerResource(200, "swap-response.json");
        JsonNode request = tree("swap-request.json");

        List<BlindSignature> signatures = client.swap(proofs(request.get("inputs")), outputs(request.get("outputs")));

        assertRequest("POST", "/v1/swap", "swap-request.json");
        assertEquals(1, signatures.size());
        assertEquals(2, signatures.get(0).amount());
        assertEquals("0224f1c4c564230ad3d96c5033efdc425582397a5a7691d600202732edc6d4b1ec", signatures.get(0).c_());
    }

    @Test
    void mintQuotePostsAmountAndUnit() {
        mint.answerResource(200, "mint-quote-response.json");

        MintQuote q = client.mintQuote(10, "sat");

        assertRequest("POST", "/v1/mint/quote/bolt11", "mint-quote-request.json");
        assertEquals("019e6d5a-2347-7000-8322-05d51d498303", q.quote());
        assertEquals("lnbc100n1pj4apw9...", q.request());
        assertEquals(10, q.amount());
        assertEquals("sat", q.unit());
        assertEquals(MintQuote.State.UNPAID, q.state());
        assertEquals(1701704757L, q.expiry());
        assertNull(q.pubkey());
    }

    @Test
    void mintQuoteStateGetsTheQuoteById() {
        mint.answerResource(200, "mint-quote-response.json");

        MintQuote q = client.mintQuoteState("019e6d5a-2347-7000-8322-05d51d498303");

        assertRequest("GET", "/v1/mint/quote/bolt11/019e6d5a-2347-7000-8322-05d51d498303", null);
        assertEquals(MintQuote.State.UNPAID, q.state());
    }

    @Test
    void mintQuoteStateReadsTheDeprecatedPaidBoolean() {
        mint.answerResource(200, "mint-quote-paid-deprecated.json");

        MintQuote q = client.mintQuoteState("019e6d5a-2347-7000-8322-05d51d498303");

        assertEquals(MintQuote.State.PAID, q.state());
    }

    @Test
    void mintPostsQuoteAndOutputs() throws IOException {
        mint.answerResource(200, "mint-response.json");
        JsonNode request = tree("mint-request.json");

        List<BlindSignature> signatures = client.mint(request.get("quote").textValue(), outputs(request.get("outputs")));

        assertRequest("POST", "/v1/mint/bolt11", "mint-request.json");
        assertEquals(List.of(2L, 8L), signatures.stream().map(BlindSignature::amount).toList());
    }

    @Test
    void meltQuotePostsInvoiceAndUnit() {
        mint.answerResource(200, "melt-quote-response.json");

        MeltQuote q = client.meltQuote("lnbc100n1p3kdrv5sp5lpdxzghe5j67q...", "sat");

        assertRequest("POST", "/v1/melt/quote/bolt11", "melt-quote-request.json");
        assertEquals("019e6d5a-2347-7000-8449-370fefb42fed", q.quote());
        assertEquals(10, q.amount());
        assertEquals(2, q.feeReserve());
        assertEquals(MeltQuote.State.UNPAID, q.state());
        assertNull(q.paymentPreimage());
        assertTrue(q.change().isEmpty());
    }

    @Test
    void meltQuoteStateGetsTheQuoteByIdAndReadsThePreimage() {
        mint.answerResource(200, "melt-quote-paid.json");

        MeltQuote q = client.meltQuoteState("019e6d5a-2347-7000-89e2-35fe79f92c0e");

        assertRequest("GET", "/v1/melt/quote/bolt11/019e6d5a-2347-7000-89e2-35fe79f92c0e", null);
        assertEquals(MeltQuote.State.PAID, q.state());
        assertEquals("c5a1ae1f639e1f4a3872e81500fd028bece7bedc1152f740cba5c3417b748c1b", q.paymentPreimage());
    }

    @Test
    void meltPostsInputsAndBlankOutputsAndReadsTheChange() throws IOException {
        mint.answerResource(200, "melt-response.json");
        JsonNode request = tree("melt-request.json");

        MeltQuote q = client.melt(request.get("quote").textValue(), proofs(request.get("inputs")), outputs(request.get("outputs")));

        assertRequest("POST", "/v1/melt/bolt11", "melt-request.json");
        assertEquals(MeltQuote.State.PAID, q.state());
        assertEquals(1, q.change().size());
        assertEquals(2, q.change().get(0).amount());
        assertEquals("03c668f551855ddc792e22ea61d32ddfa6a45b1eb659ce66e915bf5127a8657be0", q.change().get(0).c_());
    }

    @Test
    void meltWithoutBlankOutputsLeavesOutputsOut() throws IOException {
        ObjectNode answer = (ObjectNode) tree("melt-response.json");
        answer.remove("change");
        mint.answerJson(200, answer.toString());
        JsonNode request = tree("melt-request.json");

        MeltQuote q = client.melt(request.get("quote").textValue(), proofs(request.get("inputs")), List.of());

        assertTrue(q.change().isEmpty());

        JsonNode sent = JSON.readTree(mint.last().body());
        assertFalse(sent.has("outputs"));
        assertEquals(request.get("inputs"), sent.get("inputs"));
    }

    @Test
    void checkStatePostsYsAndReadsStateAndWitness() {
        mint.answerResource(200, "checkstate-response.json");

        List<ProofState> states = client.checkState(List.of("02599b9ea0a1ad4143706c2a5a4a568ce442dd4313e1cf1f7f0b58a317c1a355ee"));

        assertRequest("POST", "/v1/checkstate", "checkstate-request.json");
        assertEquals(1, states.size());
        assertEquals(ProofState.State.SPENT, states.get(0).state());
        assertEquals("02599b9ea0a1ad4143706c2a5a4a568ce442dd4313e1cf1f7f0b58a317c1a355ee", states.get(0).y());
        assertTrue(states.get(0).witness().startsWith("{\"signatures\": [\"b2cf120a"));
    }

    @Test
    void restorePostsOutputsAndPairsThemWithSignatures() throws IOException {
        mint.answerResource(200, "restore-response.json");

        Restored r = client.restore(outputs(tree("restore-request.json").get("outputs")));

        assertRequest("POST", "/v1/restore", "restore-request.json");
        assertEquals(1, r.outputs().size());
        assertEquals("0288d7649652d0a83fc9c966c969fb217f15904431e61a44b14999fabc1b5d9ac6", r.outputs().get(0).b_());
        assertEquals("0224f1c4c564230ad3d96c5033efdc425582397a5a7691d600202732edc6d4b1ec", r.signatures().get(0).c_());
    }

    @Test
    void restoreReadsTheOlderPromisesName() throws IOException {
        mint.answerResource(200, "restore-response-promises.json");

        Restored r = client.restore(outputs(tree("restore-request.json").get("outputs")));

        assertEquals(1, r.signatures().size());
        assertEquals(2, r.signatures().get(0).amount());
    }

    @Test
    void aBaseUrlWithPathAndTrailingSlashKeepsThePathAndDropsTheSlash() {
        client = new HttpMintClient(URI.create(mint.uri() + "/cashu/"), Duration.ofSeconds(10), HttpClient.newHttpClient());
        mint.answerResource(200, "keysets.json");

        client.keysets();

        assertEquals(URI.create(mint.uri() + "/cashu"), client.base());
        assertRequest("GET", "/cashu/v1/keysets", null);
    }

    @Test
    void aQuoteIdIsPercentEncodedInThePath() {
        mint.answerJson(200, CannedMint.resource("mint-quote-response.json").replace("019e6d5a-2347-7000-8322-05d51d498303", "a/b c"));

        client.mintQuoteState("a/b c");

        assertEquals("/v1/mint/quote/bolt11/a%2Fb%20c", mint.last().path());
    }

    private void assertRequest(String method, String path, String bodyResource) {
        CannedMint.Request r = mint.last();
        assertEquals(method, r.method());
        assertEquals(path, r.path());
        if (bodyResource == null) {
            assertEquals("", r.body());
        } else {
            assertEquals("application/json", r.contentType());
            try {
                assertEquals(tree(bodyResource), JSON.readTree(r.body()));
            } catch (IOException e) {
                throw new AssertionError("request body is not JSON: " + r.body(), e);
            }
        }
    }

    private static JsonNode tree(String resource) throws IOException {
        return JSON.readTree(CannedMint.resource(resource));
    }

    private static List<Proof> proofs(JsonNode array) throws IOException {
        return List.of(JSON.treeToValue(array, Proof[].class));
    }

    private static List<BlindedMessage> outputs(JsonNode array) throws IOException {
        return List.of(JSON.treeToValue(array, BlindedMessage[].class));
    }
}
