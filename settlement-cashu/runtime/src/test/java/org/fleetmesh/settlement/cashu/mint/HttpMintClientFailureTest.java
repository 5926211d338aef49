package org.fleetmesh.settlement.cashu.mint;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which failures say "the request had no effect" (definite) and which say "outcome unknown". */
class HttpMintClientFailureTest {
    private static final String QUOTE = "019e6d5a-2347-7000-8322-05d51d498303";

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
    void a400WithANutErrorIsDefiniteWithCodeAndDetail() {
        mint.answerResource(400, "error.json");

        MintException e = fails(() -> client.keysets());

        assertTrue(e.definite());
        assertEquals(400, e.httpStatus());
        assertEquals(1337, e.code());
        assertEquals("oops", e.detail());
        assertTrue(e.getMessage().contains("oops"), e.getMessage());
    }

    @Test
    void aKnownErrorCodeIsNamedInTheMessage() {
        mint.answerJson(400, "{\"detail\": \"Token already spent.\", \"code\": 11001}");

        MintException e = fails(() -> client.checkState(List.of("02599b9ea0a1ad4143706c2a5a4a568ce442dd4313e1cf1f7f0b58a317c1a355ee")));

        assertTrue(e.definite());
        assertEquals(ErrorCodes.PROOFS_ALREADY_SPENT, e.code());
        assertTrue(e.getMessage().contains("Proofs already spent"), e.getMessage());
    }

    @Test
    void a400WithoutANutErrorBodyIsNotDefinite() {
        mint.answerJson(400, "<html>Bad Request</html>");

        MintException e = fails(() -> client.keysets());

        assertFalse(e.definite());
        assertEquals(400, e.httpStatus());
        assertEquals(MintException.NO_CODE, e.code());
    }

    @Test
    void a400WhoseCodeIsNotANumberIsNotDefinite() {
        mint.answerJson(400, "{\"detail\": \"oops\", \"code\": \"1337\"}");

        assertFalse(fails(() -> client.keysets()).definite());
    }

    @Test
    void a500IsNotDefiniteEvenWithANutErrorBody() {
        mint.answerResource(500, "error.json");

        MintException e = fails(() -> client.keysets());

        assertFalse(e.definite());
        assertEquals(500, e.httpStatus());
        assertEquals(1337, e.code());
        assertEquals("oops", e.detail());
    }

    @Test
    void aClosedConnectionIsNotDefinite() {
        mint.answer(CannedMint.hangUp());

        MintException e = fails(() -> client.keysets());

        assertFalse(e.definite());
        assertEquals(MintException.NO_STATUS, e.httpStatus());
        assertTrue(e.getMessage().contains("I/O error"), e.getMessage());
    }

    @Test
    void aTimeoutIsNotDefinite() {
        client = new HttpMintClient(mint.uri(), Duration.ofMillis(200), HttpClient.newHttpClient());
        mint.answer(mint.never());

        MintException e = fails(() -> client.keysets());

        assertFalse(e.definite());
        assertTrue(e.getMessage().contains("no answer within"), e.getMessage());
    }

    @Test
    void aBodyThatTricklesPastTheDeadlineIsNotDefinite() {
        client = new HttpMintClient(mint.uri(), Duration.ofMillis(200), HttpClient.newHttpClient());
        CannedMint.Answer never = mint.never();
        mint.answer(exchange -> {
            exchange.sendResponseHeaders(200, 0);
            exchange.getResponseBody().write("{\"keysets\": [".getBytes());
            exchange.getResponseBody().flush();
            never.answer(exchange);
        });

        MintException e = fails(() -> client.keysets());

        assertFalse(e.definite());
        assertTrue(e.getMessage().contains("no answer within"), e.getMessage());
    }

    @Test
    void aBodyDeclaredLargerThanTheBoundIsNotDefinite() {
        mint.answer(CannedMint.bytes(200, oversized(), true));

        MintException e = fails(() -> client.keysets());

        assertFalse(e.definite());
        assertTrue(e.getMessage().contains("larger than " + HttpMintClient.MAX_RESPONSE_BYTES), e.getMessage());
    }

    @Test
    void aChunkedBodyGrowingPastTheBoundIsNotDefinite() {
        mint.answer(CannedMint.bytes(200, oversized(), false));

        MintException e = fails(() -> client.keysets());

        assertFalse(e.definite());
        assertTrue(e.getMessage().contains("larger than " + HttpMintClient.MAX_RESPONSE_BYTES), e.getMessage());
    }

    @Test
    void aBodyOfExactlyTheBoundIsRead() {
        String json = "{\"keysets\": []}";
        byte[] body = new byte[HttpMintClient.MAX_RESPONSE_BYTES];
        Arrays.fill(body, (byte) ' ');
        System.arraycopy(json.getBytes(), 0, body, 0, json.length());
        mint.answer(CannedMint.bytes(200, body, false));

        assertEquals(List.of(), client.keysets());
    }

