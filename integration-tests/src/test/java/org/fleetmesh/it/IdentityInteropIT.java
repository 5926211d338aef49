package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.nostr.nip44.ConversationKey;
import org.fleetmesh.nostr.nip44.Nip44;
import org.fleetmesh.nostr.nip44.Nip44Exception;
import org.fleetmesh.nostr.nip59.GiftWrap;
import org.fleetmesh.nostr.nip59.GiftWrapException;
import org.fleetmesh.nostr.nip59.Rumor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * NIP-44 v2 and NIP-59 against an implementation nobody here wrote: nostr-tools from npm. No relay:
 * one node run decrypts what Java encrypted, unwraps what Java wrapped, and hands back its own
 * payloads and gift wrap for Java to decrypt and open. Both directions must give back the exact
 * plaintexts and rumors, including plaintexts of 65,536 bytes and more (the 6-byte length prefix),
 * and each side must refuse the other's payload with one flipped byte.
 */
class IdentityInteropIT {
    private static final String SCRIPT = "nip44-nip59-interop.mjs";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final MessageParser PARSER = new MessageParser(MessageParser.Limits.DEFAULT);
    /** Labels and UTF-8 sizes of the plaintexts both sides encrypt; null where the size is whatever the text is. */
    private static final Map<String, Integer> SIZES = new LinkedHashMap<>();

    static {
        SIZES.put("1 byte", 1);
        SIZES.put("ascii", null);
        SIZES.put("utf-8 + emoji", null);
        SIZES.put("1 KiB", 1024);
        SIZES.put("65,535 bytes", 65_535);
        SIZES.put("65,536 bytes", 65_536);
        SIZES.put("100,000 bytes", 100_000);
    }

    record Plain(String label, String text, String payload) {
    }

    static byte[] aliceSecret;
    static byte[] bobSecret;
    static PubKey alice;
    static PubKey bob;
    static ConversationKey aliceToBob;
    static List<Plain> javaPlain = new ArrayList<>();
    static String tamperedJavaPayload;
    static ObjectNode rumorTemplate;
    static Rumor javaRumor;
    static Event javaWrap;
    static ObjectNode controlCharTemplate;
    static Event javaControlCharWrap;

    static NodeJs.Run node;
    static long nodeMillis;
    static JsonNode out;

    @BeforeAll
    static void runNostrTools() throws Exception {
        Path jsDir = NodeJs.withNostrTools(SCRIPT);
        prepareJavaSide();

        ObjectNode in = NostrClient.JSON.createObjectNode();
        in.putObject("alice").put("sk", Hex.encode(aliceSecret)).put("pk", alice.hex());
        in.putObject("bob").put("sk", Hex.encode(bobSecret)).put("pk", bob.hex());
        in.put("conversationKey", aliceToBob.hex());
        ArrayNode payloads = in.putArray("javaPayloads");
        for (Plain p : javaPlain) {
            payloads.addObject().put("label", p.label()).put("plaintext", p.text()).put("payload", p.payload());
        }
        in.put("tamperedJavaPayload", tamperedJavaPayload);
        in.set("rumorTemplate", rumorTemplate);
        in.set("javaRumor", NostrClient.tree(javaRumor.json()));
        in.set("javaWrap", NostrClient.tree(javaWrap.json()));
        in.set("javaWrapBrokenSig", NostrClient.tree(Keys.withBrokenSignature(javaWrap)));
        in.set("controlCharTemplate", controlCharTemplate);
        in.set("javaControlCharWrap", NostrClient.tree(javaControlCharWrap.json()));

        Path inFile = MeshnodeProcess.outputFile("identity-interop-", ".in.json");
        Path outFile = MeshnodeProcess.outputFile("identity-interop-", ".out.json");
        Files.writeString(inFile, NostrClient.JSON.writeValueAsString(in), StandardCharsets.UTF_8);
        Files.writeString(outFile, "");

        long t0 = System.nanoTime();
        node = NodeJs.run(jsDir, 60, "node", SCRIPT, inFile.toString(), outFile.toString());
        nodeMillis = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("nostr-tools " + NodeJs.NOSTR_TOOLS + " NIP-44/NIP-59 script ran in " + nodeMillis + " ms, exit "
                + node.exit() + "\n" + node.stdout() + node.stderr());
        String json = Files.readString(outFile, StandardCharsets.UTF_8);
        out = json.isBlank() ? null : NostrClient.tree(json);
    }

