package org.fleetmesh.settlement.lightning.bolt12;

import static org.fleetmesh.settlement.lightning.bolt12.Bolt12Strings.blindedPath;
import static org.fleetmesh.settlement.lightning.bolt12.Bolt12Strings.encode;
import static org.fleetmesh.settlement.lightning.bolt12.Bolt12Strings.hex;
import static org.fleetmesh.settlement.lightning.bolt12.Bolt12Strings.nodeId;
import static org.fleetmesh.settlement.lightning.bolt12.Bolt12Strings.secretKey;
import static org.fleetmesh.settlement.lightning.bolt12.Bolt12Strings.signed;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fleetmesh.settlement.lightning.bolt11.Bech32;
import org.fleetmesh.settlement.lightning.bolt11.Features;
import org.fleetmesh.settlement.lightning.bolt11.NodeId;
import org.fleetmesh.settlement.lightning.bolt12.Bolt12Exception.Reason;
import org.junit.jupiter.api.Test;

/**
 * Reader rules checked on correctly encoded strings: the rules the seven misencoded offer vectors name,
 * the TLV and string layer, and the invoice request and invoice rules the vector files do not cover.
 */
class Bolt12ReaderRulesTest {
    private static final byte[] ALICE_KEY = secretKey(0x41);
    private static final byte[] BOB_KEY = secretKey(0x42);
    private static final byte[] CAROL_KEY = secretKey(0x43);
    private static final NodeId ALICE = nodeId(ALICE_KEY);
    private static final NodeId BOB = nodeId(BOB_KEY);
    private static final NodeId CAROL = nodeId(CAROL_KEY);
    /** x at or above the field prime: no point has it. */
    private static final byte[] NOT_A_POINT = hex("02" + "ff".repeat(32));

    private static Tlv description(String text) {
        return Tlv.of(10, text.getBytes(StandardCharsets.UTF_8));
    }

    private static Tlv issuerId(NodeId id) {
        return Tlv.of(22, id.bytes());
    }

    private static Reason refusal(String hrp, List<Tlv> records) {
        return assertThrows(Bolt12Exception.class, () -> Bolt12.decode(encode(hrp, records))).reason();
    }

    private static byte[] replace(byte[] bytes, int at, byte[] with) {
        byte[] out = bytes.clone();
        System.arraycopy(with, 0, out, at, with.length);
        return out;
    }

    // --- the rules of the seven offer vectors whose bytes do not reach them ---

    @Test
    void blindedPathRules() {
        byte[] good = blindedPath(BOB, CAROL, 1);
        assertEquals(Reason.EMPTY_BLINDED_PATH,
                refusal("lno", List.of(description("ALICE"), Tlv.of(16, blindedPath(BOB, CAROL, 0)), issuerId(ALICE))));
        byte[] empty = blindedPath(BOB, CAROL, 0);
        assertEquals(67, empty.length);
        byte[] secondEmpty = Arrays.copyOf(good, good.length + empty.length);
        System.arraycopy(empty, 0, secondEmpty, good.length, empty.length);
        assertEquals(Reason.EMPTY_BLINDED_PATH,
                refusal("lno", List.of(description("ALICE"), Tlv.of(16, secondEmpty))));
        assertEquals(Reason.MALFORMED_BLINDED_PATH, refusal("lno",
                List.of(description("ALICE"), Tlv.of(16, Arrays.copyOf(good, good.length - 3)), issuerId(ALICE))));
        assertEquals(Reason.MALFORMED_BLINDED_PATH, refusal("lno",
                List.of(description("ALICE"), Tlv.of(16, Arrays.copyOf(good, 70)), issuerId(ALICE))));
        assertEquals(Reason.INVALID_POINT, refusal("lno",
                List.of(description("ALICE"), Tlv.of(16, replace(good, 0, NOT_A_POINT)), issuerId(ALICE))));
        assertEquals(Reason.INVALID_POINT, refusal("lno",
                List.of(description("ALICE"), Tlv.of(16, replace(good, 33, NOT_A_POINT)), issuerId(ALICE))));
        assertEquals(Reason.INVALID_POINT, refusal("lno",
                List.of(description("ALICE"), Tlv.of(16, replace(good, 67, NOT_A_POINT)), issuerId(ALICE))));
    }