    @Test
    void malformedJsonIsRefusedWithAClearMessage() {
        mint.answerJson(200, "{\"keysets\": [");

        MintException e = fails(() -> client.keysets());

        assertFalse(e.definite());
        assertTrue(e.getMessage().contains("GET /v1/keysets"), e.getMessage());
        assertTrue(e.getMessage().contains("malformed answer"), e.getMessage());
    }

    @Test
    void anEmptyBodyIsRefused() {
        mint.answerJson(200, "");

        MintException e = fails(() -> client.info());

        assertTrue(e.getMessage().contains("malformed answer: empty body"), e.getMessage());
    }

    @Test
    void aMissingRequiredFieldIsNamed() {
        mint.answerJson(200, CannedMint.resource("mint-quote-response.json").replace("\"state\": \"UNPAID\",", ""));

        MintException e = fails(() -> client.mintQuote(10, "sat"));

        assertFalse(e.definite());
        assertTrue(e.getMessage().contains("missing \"state\""), e.getMessage());
    }

    @Test
    void anUnknownStateIsRefused() {
        mint.answerJson(200, CannedMint.resource("mint-quote-response.json").replace("UNPAID", "MAYBE"));

        assertTrue(fails(() -> client.mintQuote(10, "sat")).getMessage().contains("malformed answer"));
    }

    @Test
    void anAmountInQuotesIsRefused() {
        mint.answerJson(200, CannedMint.resource("mint-quote-response.json").replace("\"amount\": 10", "\"amount\": \"10\""));

        assertTrue(fails(() -> client.mintQuote(10, "sat")).getMessage().contains("malformed answer"));
    }

    @Test
    void aDuplicateKeyIsRefused() {
        mint.answerJson(200, "{\"keysets\": [], \"keysets\": []}");

        assertTrue(fails(() -> client.keysets()).getMessage().contains("malformed answer"));
    }

    @Test
    void trailingContentIsRefused() {
        mint.answerJson(200, "{\"keysets\": []} {}");

        assertTrue(fails(() -> client.keysets()).getMessage().contains("malformed answer"));
    }

    @Test
    void aSwapAnswerWithFewerSignaturesThanOutputsIsNotDefinite() {
        mint.answerResource(200, "mint-response.json");

        MintException e = fails(() -> client.swap(List.of(), List.of()));

        assertFalse(e.definite());
        assertTrue(e.getMessage().contains("2 signatures for 0 outputs"), e.getMessage());
    }

    @Test
    void aCheckStateAnswerForOtherYsIsRefused() {
        mint.answerResource(200, "checkstate-response.json");

        MintException e = fails(() -> client.checkState(List.of("03599b9ea0a1ad4143706c2a5a4a568ce442dd4313e1cf1f7f0b58a317c1a355ee")));

        assertTrue(e.getMessage().contains("not for the Y asked"), e.getMessage());
    }

    @Test
    void aKeysAnswerWithoutTheAskedKeysetIsRefused() {
        mint.answerResource(200, "keys-by-id.json");

        MintException e = fails(() -> client.keys("015ba18a8adcd02e715a58358eb618da4a4b3791151a4bee5e968bb88406ccf76a"));

        assertFalse(e.definite());
        assertTrue(e.getMessage().contains("is not in the answer"), e.getMessage());
    }

    @Test
    void theQuoteIdStaysOutOfErrorMessages() {
        mint.answerJson(400, "{\"detail\": \"quote not found\", \"code\": 20007}");

        MintException e = fails(() -> client.mintQuoteState(QUOTE));

        assertTrue(e.definite());
        assertFalse(e.getMessage().contains(QUOTE), e.getMessage());
        assertTrue(e.getMessage().contains("/v1/mint/quote/bolt11/{quote}"), e.getMessage());
    }

    @Test
    void anUnreachableMintIsNotDefinite() throws IOException {
        URI gone = mint.uri();
        mint.close();

        MintException e = fails(() -> new HttpMintClient(gone, Duration.ofSeconds(5), HttpClient.newHttpClient()).info());

        assertFalse(e.definite());
        assertNull(e.detail());
    }

    @Test
    void aBaseUrlWithQueryOrUserInfoOrOtherSchemeIsRefused() {
        for (String url : new String[] { "https://mint.host/?a=b", "https://user:pw@mint.host", "ftp://mint.host", "mint.host" }) {
            assertThrows(IllegalArgumentException.class, () -> HttpMintClient.normalize(URI.create(url)), url);
        }
    }

    private static MintException fails(Executable call) {
        return assertThrows(MintException.class, call);
    }

    private static byte[] oversized() {
        byte[] body = new byte[HttpMintClient.MAX_RESPONSE_BYTES + 1];
        Arrays.fill(body, (byte) ' ');
        return body;
    }
}