    // ---- the tests

    @Test
    void nostrToolsScriptPassesItsOwnChecks() {
        assertEquals(0, node.exit(), "the nostr-tools script failed:\n" + node.stdout() + node.stderr());
        assertEquals(0, out().path("failures").size(), "nostr-tools side: " + out().path("failures"));
        assertTrue(nodeMillis < 30_000, "the nostr-tools run took " + nodeMillis + " ms");
    }

    @Test
    void bothSidesDeriveTheSameConversationKey() throws Nip44Exception {
        String java = aliceToBob.hex();
        assertEquals(java, ConversationKey.of(bobSecret, alice).hex(), "Java, from either side");
        JsonNode keys = out().path("conversationKeys");
        assertEquals(java, keys.path("aliceToBob").asText(), "nostr-tools getConversationKey(alice, bob)");
        assertEquals(java, keys.path("bobToAlice").asText(), "nostr-tools getConversationKey(bob, alice)");
    }

    @Test
    void nostrToolsDecryptsWhatJavaEncrypted() {
        JsonNode decrypted = out().path("decryptedJava");
        assertEquals(javaPlain.size(), decrypted.size());
        for (int i = 0; i < javaPlain.size(); i++) {
            Plain p = javaPlain.get(i);
            JsonNode d = decrypted.get(i);
            assertEquals(p.label(), d.path("label").asText());
            assertTrue(d.path("ok").asBoolean(), p.label() + ": nostr-tools refused it: " + d.path("error").asText());
            String back = d.path("plaintext").asText();
            assertEquals(utf8Length(p.text()), utf8Length(back), p.label() + ": UTF-8 length");
            assertTrue(p.text().equals(back), p.label() + ": nostr-tools decrypted another plaintext");
        }
    }

    @Test
    void javaDecryptsWhatNostrToolsEncrypted() throws Nip44Exception {
        JsonNode payloads = out().path("jsPayloads");
        assertEquals(new ArrayList<>(SIZES.keySet()), labels(payloads), "the nostr-tools set");
        for (JsonNode p : payloads) {
            String label = p.path("label").asText();
            assertTrue(p.path("ok").asBoolean(), label + ": nostr-tools refused to encrypt it: " + p.path("error").asText());
            String plaintext = p.path("plaintext").asText();
            int bytes = utf8Length(plaintext);
            assertEquals(p.path("bytes").asInt(), bytes, label);
            if (SIZES.get(label) != null) {
                assertEquals(SIZES.get(label), bytes, label + ": size of the nostr-tools plaintext");
            }
            String payload = p.path("payload").asText();
            // 2-byte prefix below 65,536 bytes, 6 bytes (0x0000 || u32) from there on
            assertPayloadSize(payload, bytes, "nostr-tools " + label);
            String back = Nip44.decrypt(payload, aliceToBob);
            assertEquals(bytes, utf8Length(back), label + ": UTF-8 length");
            assertTrue(plaintext.equals(back), label + ": Java decrypted another plaintext");
        }
    }

    @Test
    void aFlippedByteIsRefusedEitherWay() {
        // Java -> nostr-tools: one ciphertext byte flipped
        JsonNode tampered = out().path("tamperedJava");
        assertTrue(tampered.path("refused").asBoolean(), "nostr-tools decrypted a payload with a flipped ciphertext byte");
        assertTrue(tampered.path("error").asText().contains("invalid MAC"), "nostr-tools: " + tampered.path("error"));
        Nip44Exception own = assertThrows(Nip44Exception.class, () -> Nip44.decrypt(tamperedJavaPayload, aliceToBob));
        assertEquals("invalid MAC", own.getMessage());

        // nostr-tools -> Java: one MAC byte flipped; the unflipped payload decrypts (see above)
        String flipped = out().path("jsMacFlipped").asText(null);
        assertTrue(flipped != null && !flipped.isEmpty(), "nostr-tools returned no payload with a flipped MAC");
        Nip44Exception e = assertThrows(Nip44Exception.class, () -> Nip44.decrypt(flipped, aliceToBob));
        assertEquals("invalid MAC", e.getMessage());
    }

