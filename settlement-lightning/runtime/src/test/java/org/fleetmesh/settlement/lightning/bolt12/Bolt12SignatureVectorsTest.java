package org.fleetmesh.settlement.lightning.bolt12;

import static org.fleetmesh.settlement.lightning.bolt12.Bolt12Strings.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fleetmesh.settlement.lightning.bolt12.Bolt12Exception.Reason;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * bolt12-signature-test.json: every leaf, nonce leaf, branch and Merkle root, and for the invoice
 * request vector the tagged signature message and the BIP-340 signature that {@link Bolt12#decode} verifies.
 */
class Bolt12SignatureVectorsTest {
    private static final String FILE = "bolt12-signature-test.json";
    private static final Pattern LEAF = Pattern.compile("H\\(`LnLeaf`,([0-9a-f]+)\\)");
    private static final Pattern BRANCH = Pattern.compile("H\\(`LnBranch`,([0-9a-f]{128})\\)");
    private static final HexFormat HEX = HexFormat.of();

    @TestFactory
    List<DynamicTest> everyVector() throws IOException {
        JsonNode vectors = Bolt12Vectors.load(FILE);
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode v : vectors) {
            tests.add(dynamicTest(v.get("comment").asText(), () -> check(v)));
        }
        assertEquals(4, tests.size(), "the vector file changed: review this test");
        return tests;
    }

    private static void check(JsonNode v) throws Exception {
        // the TLV stream is the concatenation of the leaves' records
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        for (JsonNode leaf : v.get("leaves")) {
            stream.writeBytes(hex(match(LEAF, leaf.fieldNames().next())));
        }
        List<Tlv> records = Tlv.parseStream(stream.toByteArray());
        assertEquals(v.get("first-tlv").asText(), HEX.formatHex(records.get(0).encoded()));
        int i = 0;
        for (JsonNode leaf : v.get("leaves")) {
            Tlv tlv = records.get(i++);
            Iterator<Map.Entry<String, JsonNode>> fields = leaf.fields();
            byte[] leafHash = Merkle.leaf(tlv);
            byte[] nonce = Merkle.nonce(records.get(0), tlv);
            assertEquals(fields.next().getValue().asText(), HEX.formatHex(leafHash));
            assertEquals(fields.next().getValue().asText(), HEX.formatHex(nonce));
            assertEquals(fields.next().getValue().asText(), HEX.formatHex(Merkle.branch(leafHash, nonce)));
        }
        for (JsonNode branch : v.get("branches")) {
            Iterator<Map.Entry<String, JsonNode>> fields = branch.fields();
            fields.next(); // desc
            Map.Entry<String, JsonNode> node = fields.next();
            byte[] children = hex(match(BRANCH, node.getKey()));
            byte[] a = java.util.Arrays.copyOfRange(children, 0, 32);
            byte[] b = java.util.Arrays.copyOfRange(children, 32, 64);
            assertTrue(java.util.Arrays.compareUnsigned(a, b) < 0, "the vector writes the lesser child first");
            assertEquals(node.getValue().asText(), HEX.formatHex(Merkle.branch(b, a)));
        }
        assertEquals(v.get("merkle").asText(), HEX.formatHex(Merkle.root(records)));

        if (v.has("bolt12")) {
            InvoiceRequest request = Bolt12.decodeInvoiceRequest(v.get("bolt12").asText());
            // the leaves are the non-signature records; the string adds the signature
            assertEquals(records.stream().map(Tlv::toString).toList(),
                    request.records().stream().filter(t -> t.type() != 240).map(Tlv::toString).toList());
            assertEquals(v.get("merkle").asText(), HEX.formatHex(request.merkleRoot()));
            assertEquals("lightning" + v.get("tlv").asText() + "signature", v.get("signature_tag").asText());
            byte[] message = Merkle.taggedHash(v.get("signature_tag").asText(), request.merkleRoot());
            assertEquals(v.get("H(signature_tag,merkle)").asText(), HEX.formatHex(message));
            assertArrayEquals(message, request.signedMessage());
            assertEquals(v.get("signature").asText(), HEX.formatHex(request.signature().orElseThrow()));
            assertTrue(Merkle.verify(request.signature().orElseThrow(), message, request.payerId().orElseThrow()));
            assertEquals("invoice_request", request.toJson().get("type").asText());
            assertEquals(v.get("signature").asText(), request.toJson().get("signature").asText());
        }
    }

    private static String match(Pattern p, String s) {
        Matcher m = p.matcher(s);
        if (!m.matches()) {
            throw new AssertionError("unexpected key " + s);
        }
        return m.group(1);
    }

    /** The vector's invoice request with one bit of its signature flipped, or a field changed, is refused. */
    @Test
    void tamperedInvoiceRequestIsRefused() throws Exception {
        JsonNode v = Bolt12Vectors.load(FILE).get(3);
        InvoiceRequest request = Bolt12.decodeInvoiceRequest(v.get("bolt12").asText());
        List<Tlv> records = request.records();
        assertEquals(v.get("bolt12").asText(), Bolt12Strings.encode("lnr", records));

        List<Tlv> badSig = new ArrayList<>(records);
        byte[] sig = records.get(records.size() - 1).value();
        sig[63] ^= 1;
        badSig.set(badSig.size() - 1, Tlv.of(240, sig));
        Bolt12Exception e = assertThrows(Bolt12Exception.class,
                () -> Bolt12.decode(Bolt12Strings.encode("lnr", badSig)));
        assertEquals(Reason.INVALID_SIGNATURE, e.reason());

        List<Tlv> otherAmount = new ArrayList<>(records);
        otherAmount.set(2, Tlv.of(8, new byte[] {(byte) 101}));
        e = assertThrows(Bolt12Exception.class, () -> Bolt12.decode(Bolt12Strings.encode("lnr", otherAmount)));
        assertEquals(Reason.INVALID_SIGNATURE, e.reason());

        List<Tlv> unsigned = records.subList(0, records.size() - 1);
        e = assertThrows(Bolt12Exception.class, () -> Bolt12.decode(Bolt12Strings.encode("lnr", unsigned)));
        assertEquals(Reason.MISSING_SIGNATURE, e.reason());
    }
}
