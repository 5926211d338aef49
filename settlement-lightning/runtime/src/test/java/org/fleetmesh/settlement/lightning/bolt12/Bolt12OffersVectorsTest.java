package org.fleetmesh.settlement.lightning.bolt12;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fleetmesh.settlement.lightning.bolt11.Features;
import org.fleetmesh.settlement.lightning.bolt11.NodeId;
import org.fleetmesh.settlement.lightning.bolt11.ShortChannelId;
import org.fleetmesh.settlement.lightning.bolt12.Bolt12Exception.Reason;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * bolt12-offers-test.json: every valid offer decodes to exactly the listed records, with the typed
 * value its "field info" states; every invalid one is refused for the reason its description states.
 */
class Bolt12OffersVectorsTest {
    private static final String FILE = "bolt12-offers-test.json";

    /** The refusal each invalid vector's description names. */
    private static final Map<String, Reason> REASONS = Map.ofEntries(
            Map.entry("Malformed: fields out of order", Reason.TYPES_NOT_ASCENDING),
            Map.entry("Malformed: unknown even TLV type 78", Reason.UNKNOWN_EVEN_TYPE),
            Map.entry("Malformed: empty", Reason.EMPTY),
            Map.entry("Malformed: truncated at type", Reason.TRUNCATED),
            Map.entry("Malformed: truncated in length", Reason.TRUNCATED),
            Map.entry("Malformed: truncated after length", Reason.TRUNCATED),
            Map.entry("Malformed: truncated in description", Reason.TRUNCATED),
            Map.entry("Malformed: invalid offer_chains length", Reason.INVALID_FIELD_LENGTH),
            Map.entry("Malformed: truncated currency UTF-8", Reason.INVALID_UTF8),
            Map.entry("Malformed: invalid currency UTF-8", Reason.INVALID_UTF8),
            Map.entry("Malformed: truncated description UTF-8", Reason.INVALID_UTF8),
            Map.entry("Malformed: invalid description UTF-8", Reason.INVALID_UTF8),
            Map.entry("Malformed: truncated offer_paths", Reason.MALFORMED_BLINDED_PATH),
            Map.entry("Malformed: zero num_hops in blinded_path", Reason.EMPTY_BLINDED_PATH),
            Map.entry("Malformed: truncated onionmsg_hop in blinded_path", Reason.MALFORMED_BLINDED_PATH),
            Map.entry("Malformed: bad first_node_id in blinded_path", Reason.INVALID_POINT),
            Map.entry("Malformed: bad path_key in blinded_path", Reason.INVALID_POINT),
            Map.entry("Malformed: bad blinded_node_id in onionmsg_hop", Reason.INVALID_POINT),
            Map.entry("Malformed: truncated issuer UTF-8", Reason.INVALID_UTF8),
            Map.entry("Malformed: invalid issuer UTF-8", Reason.INVALID_UTF8),
            Map.entry("Malformed: invalid offer_issuer_id", Reason.INVALID_POINT),
            Map.entry("Contains type >= 80", Reason.TYPE_OUT_OF_RANGE),
            Map.entry("Contains type > 1999999999", Reason.TYPE_OUT_OF_RANGE),
            Map.entry("Contains unknown even type (1000000002)", Reason.UNKNOWN_EVEN_TYPE),
            Map.entry("Contains unknown feature 122", Reason.UNKNOWN_REQUIRED_FEATURE),
            Map.entry("Missing offer_description, but has offer_amount", Reason.AMOUNT_WITHOUT_DESCRIPTION),
            Map.entry("Missing offer_amount with offer_currency", Reason.CURRENCY_WITHOUT_AMOUNT),
            Map.entry("Invalid: zero offer_amount", Reason.ZERO_AMOUNT),
            Map.entry("Invalid: zero offer_amount with currency", Reason.ZERO_AMOUNT),
            Map.entry("Missing offer_issuer_id and no offer_path", Reason.NO_ISSUER_ID_OR_PATHS),
            Map.entry("Second offer_path is empty", Reason.EMPTY_BLINDED_PATH),
            Map.entry("offer_chains with zero entries", Reason.EMPTY_CHAINS),
            Map.entry("Bech32 padding exceeds 4-bit limit", Reason.INVALID_PADDING));