    @Test
    void javaOpensTheGiftWrapNostrToolsMade() throws Exception {
        Event wrap = PARSER.parseEvent(NostrClient.JSON.writeValueAsString(out().path("jsWrap")));
        assertNull(Events.verify(wrap), "id and signature of the nostr-tools gift wrap");
        assertEquals(GiftWrap.GIFT_WRAP_KIND, wrap.kind());
        assertEquals(List.of(List.of("p", alice.hex())), wrap.tags(), "a p tag for the recipient, nothing else");
        assertNotEquals(bob, wrap.pubkey(), "the wrap is signed by a one-time key, not the author");
        assertNotEquals(alice, wrap.pubkey());

        GiftWrap.Opened opened = GiftWrap.open(wrap, aliceSecret);
        Rumor r = opened.rumor();
        assertEquals(bob, opened.author(), "the seal is signed by the author");
        assertEquals(bob, r.pubkey());
        assertEquals(rumorTemplate.path("kind").asInt(), r.kind());
        assertEquals(rumorTemplate.path("created_at").asLong(), r.createdAt());
        assertEquals(tags(rumorTemplate.path("tags")), r.tags());
        assertEquals(rumorTemplate.path("content").asText(), r.content());
        assertEquals(out().path("jsRumorId").asText(), r.id().hex(), "the rumor id nostr-tools computed");
        assertTrue(r.hasValidId());

        Event seal = opened.seal();
        assertEquals(GiftWrap.SEAL_KIND, seal.kind());
        assertNull(Events.verify(seal), "id and signature of the nostr-tools seal");
        assertTrue(seal.tags().isEmpty());

        // for someone else it does not open
        GiftWrapException notMine = assertThrows(GiftWrapException.class, () -> GiftWrap.open(wrap, bobSecret));
        assertTrue(notMine.getMessage().contains("invalid MAC"), notMine.getMessage());
    }

    @Test
    void nostrToolsUnwrapsTheGiftWrapJavaMade() {
        assertTrue(out().path("javaWrapVerifies").asBoolean(), "nostr-tools verifyEvent on the Java gift wrap");
        JsonNode r = out().path("javaRumor");
        assertFalse(r.isMissingNode() || r.isNull(), "nostr-tools could not unwrap the Java gift wrap");
        assertEquals(javaRumor.id().hex(), r.path("id").asText());
        assertEquals(alice.hex(), r.path("pubkey").asText());
        assertEquals(javaRumor.createdAt(), r.path("created_at").asLong());
        assertEquals(javaRumor.kind(), r.path("kind").asInt());
        assertEquals(javaRumor.tags(), tags(r.path("tags")));
        assertEquals(javaRumor.content(), r.path("content").asText());
        assertFalse(r.path("hasSig").asBoolean(), "a rumor carries no signature");
        assertEquals(javaRumor.id().hex(), r.path("recomputedId").asText(), "nostr-tools getEventHash of the rumor");
    }

