package org.fleetmesh.settlement.lightning.bolt11;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import fr.acinq.secp256k1.Secp256k1;
import java.security.SecureRandom;
import java.util.List;
import org.fleetmesh.nostr.Hex;
import org.junit.jupiter.api.Test;

/** Bolt11.encode writes what Bolt11.decode reads back, signed by a fresh key. */
class Bolt11RoundTripTest {
    private static final SecureRandom RANDOM = new SecureRandom();

    private static byte[] freshKey() {
        byte[] key = new byte[32];
        do {
            RANDOM.nextBytes(key);
        } while (!Secp256k1.get().secKeyVerify(key));
        return key;
    }

    private static byte[] random(int length) {
        byte[] out = new byte[length];
        RANDOM.nextBytes(out);
        return out;
    }

    private static Invoice.Builder builder(byte[] key, Network network) {
        return Invoice.builder(network, new PaymentHash(random(32)), new PaymentSecret(random(32)),
                NodeId.fromSecretKey(key)).timestamp(1_700_000_000L);
    }

    private static void assertRoundTrips(Invoice invoice, byte[] key) throws Bolt11Exception {
        String text = Bolt11.encode(invoice, key);
        Invoice decoded = Bolt11.decode(text);
        assertEquals(invoice.withSignature(decoded.signature().orElseThrow()), decoded);
        assertTrue(decoded.signature().orElseThrow().isLowS());
        assertEquals(decoded, Bolt11.decode(text.toUpperCase()));
    }

    @Test
    void everyFieldSurvivesEncodeAndDecode() throws Exception {
        byte[] key = freshKey();
        RouteHop hop1 = new RouteHop(NodeId.fromSecretKey(freshKey()), ShortChannelId.of(800_000, 1234, 1), 1000, 100, 144);
        RouteHop hop2 = new RouteHop(NodeId.fromSecretKey(freshKey()), ShortChannelId.of(800_001, 5, 0), 0, 4_000_000_000L, 40);
        Invoice invoice = builder(key, Network.BITCOIN)
                .amountMsat(123_456_789L)
                .description("compute job 42: 3 GPU-minutes ✓")
                .expiry(900)
                .minFinalCltvExpiryDelta(80)
                .features(Features.of(8, 14, 17, 49))
                .routeHint(new RouteHint(List.of(hop1, hop2)))
                .routeHint(new RouteHint(List.of(hop1)))
                .fallback(new Fallback(Fallback.P2PKH, random(20)))
                .fallback(new Fallback(Fallback.P2SH, random(20)))
                .fallback(new Fallback(0, random(32)))
                .fallback(new Fallback(1, random(32)))
                .metadata(new PaymentMetadata(random(7)))
                .build();
        assertRoundTrips(invoice, key);
    }

    @Test
    void descriptionHashAndNoAmountRoundTrip() throws Exception {
        byte[] key = freshKey();
        assertRoundTrips(builder(key, Network.SIGNET).descriptionHash(new DescriptionHash(random(32))).build(), key);
    }

    @Test
    void everyNetworkAndAmountFormRoundTrips() throws Exception {
        byte[] key = freshKey();
        for (Network network : Network.values()) {
            for (long msat : new long[] {1, 10, 100, 1000, 100_000, 100_000_000, 100_000_000_000L, 987_654_321_012L}) {
                assertRoundTrips(builder(key, network).amountMsat(msat).description("x").build(), key);
            }
        }
    }

    @Test
    void zeroExpiryAndCltvDeltaRoundTrip() throws Exception {
        byte[] key = freshKey();
        assertRoundTrips(builder(key, Network.REGTEST).description("").expiry(0).minFinalCltvExpiryDelta(0)
                .features(Features.NONE).build(), key);
    }

    @Test
    void aSpecExampleReencodesToTheSameInvoice() throws Exception {
        byte[] key = Hex.decode(SpecExamples.PRIV_KEY, 32);
        Invoice example = Bolt11.decode(SpecExamples.P2PKH_FALLBACK_AND_ROUTE_HINTS);
        Invoice again = Bolt11.decode(Bolt11.encode(example, key));
        assertEquals(example.withSignature(again.signature().orElseThrow()), again);
    }

    @Test
    void refusesToSignForSomeoneElse() {
        Invoice invoice = builder(freshKey(), Network.BITCOIN).description("x").build();
        assertThrows(IllegalArgumentException.class, () -> Bolt11.encode(invoice, freshKey()));
    }

    @Test
    void refusesADescriptionTooLongForOneField() {
        byte[] key = freshKey();
        Invoice invoice = builder(key, Network.BITCOIN).description("x".repeat(640)).build();
        assertThrows(IllegalArgumentException.class, () -> Bolt11.encode(invoice, key));
    }

    @Test
    void jsonNamesTheFieldsInTheSpecsWords() throws Exception {
        ObjectNode json = Bolt11.decode(SpecExamples.P2PKH_FALLBACK_AND_ROUTE_HINTS).toJson();
        assertEquals("bitcoin", json.get("network").asText());
        assertEquals(2_000_000_000L, json.get("amount_msat").asLong());
        assertEquals(SpecExamples.TIMESTAMP, json.get("timestamp").asLong());
        assertEquals(3600, json.get("expiry").asLong());
        assertEquals(SpecExamples.PAYMENT_HASH, json.get("payment_hash").asText());
        assertEquals(SpecExamples.PAYMENT_SECRET, json.get("payment_secret").asText());
        assertEquals("3925b6f67e2c340036ed12093dd44e0368df1b6ea26c53dbe4811f58fd5db8c1",
                json.get("description_hash").asText());
        assertTrue(json.get("description") == null);
        assertEquals(SpecExamples.PAYEE, json.get("payee").asText());
        assertEquals(18, json.get("min_final_cltv_expiry").asInt());
        assertEquals("[8,14]", json.get("features").toString());
        assertEquals("1RustyRX2oai4EYYDpQGWvEL62BBGqN9T", json.at("/fallbacks/0/address").asText());
        assertEquals("66051x263430x1800", json.at("/route_hints/0/0/short_channel_id").asText());
        assertEquals(20, json.at("/route_hints/0/0/fee_proportional_millionths").asLong());
        assertEquals(130, json.get("signature").asText().length());
        assertTrue(Bolt11.decode(SpecExamples.DONATION).toJson().get("amount_msat").isNull());
    }
}