    @Test
    void offerTypeRanges() {
        byte[] chain = ChainHash.BITCOIN.bytes();
        assertEquals(Reason.TYPE_OUT_OF_RANGE,
                refusal("lno", List.of(description("ALICE"), issuerId(ALICE), Tlv.of(2_000_000_001L, chain))));
        assertEquals(Reason.TYPE_OUT_OF_RANGE, refusal("lno", List.of(Tlv.of(0, new byte[1]), description("A"), issuerId(ALICE))));
        assertEquals(Reason.UNKNOWN_EVEN_TYPE,
                refusal("lno", List.of(description("ALICE"), issuerId(ALICE), Tlv.of(1_000_000_002L, chain))));
        assertEquals(Reason.UNKNOWN_EVEN_TYPE, refusal("lno", List.of(description("ALICE"), issuerId(ALICE), Tlv.of(24, chain))));
    }

    // --- string and TLV layer ---

    @Test
    void minimalOfferRoundTripsAndKeepsUnknownOddTypes() throws Bolt12Exception {
        List<Tlv> records = List.of(description("ALICE"), issuerId(ALICE), Tlv.of(1_000_000_001L, hex("0102")));
        Offer offer = Bolt12.decodeOffer(encode("lno", records));
        assertEquals(List.of(ChainHash.BITCOIN), offer.chains());
        assertTrue(offer.offerChains().isEmpty());
        assertEquals(ALICE, offer.issuerId().orElseThrow());
        assertEquals(1_000_000_001L, offer.unknownFields().get(0).type());
        assertArrayEquals(hex("0102"), offer.unknownFields().get(0).value());
        assertEquals("ALICE", offer.toJson().get("offer_description").asText());
        assertEquals(1_000_000_001L, offer.toJson().get("unknown_fields").get(0).get("type").asLong());
        assertFalse(offer.isExpired(Instant.now()));
    }

    @Test
    void bigSizeMustBeMinimal() {
        byte[] nonMinimalType = hex("fd000a05414c494345");
        assertEquals(Reason.NON_MINIMAL_BIGSIZE,
                assertThrows(Bolt12Exception.class, () -> Tlv.parseStream(nonMinimalType)).reason());
        byte[] nonMinimalLength = hex("0afe00000005414c494345");
        assertEquals(Reason.NON_MINIMAL_BIGSIZE,
                assertThrows(Bolt12Exception.class, () -> Tlv.parseStream(nonMinimalLength)).reason());
        assertEquals(Reason.TRUNCATED, assertThrows(Bolt12Exception.class, () -> Tlv.parseStream(hex("fd00"))).reason());
        assertEquals(Reason.TYPES_NOT_ASCENDING,
                assertThrows(Bolt12Exception.class, () -> Tlv.parseStream(hex("0a00" + "0a00"))).reason());
    }

    @Test
    void bigSizeEncodingsAreMinimal() throws Bolt12Exception {
        for (long type : new long[] {0, 0xfc, 0xfd, 0xffff, 0x10000, 0xffffffffL, 0x100000000L, -1L}) {
            Tlv tlv = Tlv.of(type, hex("ab"));
            List<Tlv> parsed = Tlv.parseStream(tlv.encoded());
            assertEquals(type, parsed.get(0).type());
            assertArrayEquals(tlv.encoded(), parsed.get(0).encoded());
        }
        assertEquals(1, Tlv.of(0xfc, new byte[0]).typeBytes().length);
        assertEquals(3, Tlv.of(0xfd, new byte[0]).typeBytes().length);
        assertEquals(5, Tlv.of(0x10000, new byte[0]).typeBytes().length);
        assertEquals(9, Tlv.of(0x100000000L, new byte[0]).typeBytes().length);
    }

    @Test
    void truncatedIntegersMustBeMinimal() {
        assertEquals(Reason.NON_MINIMAL_INTEGER, refusal("lno",
                List.of(Tlv.of(8, hex("0064")), description("A"), issuerId(ALICE))));
        assertEquals(Reason.INVALID_FIELD_LENGTH, refusal("lno",
                List.of(Tlv.of(8, hex("010203040506070809")), description("A"), issuerId(ALICE))));
    }