    /**
     * Where nostr-tools is more lenient than this implementation. Only the Java side is asserted; what
     * nostr-tools does is printed to the test output.
     */
    @Test
    void differencesFromNostrTools() throws Exception {
        JsonNode obs = out().path("observations");

        // a gift wrap whose own signature is broken
        Event broken = PARSER.parseEvent(Keys.withBrokenSignature(javaWrap));
        GiftWrapException refused = assertThrows(GiftWrapException.class, () -> GiftWrap.open(broken, bobSecret));
        assertTrue(refused.getMessage().startsWith("gift wrap is not authentic"), refused.getMessage());
        JsonNode b = obs.path("brokenWrapSignature");
        System.out.println("broken gift wrap signature: Java refuses (" + refused.getMessage() + "); nostr-tools verifyEvent="
                + b.path("verifyEvent") + ", unwrapEvent " + (b.path("unwrapAccepted").asBoolean() ? "ACCEPTS it"
                        : "refuses it: " + b.path("error").asText()));

        // a control character (U+0007, U+001F) in a rumor: NIP-01 hashes it verbatim, JSON.stringify escaped (backslash-u00XX)
        GiftWrap.Opened ownCtl = GiftWrap.open(javaControlCharWrap, bobSecret);
        assertTrue(ownCtl.rumor().hasValidId(), "Java reads back its own control-character rumor");
        JsonNode c = obs.path("controlChar");
        Event jsCtlWrap = PARSER.parseEvent(NostrClient.JSON.writeValueAsString(c.path("jsWrap")));
        // Java accepts either id form (Events.idMatches), so the nostr-tools rumor opens
        GiftWrap.Opened jsCtl = GiftWrap.open(jsCtlWrap, aliceSecret);
        assertEquals(c.path("jsRumorId").asText(), jsCtl.rumor().id().hex());
        assertEquals(controlCharTemplate.path("content").asText(), jsCtl.rumor().content());
        String javaOpensJs = "opens it, rumor id " + jsCtl.rumor().id().hex();
        Rumor ctl = Rumor.of(bob, controlCharTemplate.path("created_at").asLong(), controlCharTemplate.path("kind").asInt(),
                tags(controlCharTemplate.path("tags")), controlCharTemplate.path("content").asText());
        System.out.println("rumor with U+0007/U+001F: NIP-01 id " + ctl.id().hex() + ", nostr-tools id "
                + c.path("jsRumorId").asText() + "; Java " + javaOpensJs
                + "; nostr-tools unwraps the Java wrap: " + c.path("javaWrapUnwrapAccepted")
                + ", its getEventHash of the Java rumor " + c.path("javaRumorIdAsNostrToolsComputesIt").asText()
                + " vs Java id " + javaControlCharWrapRumorId());
    }

    // ---- the Java side

    private static void prepareJavaSide() throws Nip44Exception, GiftWrapException {
        aliceSecret = Schnorr.newSecretKey();
        bobSecret = Schnorr.newSecretKey();
        alice = new PubKey(Schnorr.publicKey(aliceSecret));
        bob = new PubKey(Schnorr.publicKey(bobSecret));
        aliceToBob = ConversationKey.of(aliceSecret, bob);

        Map<String, String> texts = new LinkedHashMap<>();
        texts.put("1 byte", "J");
        texts.put("ascii", "fleetmesh says hello to nostr-tools: the quick brown fox jumps over the lazy dog 0123456789");
        texts.put("utf-8 + emoji",
                "Zürich, Ελληνικά, 日本語, עברית 🚀🔐🧵 👨‍👩‍👧 a\u0301 \u0000nul \u2029 \"q\" \\ \r\n\t end 🏳️‍🌈");
        texts.put("1 KiB", ascii(1024));
        texts.put("65,535 bytes", utf8OfBytes(65_535));
        texts.put("65,536 bytes", utf8OfBytes(65_536));
        texts.put("100,000 bytes", utf8OfBytes(100_000));
        for (Map.Entry<String, String> t : texts.entrySet()) {
            Integer size = SIZES.get(t.getKey());
            int bytes = utf8Length(t.getValue());
            if (size != null) {
                assertEquals(size, bytes, t.getKey());
            }
            String payload = Nip44.encrypt(t.getValue(), aliceToBob);
            assertPayloadSize(payload, bytes, "Java " + t.getKey());
            assertEquals(t.getValue(), Nip44.decrypt(payload, ConversationKey.of(bobSecret, alice)), "Java round trip");
            javaPlain.add(new Plain(t.getKey(), t.getValue(), payload));
        }

        byte[] raw = Base64.getDecoder().decode(javaPlain.get(1).payload());
        raw[1 + 32 + 5] ^= 0x01; // a ciphertext byte
        tamperedJavaPayload = Base64.getEncoder().encodeToString(raw);

        long now = System.currentTimeMillis() / 1000;
        rumorTemplate = NostrClient.JSON.createObjectNode();
        rumorTemplate.put("kind", 14).put("created_at", now - 60)
                .put("content", "hi from nostr-tools 🦩 \"quoted\"\n\ttab \\ backslash, ünïcödé");
        rumorTemplate.putArray("tags").add(array("p", alice.hex())).add(array("subject", "interop ✓"));

        javaRumor = Rumor.of(alice, now - 120, 14, List.of(List.of("p", bob.hex()), List.of("subject", "from Java ✓")),
                "hi from fleetmesh 🚀 \"q\"\n\\ é\r\n");
        javaWrap = GiftWrap.wrap(javaRumor, aliceSecret, bob);
        assertEquals(javaRumor, GiftWrap.open(javaWrap, bobSecret).rumor(), "Java round trip");

        controlCharTemplate = NostrClient.JSON.createObjectNode();
        controlCharTemplate.put("kind", 14).put("created_at", now - 30).put("content", "bell\u0007 unit separator\u001f");
        controlCharTemplate.putArray("tags");
        javaControlCharWrap = GiftWrap.wrap(Rumor.of(alice, now - 30, 14, List.of(), "bell\u0007 unit separator\u001f"),
                aliceSecret, bob);
    }

