package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.fleetmesh.settlement.cashu.nut.Nut;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reading the messages on their own, for the rules the canned NUT examples do not exercise. */
class MintMessagesTest {
    private static final ObjectMapper JSON = Nut.json();

    @Test
    void aNutWithSupportedFalseIsNotSupported() throws JsonProcessingException {
        MintInfo info = JSON.readValue("{\"nuts\": {\"7\": {\"supported\": false}}}", MintInfo.class);

        assertFalse(info.supports(7));
    }

    @Test
    void nut17IsSupportedWhenItListsSubscriptions() throws JsonProcessingException {
        MintInfo info = JSON.readValue("{\"nuts\": {\"17\": {\"supported\": [{\"method\": \"bolt11\", \"unit\": \"sat\","
                + " \"commands\": [\"bolt11_melt_quote\"]}]}, \"15\": {\"methods\": []}}}", MintInfo.class);

        assertTrue(info.supports(17));
        assertTrue(info.supports(15));
    }

    @Test
    void disabledMintingIsNotSupported() throws JsonProcessingException {
        MintInfo info = JSON.readValue("{\"nuts\": {\"4\": {\"methods\": [{\"method\": \"bolt11\", \"unit\": \"sat\"}],"
                + " \"disabled\": true}}}", MintInfo.class);

        assertFalse(info.supports(4));
        assertTrue(info.nuts().mint().disabled());
    }

    @Test
    void anInfoWithoutNutsSupportsNothingOptional() throws JsonProcessingException {
        MintInfo info = JSON.readValue("{\"name\": \"m\"}", MintInfo.class);

        assertFalse(info.supports(7));
        assertTrue(info.nuts().mint().methods().isEmpty());
        assertTrue(info.contact().isEmpty());
    }

    @Test
    void aMalformedMethodSettingMakesTheInfoMalformed() {
        assertThrows(JsonProcessingException.class, () -> JSON.readValue(
                "{\"nuts\": {\"5\": {\"methods\": [{\"method\": \"bolt11\"}]}}}", MintInfo.class));
    }

    @Test
    void olderContactPairsAreRead() throws JsonProcessingException {
        MintInfo info = JSON.readValue("{\"contact\": [[\"email\", \"contact@me.com\"]]}", MintInfo.class);

        assertEquals(new MintInfo.Contact("email", "contact@me.com"), info.contact().get(0));
    }

    @Test
    void theDeprecatedPaidFalseReadsAsUnpaidOnAMeltQuote() throws JsonProcessingException {
        MeltQuote q = JSON.readValue("{\"quote\": \"q\", \"amount\": 10, \"unit\": \"sat\", \"fee_reserve\": 2,"
                + " \"paid\": false}", MeltQuote.class);

        assertEquals(MeltQuote.State.UNPAID, q.state());
    }

    @Test
    void stateWinsOverTheDeprecatedPaid() throws JsonProcessingException {
        MintQuote q = JSON.readValue("{\"quote\": \"q\", \"request\": \"lnbc1\", \"amount\": 10, \"unit\": \"sat\","
                + " \"state\": \"ISSUED\", \"paid\": true}", MintQuote.class);

        assertEquals(MintQuote.State.ISSUED, q.state());
    }

    @Test
    void aMeltQuoteWithoutFeeReserveIsMalformed() {
        JsonProcessingException e = assertThrows(JsonProcessingException.class, () -> JSON.readValue(
                "{\"quote\": \"q\", \"amount\": 10, \"unit\": \"sat\", \"state\": \"PENDING\"}", MeltQuote.class));

        assertTrue(e.getMessage().contains("fee_reserve"), e.getMessage());
    }

    @Test
    void aRestoreAnswerPairingUnequalListsIsMalformed() {
        String json = CannedMint.resource("restore-response.json").replaceFirst("\"signatures\": \\[[^\\]]*\\]", "\"signatures\": []");

        JsonProcessingException e = assertThrows(JsonProcessingException.class, () -> JSON.readValue(json, Restored.class));

        assertTrue(e.getMessage().contains("1 outputs with 0 signatures"), e.getMessage());
    }

    @Test
    void aMeltRequestWithoutBlankOutputsWritesNoOutputsField() throws JsonProcessingException {
        PostMeltBolt11Request r = JSON.readValue(CannedMint.resource("melt-request.json"), PostMeltBolt11Request.class);

        String json = JSON.writeValueAsString(new PostMeltBolt11Request(r.quote(), r.inputs(), null));

        assertFalse(json.contains("outputs"), json);
    }

    @Test
    void everyListedErrorCodeHasItsDescription() {
        assertEquals("Proofs already spent", ErrorCodes.describe(ErrorCodes.PROOFS_ALREADY_SPENT));
        assertEquals("BAT mint rate limit exceeded", ErrorCodes.describe(ErrorCodes.BAT_MINT_RATE_LIMITED));
        assertEquals(null, ErrorCodes.describe(1337));
    }
}