    @Test
    void stringLayer() {
        String offer = encode("lno", List.of(description("ALICE"), issuerId(ALICE)));
        assertEquals(Reason.UNKNOWN_PREFIX, assertThrows(Bolt12Exception.class,
                () -> Bolt12.decode("lnx" + offer.substring(3))).reason());
        assertEquals(Reason.UNKNOWN_PREFIX, assertThrows(Bolt12Exception.class,
                () -> Bolt12.decodeInvoiceRequest(offer)).reason());
        assertEquals(Reason.MALFORMED_STRING, assertThrows(Bolt12Exception.class,
                () -> Bolt12.decode(offer.substring(0, 10) + "b" + offer.substring(11))).reason());
        assertEquals(Reason.MALFORMED_STRING, assertThrows(Bolt12Exception.class,
                () -> Bolt12.decode(offer.substring(0, 10) + " " + offer.substring(10))).reason());
        assertEquals(Reason.MALFORMED_STRING, assertThrows(Bolt12Exception.class,
                () -> Bolt12.decode("lnoqqqq")).reason());
        assertEquals(Reason.EMPTY, assertThrows(Bolt12Exception.class, () -> Bolt12.decode("LNI1")).reason());
        assertEquals(Reason.INVALID_CONTINUATION, assertThrows(Bolt12Exception.class,
                () -> Bolt12.decode(offer.substring(0, 10) + "+\n+" + offer.substring(10))).reason());
    }

    @Test
    void paddingBitsMustBeZeroAndFewerThanFive() {
        // 1 byte = 8 bits: two groups, 2 padding bits
        assertArrayEquals(new byte[] {(byte) 0xff}, Bech32.toBytesStrict(new byte[] {31, 28}));
        assertEquals(null, Bech32.toBytesStrict(new byte[] {31, 29}));
        assertEquals(null, Bech32.toBytesStrict(new byte[] {31, 28, 0}));
        String offer = encode("lno", List.of(description("ALICE"), issuerId(ALICE)));
        char last = offer.charAt(offer.length() - 1);
        int value = Bech32.valueOf(last);
        // the offer is 41 bytes = 328 bits in 66 groups: 2 padding bits; set the lowest
        assertEquals(0, value & 3);
        String withPaddingBit = offer.substring(0, offer.length() - 1) + "qpzry9x8gf2tvdw0s3jn54khce6mua7l".charAt(value | 1);
        assertEquals(Reason.INVALID_PADDING,
                assertThrows(Bolt12Exception.class, () -> Bolt12.decode(withPaddingBit)).reason());
    }

    @Test
    void offerFeatures() throws Bolt12Exception {
        // bit 99 (odd) is ignored, bit 98 (even, unknown) refused
        byte[] odd = new byte[13];
        odd[0] = 0x08;
        assertEquals(Features.of(99), Bolt12.decodeOffer(encode("lno",
                List.of(description("A"), Tlv.of(12, odd), issuerId(ALICE)))).features());
        byte[] even = new byte[13];
        even[0] = 0x04;
        assertEquals(Reason.UNKNOWN_REQUIRED_FEATURE,
                refusal("lno", List.of(description("A"), Tlv.of(12, even), issuerId(ALICE))));
    }

    @Test
    void oversizedStringsAreRefusedBeforeDecoding() throws Bolt12Exception {
        // a 600 KB bitmap of odd bits was decoded bit by bit into a list of ~2.4 million Integers (hundreds of MiB)
        byte[] odd = new byte[600_000];
        Arrays.fill(odd, (byte) 0xaa);
        assertEquals(Reason.TOO_LONG, refusal("lno", List.of(description("A"), Tlv.of(12, odd), issuerId(ALICE))));
        byte[] justOver = new byte[Bolt12.MAX_DATA_BYTES - 40]; // with the other records, 2 bytes over;
        Arrays.fill(justOver, (byte) 0xaa);
        assertEquals(Reason.TOO_LONG, refusal("lno", List.of(description("A"), Tlv.of(12, justOver), issuerId(ALICE))));
        assertEquals(Reason.TOO_LONG, assertThrows(Bolt12Exception.class,
                () -> Bolt12.decode("lno1" + "q".repeat(Bolt12.MAX_CHARS))).reason());
        byte[] fits = new byte[1000];
        Arrays.fill(fits, (byte) 0xaa);
        assertEquals(4000, Bolt12.decodeOffer(encode("lno",
                List.of(description("A"), Tlv.of(12, fits), issuerId(ALICE)))).features().bits().size());
    }