    /**
     * Seven invalid vectors whose bytes break the TLV layer before the rule their description names can be
     * reached: the five blinded-path ones write {@code offer_paths} (type 16) with no length, so the first
     * bytes of the path are read as length 2 and the next record, of type 2 or 3, comes after type 16; the
     * two type-range ones write a 4-byte type after the 2-byte BigSize prefix {@code 0xfd} (instead of
     * {@code 0xfe}), so the type read is 30517 or 15258 and its length overruns the data. A strict reader
     * refuses them for that, as checked here; Bolt12ReaderRulesTest encodes each stated rule correctly
     * and checks that reason.
     */
    private static final Map<String, Reason> MISENCODED = Map.of(
            "Malformed: zero num_hops in blinded_path", Reason.TYPES_NOT_ASCENDING,
            "Malformed: truncated onionmsg_hop in blinded_path", Reason.TYPES_NOT_ASCENDING,
            "Malformed: bad first_node_id in blinded_path", Reason.TYPES_NOT_ASCENDING,
            "Malformed: bad path_key in blinded_path", Reason.TYPES_NOT_ASCENDING,
            "Malformed: bad blinded_node_id in onionmsg_hop", Reason.TYPES_NOT_ASCENDING,
            "Contains type > 1999999999", Reason.TRUNCATED,
            "Contains unknown even type (1000000002)", Reason.TRUNCATED);

    /** Bob's node id (secret key 0x4242...42), the introduction node of the blinded-path vectors. */
    private static final String BOB = "0324653eac434488002cc06bbfb7f10fe18991e35f9fe4302dbea6d2353dc0ab1c";
    private static final String PATH_KEY = "020202020202020202020202020202020202020202020202020202020202020202";

    private interface Check {
        void accept(Offer offer) throws Exception;
    }

    /** What each valid vector's "field info" says, as typed accessors must report it. */
    private static final Map<String, Check> FIELD_INFO = Map.ofEntries(
            Map.entry("description is 'Test vectors'",
                    o -> assertEquals("Test vectors", o.description().orElseThrow())),
            Map.entry("chains[0] is testnet", o -> assertEquals(List.of(ChainHash.TESTNET), o.chains())),
            Map.entry("chains[0] is bitcoin", o -> assertEquals(List.of(ChainHash.BITCOIN), o.chains())),
            Map.entry("chains[0] is liquidv1, chains[1] is bitcoin",
                    o -> assertEquals(List.of(ChainHash.LIQUIDV1, ChainHash.BITCOIN), o.chains())),
            Map.entry("metadata is 16 zero bytes", o -> assertEquals(16, o.metadata().orElseThrow().length)),
            Map.entry("amount is 10000msat", o -> {
                assertEquals(10000, o.amount().getAsLong());
                assertTrue(o.currency().isEmpty());
            }),
            Map.entry("amount is USD $100.00", o -> {
                assertEquals(10000, o.amount().getAsLong());
                assertEquals("USD", o.currency().orElseThrow());
            }),
            // 0x7a4297d8 is midnight of 2035-01-01 at UTC+10:30 (Adelaide summer time), 13:30 UTC the day before
            Map.entry("expiry is 2035-01-01", o -> {
                Instant expiry = java.time.OffsetDateTime.parse("2035-01-01T00:00:00+10:30").toInstant();
                assertEquals(expiry.getEpochSecond(), o.absoluteExpiry().getAsLong());
                assertFalse(o.isExpired(expiry));
                assertTrue(o.isExpired(expiry.plusSeconds(1)));
            }),
            Map.entry("path is [id=02020202..., enc=0x00*16], [id=02020202..., enc=0x11*8]", o -> {
                BlindedPath path = onlyPath(o, 1, 0);
                assertEquals(new BlindedPath.NodeIntroduction(NodeId.ofHex(BOB)), path.firstNodeId());
                assertHops(path, (byte) 0x11);
            }),
            Map.entry("short_channel_id is 0x0x42, direction is 0", o -> {
                BlindedPath path = onlyPath(o, 1, 0);
                assertEquals(new BlindedPath.ChannelIntroduction(0, ShortChannelId.of(0, 0, 42)), path.firstNodeId());
                assertHops(path, (byte) 0x11);
            }),
            Map.entry("path is [id=02020202..., enc=0x00*16], [id=02020202..., enc=0x22*8]", o -> {
                assertEquals(new BlindedPath.NodeIntroduction(NodeId.ofHex(BOB)), onlyPath(o, 2, 0).firstNodeId());
                assertHops(onlyPath(o, 2, 0), (byte) 0x11);
                BlindedPath second = onlyPath(o, 2, 1);
                assertEquals(new BlindedPath.ChannelIntroduction(1, ShortChannelId.of(1, 2, 3)), second.firstNodeId());
                assertHops(second, (byte) 0x22);
            }),
            Map.entry("issuer is 'https://bolt12.org BOLT12 industries'",
                    o -> assertEquals("https://bolt12.org BOLT12 industries", o.issuer().orElseThrow())),
            Map.entry("quantity_max is 5", o -> assertEquals(5, o.quantityMax().getAsLong())),
            Map.entry("quantity_max is unknown/unlimited", o -> assertEquals(0, o.quantityMax().getAsLong())),
            Map.entry("quantity_max is 1", o -> assertEquals(1, o.quantityMax().getAsLong())),
            Map.entry("feature bit 99 set", o -> assertEquals(Features.of(99), o.features())),
            Map.entry("type 33 is 'helloworld'", o -> assertUnknown(o, 33)),
            Map.entry("type 1000000033 is 'helloworld'", o -> assertUnknown(o, 1_000_000_033L)));

