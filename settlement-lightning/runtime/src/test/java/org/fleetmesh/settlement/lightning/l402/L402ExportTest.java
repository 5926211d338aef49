package org.fleetmesh.settlement.lightning.l402;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Signature;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11;
import org.fleetmesh.settlement.lightning.macaroon.Caveat;
import org.fleetmesh.spi.settlement.PaymentResult;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.spi.settlement.SettlementException;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

class L402ExportTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final long NOW = 1_750_000_000L;
    static final PubKey ALICE = new PubKey(L402TokenTest.filled(32, 0xa1));
    static final PubKey BOB = new PubKey(L402TokenTest.filled(32, 0xb0));
    static final String ALICE_NOTES = "{\"kinds\":[1],\"authors\":[\"" + ALICE.hex() + "\"]}";

    final MemoryEventStore store = new MemoryEventStore();
    final MemoryRail rail = new MemoryRail();
    final L402Settings settings = new L402Settings(2000, 5000, Duration.ofHours(1), Duration.ofMinutes(10), 4, "fleetmesh");
    final L402Export export = new L402Export(settings, L402TokenTest.ROOT, () -> store, () -> rail);
    int seq;

    Event add(PubKey author, int kind, long createdAt) {
        seq++;
        byte[] id = L402TokenTest.filled(32, 0);
        id[0] = (byte) seq;
        Event e = new Event(new EventId(id), author, createdAt, kind, List.of(), "note " + seq,
                new Signature(new byte[64]));
        store.save(List.of(e));
        return e;
    }

    L402Export.Challenge challenge(String filter) {
        return assertInstanceOf(L402Export.Challenge.class, export.handle(filter, null, NOW));
    }

    /** Pays the challenge's invoice as a wallet would and builds the Authorization header. */
    String pay(L402Export.Challenge c) {
        PaymentResult paid = rail.pay(c.challenge().invoice(), 0);
        assertTrue(paid.succeeded());
        return new L402Credentials(c.challenge().macaroon(), paid.preimage().orElseThrow()).toHeader();
    }

    List<String> streamed(L402Export.Outcome o) {
        L402Export.Granted g = assertInstanceOf(L402Export.Granted.class, o);
        List<String> lines = new ArrayList<>();
        export.stream(g, NOW, lines::add);
        assertEquals(g.events(), lines.size());
        return lines;
    }

    static JsonNode readTree(String json) {
        try {
            return JSON.readTree(json);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + json, e);
        }
    }

    L402Refusal.Code refused(L402Export.Outcome o) {
        return assertInstanceOf(L402Export.Refused.class, o).code();
    }

    @Test
    void challengeThenPaidExportOfTheMatchingEventsNewestFirst() throws Exception {
        Event a1 = add(ALICE, 1, 100);
        Event a2 = add(ALICE, 1, 300);
        Event a3 = add(ALICE, 1, 200);
        add(ALICE, 7, 400);
        add(BOB, 1, 500);

        L402Export.Challenge c = challenge(ALICE_NOTES);
        assertEquals(402, c.status());
        assertEquals(3, c.events());
        assertEquals(6000, c.priceMsat());
        assertEquals(NOW + 3600, c.expiresAt());
        // the invoice is real BOLT-11 on the token's payment hash for the price
        var bolt = Bolt11.decode(c.challenge().invoice());
        assertEquals(6000, bolt.amountMsat().getAsLong());
        L402Identifier id = L402Identifier.decode(c.challenge().macaroon().identifier());
        assertArrayEquals(id.paymentHash().toBytes(), bolt.paymentHash().bytes());
        assertEquals(List.of("expiry=" + (NOW + 3600), "filter=" + L402Filters.hash(L402Filters.parse(ALICE_NOTES)), "quota=3"),
                c.challenge().macaroon().caveats().stream().map(Caveat::predicate).toList());
        JsonNode body = JSON.readTree(c.body());
        assertEquals(6000, body.get("price_msat").asLong());
        assertEquals(3, body.get("events").asLong());
        assertEquals(3, body.get("quota").asLong());
        assertEquals(2000, body.get("price_msat_per_event").asLong());
        assertEquals(5000, body.get("min_price_msat").asLong());
        assertEquals(NOW + 3600, body.get("token_expires_at").asLong());
        assertEquals(c.challenge().invoice(), body.get("invoice").asText());
        assertEquals(c.challenge().macaroon().toBase64(), body.get("token").asText());
        assertEquals(id.paymentHash().hex(), body.get("payment_hash").asText());
        assertEquals(L402Filters.hash(L402Filters.parse(ALICE_NOTES)), body.get("filter_sha256").asText());

        String auth = pay(c);
        assertEquals(List.of(a2.json(), a3.json(), a1.json()), streamed(export.handle(ALICE_NOTES, auth, NOW + 10)));
        // reusable until expiry, the same filter written differently is the same filter
        String reordered = "{ \"authors\": [\"" + ALICE.hex() + "\"], \"kinds\": [1, 1] }";
        assertEquals(3, streamed(export.handle(reordered, auth, NOW + 3599)).size());
        assertEquals(L402Refusal.Code.EXPIRED, refused(export.handle(ALICE_NOTES, auth, NOW + 3600)));
        // the legacy scheme and a base64 preimage work too
        String legacy = auth.replace("L402 ", "LSAT ");
        assertEquals(3, streamed(export.handle(ALICE_NOTES, legacy, NOW)).size());
    }

    @Test
    void priceHasAMinimumAndIsCappedByTheLimits() {
        L402Export.Challenge none = challenge("{\"kinds\":[30023]}");
        assertEquals(0, none.events());
        assertEquals(5000, none.priceMsat());
        assertEquals(0, streamed(export.handle("{\"kinds\":[30023]}", pay(none), NOW)).size());

        for (int i = 0; i < 10; i++) {
            add(BOB, 1, 1000 + i);
        }
        L402Export.Challenge capped = challenge("{\"authors\":[\"" + BOB.hex() + "\"]}");
        assertEquals(4, capped.events(), "the relay's max limit caps an export");
        assertEquals(8000, capped.priceMsat());
        L402Export.Challenge limited = challenge("{\"authors\":[\"" + BOB.hex() + "\"],\"limit\":2}");
        assertEquals(2, limited.events());
        assertEquals(5000, limited.priceMsat(), "2 x 2000 is below the minimum");
    }

    @Test
    void quotaBoundsEachRequest() {
        Event old = add(ALICE, 1, 100);
        Event mid = add(ALICE, 1, 200);
        L402Export.Challenge c = challenge(ALICE_NOTES);
        String auth = pay(c);
        Event newer = add(ALICE, 1, 300);
        // three events now match, the token pays for two
        assertEquals(L402Refusal.Code.QUOTA_EXCEEDED, refused(export.handle(ALICE_NOTES, auth, NOW)));
        String withLimit = "{\"kinds\":[1],\"authors\":[\"" + ALICE.hex() + "\"],\"limit\":2}";
        assertEquals(List.of(newer.json(), mid.json()), streamed(export.handle(withLimit, auth, NOW)));
        String withOne = "{\"kinds\":[1],\"authors\":[\"" + ALICE.hex() + "\"],\"limit\":1}";
        assertEquals(List.of(newer.json()), streamed(export.handle(withOne, auth, NOW)));
        store.delete(List.of(newer.id()));
        assertEquals(List.of(mid.json(), old.json()), streamed(export.handle(ALICE_NOTES, auth, NOW)));
    }

    @Test
    void limitedPurchaseRedeemsWithTheSameRequest() {
        for (int i = 0; i < 3; i++) {
            add(ALICE, 1, 100 + i);
        }
        String two = "{\"kinds\":[1],\"authors\":[\"" + ALICE.hex() + "\"],\"limit\":2}";
        String auth = pay(challenge(two));
        assertEquals(2, streamed(export.handle(two, auth, NOW)).size());
        assertEquals(L402Refusal.Code.QUOTA_EXCEEDED, refused(export.handle(ALICE_NOTES, auth, NOW)));
    }

    @Test
    void refusals() {
        add(ALICE, 1, 100);
        L402Export.Challenge c = challenge(ALICE_NOTES);
        String auth = pay(c);
        String wrongPreimage = new L402Credentials(c.challenge().macaroon(), Preimage.random()).toHeader();
        assertEquals(L402Refusal.Code.WRONG_PREIMAGE, refused(export.handle(ALICE_NOTES, wrongPreimage, NOW)));
        assertEquals(L402Refusal.Code.FILTER_MISMATCH, refused(export.handle("{\"kinds\":[1]}", auth, NOW)));
        assertEquals(L402Refusal.Code.BAD_FILTER, refused(export.handle("{\"kinds\":", auth, NOW)));
        assertEquals(L402Refusal.Code.BAD_FILTER, refused(export.handle(null, auth, NOW)));
        assertEquals(L402Refusal.Code.MALFORMED_AUTHORIZATION, refused(export.handle(ALICE_NOTES, "L402 nonsense", NOW)));
        assertEquals(L402Refusal.Code.BAD_TOKEN, refused(export.handle(ALICE_NOTES, "L402 AAAA:" + "00".repeat(32), NOW)));
        L402Export other = new L402Export(settings, L402TokenTest.filled(32, 9), () -> store, () -> rail);
        assertEquals(L402Refusal.Code.BAD_TOKEN, refused(other.handle(ALICE_NOTES, auth, NOW)));
        L402Export.Refused r = assertInstanceOf(L402Export.Refused.class, export.handle(ALICE_NOTES, wrongPreimage, NOW));
        assertEquals(401, r.status());
        assertTrue(r.body().startsWith("{\"error\":\"wrong_preimage\",\"message\":\""), r.body());
        // refusal bodies are JSON even when the input carries quotes and control characters
        L402Export.Refused weird = assertInstanceOf(L402Export.Refused.class,
                export.handle("{\"a\\\"b\\n\":1}", null, NOW));
        assertEquals("bad_filter", readTree(weird.body()).get("error").asText());
        // (the field's newline is shown as a space: a refusal quotes someone else's text on one line)
        assertTrue(readTree(weird.body()).get("message").asText().endsWith("unknown filter field \"a\\\"b \""),
                weird.body());
        // an unrelated scheme is no credential: a fresh challenge
        assertInstanceOf(L402Export.Challenge.class, export.handle(ALICE_NOTES, "Bearer xyz", NOW));
    }

    @Test
    void unavailableOrMisbehavingRail() {
        L402Export noRail = new L402Export(settings, L402TokenTest.ROOT, () -> store, () -> {
            throw new L402Refusal(L402Refusal.Code.UNAVAILABLE, "no settlement rail");
        });
        assertEquals(503, noRail.handle(ALICE_NOTES, null, NOW).status());
        rail.failWith = new SettlementException(SettlementException.Reason.RAIL_UNAVAILABLE, "lnd is down");
        assertEquals(L402Refusal.Code.UNAVAILABLE, refused(export.handle(ALICE_NOTES, null, NOW)));
        rail.failWith = new SettlementException(SettlementException.Reason.AMOUNT_OUT_OF_RANGE, "too big");
        assertEquals(L402Refusal.Code.RAIL_ERROR, refused(export.handle(ALICE_NOTES, null, NOW)));
        rail.failWith = null;
        rail.wrongHash = true;
        assertEquals(L402Refusal.Code.RAIL_ERROR, refused(export.handle(ALICE_NOTES, null, NOW)));
    }

    @Test
    void streamOrderMatchesTheStore() {
        for (int i = 0; i < 4; i++) {
            add(ALICE, 1, 50);
        }
        List<Event> expected = new ArrayList<>(store.events);
        expected.sort(Comparator.comparing(Event::id));
        String auth = pay(challenge(ALICE_NOTES));
        assertEquals(expected.stream().map(Event::json).toList(), streamed(export.handle(ALICE_NOTES, auth, NOW)));
    }
}