    // --- invoice requests ---

    private static List<Tlv> requestWithoutOffer(Tlv... extra) {
        List<Tlv> records = new ArrayList<>();
        records.add(Tlv.of(0, hex("0102030405060708")));
        records.add(description("a refund"));
        records.addAll(List.of(extra));
        records.add(Tlv.of(82, hex("03e8")));
        records.add(Tlv.of(88, BOB.bytes()));
        records.sort((a, b) -> Long.compareUnsigned(a.type(), b.type()));
        return records;
    }

    @Test
    void invoiceRequestWithoutOffer() throws Bolt12Exception {
        InvoiceRequest request = Bolt12.decodeInvoiceRequest(encode("lnr", signed("invoice_request", requestWithoutOffer(), BOB_KEY)));
        assertFalse(request.isForOffer());
        assertEquals(1000, request.amountMsat().getAsLong());
        assertEquals(BOB, request.payerId().orElseThrow());
        assertEquals("a refund", request.offer().description().orElseThrow());
        assertEquals(1000, request.toJson().get("invreq_amount_msat").asLong());

        // signed by someone else
        assertEquals(Reason.INVALID_SIGNATURE, refusal("lnr", signed("invoice_request", requestWithoutOffer(), CAROL_KEY)));
        // without an offer it may not carry offer_quantity_max
        assertEquals(Reason.INVALID_FIELD,
                refusal("lnr", signed("invoice_request", requestWithoutOffer(Tlv.of(20, hex("05"))), BOB_KEY)));
        // type 161 is outside 0..159 and not a signature type
        assertEquals(Reason.TYPE_OUT_OF_RANGE,
                refusal("lnr", signed("invoice_request", requestWithoutOffer(Tlv.of(161, hex("00"))), BOB_KEY)));
        // unknown odd types in range are kept
        InvoiceRequest withOdd = Bolt12.decodeInvoiceRequest(encode("lnr",
                signed("invoice_request", requestWithoutOffer(Tlv.of(2_000_000_001L, hex("00"))), BOB_KEY)));
        assertEquals(2_000_000_001L, withOdd.unknownFields().get(0).type());
        // invreq_features with an unknown even bit
        assertEquals(Reason.UNKNOWN_REQUIRED_FEATURE,
                refusal("lnr", signed("invoice_request", requestWithoutOffer(Tlv.of(84, hex("01"))), BOB_KEY)));
        // invreq_metadata and invreq_payer_id are required
        List<Tlv> noMetadata = requestWithoutOffer().subList(1, 4);
        assertEquals(Reason.MISSING_FIELD, refusal("lnr", signed("invoice_request", noMetadata, BOB_KEY)));
        List<Tlv> noPayer = requestWithoutOffer().subList(0, 3);
        assertEquals(Reason.MISSING_FIELD, refusal("lnr", noPayer));
        // BIP-353 names are letters, digits, '-', '_', '.'
        Tlv goodName = Tlv.of(91, hex("03626f62" + "0b6578616d706c652e636f6d"));
        InvoiceRequest named = Bolt12.decodeInvoiceRequest(encode("lnr", signed("invoice_request", requestWithoutOffer(goodName), BOB_KEY)));
        assertEquals(new InvoiceRequest.Bip353Name("bob", "example.com"), named.bip353Name().orElseThrow());
        Tlv badName = Tlv.of(91, hex("03622f62" + "0b6578616d706c652e636f6d"));
        assertEquals(Reason.INVALID_FIELD, refusal("lnr", signed("invoice_request", requestWithoutOffer(badName), BOB_KEY)));
    }

    @Test
    void invoiceRequestForOfferQuantity() throws Bolt12Exception {
        List<Tlv> base = List.of(Tlv.of(0, hex("00")), Tlv.of(8, hex("64")), description("widgets"),
                Tlv.of(20, hex("05")), issuerId(ALICE));
        List<Tlv> ok = new ArrayList<>(base);
        ok.add(Tlv.of(86, hex("05")));
        ok.add(Tlv.of(88, BOB.bytes()));
        InvoiceRequest request = Bolt12.decodeInvoiceRequest(encode("lnr", signed("invoice_request", ok, BOB_KEY)));
        assertTrue(request.isForOffer());
        assertEquals(5, request.quantity().getAsLong());

        List<Tlv> tooMany = new ArrayList<>(base);
        tooMany.add(Tlv.of(86, hex("06")));
        tooMany.add(Tlv.of(88, BOB.bytes()));
        assertEquals(Reason.INVALID_FIELD, refusal("lnr", signed("invoice_request", tooMany, BOB_KEY)));

        List<Tlv> none = new ArrayList<>(base);
        none.add(Tlv.of(88, BOB.bytes()));
        assertEquals(Reason.MISSING_FIELD, refusal("lnr", signed("invoice_request", none, BOB_KEY)));
    }