    private static BlindedPath onlyPath(Offer offer, int count, int index) {
        List<BlindedPath> paths = offer.paths().orElseThrow();
        assertEquals(count, paths.size());
        BlindedPath path = paths.get(index);
        assertEquals(NodeId.ofHex(PATH_KEY), path.firstPathKey());
        return path;
    }

    /** Two hops, both 0x0202...02: 16 zero bytes of encrypted data, then 8 bytes of {@code last}. */
    private static void assertHops(BlindedPath path, byte last) {
        assertEquals(2, path.hops().size());
        assertEquals(NodeId.ofHex(PATH_KEY), path.hops().get(0).blindedNodeId());
        assertEquals(NodeId.ofHex(PATH_KEY), path.finalBlindedNodeId());
        assertArrayEquals(new byte[16], path.hops().get(0).encryptedRecipientData());
        byte[] expected = new byte[8];
        java.util.Arrays.fill(expected, last);
        assertArrayEquals(expected, path.hops().get(1).encryptedRecipientData());
    }

    private static void assertUnknown(Offer offer, long type) {
        assertEquals(1, offer.unknownFields().size());
        assertEquals(type, offer.unknownFields().get(0).type());
        assertEquals("helloworld", new String(offer.unknownFields().get(0).value(), java.nio.charset.StandardCharsets.UTF_8));
    }

    @TestFactory
    List<DynamicTest> everyVector() throws IOException {
        JsonNode vectors = Bolt12Vectors.load(FILE);
        List<DynamicTest> tests = new ArrayList<>();
        int valid = 0;
        int invalid = 0;
        int i = 0;
        for (JsonNode v : vectors) {
            String description = v.get("description").asText();
            String string = v.get("bolt12").asText();
            String name = i++ + ": " + description;
            if (v.get("valid").asBoolean()) {
                valid++;
                tests.add(dynamicTest(name, () -> {
                    Offer offer = Bolt12.decodeOffer(string);
                    assertEquals(expectedRecords(v), offer.records().stream().map(Tlv::toString).toList());
                    assertEquals(offer.records().stream().map(Tlv::toString).toList(),
                            ((Offer) Bolt12.decode(string)).records().stream().map(Tlv::toString).toList());
                    if (v.has("field info")) {
                        Check check = FIELD_INFO.get(v.get("field info").asText());
                        if (check == null) {
                            throw new AssertionError("no check recorded for the field info '"
                                    + v.get("field info").asText() + "'");
                        }
                        check.accept(offer);
                    }
                    assertEquals("offer", offer.toJson().get("type").asText());
                }));
            } else {
                invalid++;
                tests.add(dynamicTest(name, () -> {
                    Reason expected = MISENCODED.getOrDefault(description, REASONS.get(description));
                    if (expected == null) {
                        throw new AssertionError("no expected reason recorded for the invalid vector '" + description + "'");
                    }
                    Bolt12Exception e = assertThrows(Bolt12Exception.class, () -> Bolt12.decodeOffer(string));
                    assertEquals(expected, e.reason(), e.getMessage());
                    Bolt12Exception again = assertThrows(Bolt12Exception.class, () -> Bolt12.decode(string));
                    assertEquals(expected, again.reason());
                }));
            }
        }
        assertEquals(53, valid + invalid, "the vector file changed: review the expected reasons");
        assertEquals(REASONS.size(), invalid);
        return tests;
    }

    private static List<String> expectedRecords(JsonNode vector) {
        List<String> out = new ArrayList<>();
        for (JsonNode f : vector.get("fields")) {
            assertEquals(f.get("length").asInt() * 2, f.get("hex").asText().length());
            out.add(f.get("type").asLong() + ":" + f.get("hex").asText());
        }
        return out;
    }
}