    private static String javaControlCharWrapRumorId() {
        try {
            return GiftWrap.open(javaControlCharWrap, bobSecret).rumor().id().hex();
        } catch (GiftWrapException e) {
            return "(" + e.getMessage() + ")";
        }
    }

    /** Version 2, the 32-byte nonce, the padded plaintext behind its 2- or 6-byte prefix, the 32-byte MAC. */
    private static void assertPayloadSize(String payload, int plaintextBytes, String what) {
        byte[] raw = Base64.getDecoder().decode(payload);
        assertEquals(Nip44.VERSION, raw[0], what + ": version byte");
        int prefix = plaintextBytes >= Nip44.EXTENDED_PREFIX_THRESHOLD ? 6 : 2;
        assertEquals(1 + 32 + prefix + Nip44.calcPaddedLen(plaintextBytes) + 32, raw.length,
                what + ": payload size for " + plaintextBytes + " bytes with a " + prefix + "-byte prefix");
    }

    /** Exactly n UTF-8 bytes: a random ASCII char, 'é' (2), '€' (3) and a G clef (4) over and over, ASCII at the end. */
    private static String utf8OfBytes(int n) {
        StringBuilder sb = new StringBuilder(n);
        int len = 0;
        while (n - len >= 10) {
            sb.append((char) (0x21 + RANDOM.nextInt(94))).append("é€\uD834\uDD1E");
            len += 10;
        }
        while (len < n) {
            sb.append((char) ('a' + len % 26));
            len++;
        }
        return sb.toString();
    }

    private static String ascii(int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append((char) (0x20 + RANDOM.nextInt(95)));
        }
        return sb.toString();
    }

    private static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    private static ArrayNode array(String... values) {
        ArrayNode a = NostrClient.JSON.createArrayNode();
        for (String v : values) {
            a.add(v);
        }
        return a;
    }

    private static List<List<String>> tags(JsonNode tags) {
        List<List<String>> l = new ArrayList<>();
        for (JsonNode tag : tags) {
            List<String> t = new ArrayList<>();
            tag.forEach(v -> t.add(v.asText()));
            l.add(t);
        }
        return l;
    }

    private static List<String> labels(JsonNode array) {
        List<String> l = new ArrayList<>();
        array.forEach(n -> l.add(n.path("label").asText()));
        return l;
    }

    private static JsonNode out() {
        if (out == null) {
            fail("the nostr-tools script wrote no result (exit " + node.exit() + "):\n" + node.stdout() + node.stderr());
        }
        return out;
    }

}