    // --- invoices ---

    private static byte[] payInfo(byte[] features) {
        ByteBuffer b = ByteBuffer.allocate(28 + features.length);
        b.putInt(1000).putInt(100).putShort((short) 144).putLong(1).putLong(1_000_000).putShort((short) features.length);
        b.put(features);
        return b.array();
    }

    private static List<Tlv> invoice(NodeId nodeId, byte[] payInfo, boolean withHash) {
        List<Tlv> records = new ArrayList<>(List.of(
                Tlv.of(0, hex("0102")),
                description("coffee"),
                issuerId(ALICE),
                Tlv.of(82, hex("03e8")),
                Tlv.of(88, BOB.bytes()),
                Tlv.of(160, blindedPath(CAROL, ALICE, 1)),
                Tlv.of(162, payInfo),
                Tlv.of(164, hex("6553f100"))));
        if (withHash) {
            records.add(Tlv.of(168, new byte[32]));
        }
        records.add(Tlv.of(170, hex("03e8")));
        records.add(Tlv.of(174, hex("020000")));
        records.add(Tlv.of(176, nodeId.bytes()));
        return records;
    }

    @Test
    void invoice() throws Bolt12Exception {
        Bolt12Message decoded = Bolt12.decode(encode("lni", signed("invoice", invoice(ALICE, payInfo(new byte[0]), true), ALICE_KEY)));
        Bolt12Invoice invoice = assertInstanceOf(Bolt12Invoice.class, decoded);
        assertEquals(1000, invoice.amountMsat());
        assertEquals(ALICE, invoice.nodeId());
        assertEquals(0x6553f100L, invoice.createdAt());
        assertTrue(invoice.features().isSet(Bolt12Invoice.MPP_OPTIONAL));
        assertEquals(1, invoice.usablePaths().size());
        assertEquals(new BlindedPath.NodeIntroduction(CAROL), invoice.paths().get(0).firstNodeId());
        assertEquals(144, invoice.blindedPay().get(0).cltvExpiryDelta());
        assertEquals(BOB, invoice.invoiceRequest().payerId().orElseThrow());
        assertEquals("coffee", invoice.offer().description().orElseThrow());
        assertFalse(invoice.isExpired(Instant.ofEpochSecond(0x6553f100L + 7200)));
        assertTrue(invoice.isExpired(Instant.ofEpochSecond(0x6553f100L + 7201)));
        assertEquals("invoice", invoice.toJson().get("type").asText());
        assertEquals(1000, invoice.toJson().get("invoice_amount_msat").asLong());

        assertEquals(Reason.INVALID_SIGNATURE,
                refusal("lni", signed("invoice", invoice(ALICE, payInfo(new byte[0]), true), BOB_KEY)));
        assertEquals(Reason.MISSING_FIELD,
                refusal("lni", signed("invoice", invoice(ALICE, payInfo(new byte[0]), false), ALICE_KEY)));
        // invoice_node_id must be offer_issuer_id
        assertEquals(Reason.INVALID_FIELD,
                refusal("lni", signed("invoice", invoice(CAROL, payInfo(new byte[0]), true), CAROL_KEY)));
        // the only path's payinfo requires an unknown feature
        assertEquals(Reason.NO_USABLE_PATH,
                refusal("lni", signed("invoice", invoice(ALICE, payInfo(hex("01")), true), ALICE_KEY)));
        // two payinfos for one path
        byte[] one = payInfo(new byte[0]);
        byte[] two = Arrays.copyOf(one, one.length * 2);
        System.arraycopy(one, 0, two, one.length, one.length);
        assertEquals(Reason.BLINDEDPAY_MISMATCH, refusal("lni", signed("invoice", invoice(ALICE, two, true), ALICE_KEY)));
    }
}
