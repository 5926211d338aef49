package org.fleetmesh.nostr.nip44;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The official NIP-44 v2 vectors (nip44.vectors.json from paulmillr/nip44, checksum published in
 * 44.md), every valid and invalid group.
 */
class Nip44VectorsTest {
    private static final String FILE = "nip44.vectors.json";
    /** The checksum 44.md publishes for the vector file. */
    private static final String FILE_SHA256 = "269ed0f69e4c192512cc779e78c555090cebc7c785b609e338a62afc3ce25040";
    private static final HexFormat HEX = HexFormat.of();

    /*
     * invalid.encrypt_msg_lengths predates the extended length prefix (nips#1907): 44.md now allows
     * plaintexts up to 2^32 - 1 bytes, so these lengths must encrypt. Nip44Test round-trips them.
     */
    private static final List<Long> OBSOLETE_INVALID_LENGTHS = List.of(65536L, 100000L, 10000000L);

    /** The exception message each invalid.decrypt note calls for. */
    private static final Map<String, String> MESSAGE_FOR_NOTE = Map.of(
            "unknown encryption version", "unknown version",
            "invalid base64", "invalid base64",
            "invalid MAC", "invalid MAC",
            "invalid padding", "invalid padding",
            "invalid payload length", "invalid payload size");

    private static final Path FILE_PATH = org.fleetmesh.VectorFile.named(FILE);

    private static JsonNode vectors;

    private static JsonNode v2() throws IOException {
        if (vectors == null) {
            vectors = new ObjectMapper().readTree(Files.readAllBytes(FILE_PATH));
        }
        return vectors.get("v2");
    }

    /** One dynamic test per vector of a group. */
    private static Stream<DynamicTest> each(String group, Function<JsonNode, String> label,
            Function<JsonNode, Executable> check) throws IOException {
        JsonNode node = v2().at(group);
        assertTrue(node.isArray() && node.size() > 0, "no vectors in " + group);
        List<DynamicTest> tests = new ArrayList<>();
        int i = 0;
        for (JsonNode v : node) {
            tests.add(dynamicTest("#" + i++ + " " + label.apply(v), check.apply(v)));
        }
        return tests.stream();
    }

    private static byte[] hex(JsonNode v, String field) {
        return HEX.parseHex(v.get(field).asText());
    }

    private static String text(JsonNode v, String field) {
        return v.get(field).asText();
    }

    private static String sha256(String s) {
        return HEX.formatHex(Events.sha256(s.getBytes(StandardCharsets.UTF_8)));
    }

    private static String note(JsonNode v) {
        return v.has("note") ? v.get("note").asText() : "";
    }

    @Test
    void vectorFileIsTheOnePublishedIn44md() throws IOException {
        assertEquals(FILE_SHA256, HEX.formatHex(Events.sha256(Files.readAllBytes(FILE_PATH))));
    }

    @TestFactory
    Stream<DynamicTest> getConversationKey() throws IOException {
        return each("/valid/get_conversation_key", v -> text(v, "pub2"), v -> () -> assertEquals(
                text(v, "conversation_key"),
                ConversationKey.of(hex(v, "sec1"), PubKey.ofHex(text(v, "pub2"))).hex()));
    }

    @TestFactory
    Stream<DynamicTest> getConversationKeyWithBouncyCastle() throws IOException {
        return each("/valid/get_conversation_key", v -> text(v, "pub2"), v -> () -> assertEquals(
                text(v, "conversation_key"),
                ConversationKey.fromSharedX(ConversationKey.sharedX(hex(v, "sec1"), hex(v, "pub2"), false)).hex()));
    }

    @TestFactory
    Stream<DynamicTest> getMessageKeys() throws IOException {
        ConversationKey key = ConversationKey.ofHex(text(v2().at("/valid/get_message_keys"), "conversation_key"));
        return each("/valid/get_message_keys/keys", v -> text(v, "nonce"), v -> () -> {
            MessageKeys keys = MessageKeys.of(key, hex(v, "nonce"));
            assertEquals(text(v, "chacha_key"), HEX.formatHex(keys.chachaKey()));
            assertEquals(text(v, "chacha_nonce"), HEX.formatHex(keys.chachaNonce()));
            assertEquals(text(v, "hmac_key"), HEX.formatHex(keys.hmacKey()));
        });
    }

    @TestFactory
    Stream<DynamicTest> calcPaddedLen() throws IOException {
        return each("/valid/calc_padded_len", v -> v.get(0).asText(),
                v -> () -> assertEquals(v.get(1).asLong(), Nip44.calcPaddedLen(v.get(0).asLong())));
    }

    @TestFactory
    Stream<DynamicTest> encryptDecrypt() throws IOException {
        return each("/valid/encrypt_decrypt", v -> text(v, "plaintext"), v -> () -> {
            byte[] sec1 = hex(v, "sec1");
            byte[] sec2 = hex(v, "sec2");
            PubKey pub2 = new PubKey(Schnorr.publicKey(sec2));
            ConversationKey key = ConversationKey.of(sec1, pub2);
            assertEquals(text(v, "conversation_key"), key.hex());
            String payload = Nip44.encrypt(text(v, "plaintext"), key, hex(v, "nonce"));
            assertEquals(text(v, "payload"), payload);

            PubKey pub1 = new PubKey(Schnorr.publicKey(sec1));
            ConversationKey reverse = ConversationKey.of(sec2, pub1);
            assertEquals(text(v, "conversation_key"), reverse.hex());
            assertEquals(text(v, "plaintext"), Nip44.decrypt(payload, reverse));
        });
    }

    @TestFactory
    Stream<DynamicTest> encryptDecryptLongMessage() throws IOException {
        return each("/valid/encrypt_decrypt_long_msg", v -> text(v, "pattern") + " x " + v.get("repeat").asInt(),
                v -> () -> {
                    String plaintext = text(v, "pattern").repeat(v.get("repeat").asInt());
                    assertEquals(text(v, "plaintext_sha256"), sha256(plaintext));
                    ConversationKey key = ConversationKey.ofHex(text(v, "conversation_key"));
                    String payload = Nip44.encrypt(plaintext, key, hex(v, "nonce"));
                    assertEquals(text(v, "payload_sha256"), sha256(payload));
                    assertEquals(plaintext, Nip44.decrypt(payload, key));
                });
    }

    @TestFactory
    Stream<DynamicTest> invalidEncryptMessageLengths() throws IOException {
        return each("/invalid/encrypt_msg_lengths", v -> v.asText(), v -> () -> {
            long length = v.asLong();
            ConversationKey key = ConversationKey.ofBytes(new byte[32]);
            String plaintext = "x".repeat((int) length);
            if (OBSOLETE_INVALID_LENGTHS.contains(length)) {
                // obsolete vector (nips#1907): this length now encrypts with the 6-byte prefix
                assertEquals(plaintext, Nip44.decrypt(Nip44.encrypt(plaintext, key, new byte[32]), key));
            } else {
                assertThrows(IllegalArgumentException.class, () -> Nip44.encrypt(plaintext, key, new byte[32]));
            }
        });
    }

    @TestFactory
    Stream<DynamicTest> invalidGetConversationKey() throws IOException {
        return each("/invalid/get_conversation_key", Nip44VectorsTest::note, v -> () -> {
            assertThrows(Nip44Exception.class, () -> ConversationKey.of(hex(v, "sec1"), PubKey.ofHex(text(v, "pub2"))));
            assertThrows(Nip44Exception.class, () -> ConversationKey.sharedX(hex(v, "sec1"), hex(v, "pub2"), false));
        });
    }

    @TestFactory
    Stream<DynamicTest> invalidDecrypt() throws IOException {
        return each("/invalid/decrypt", Nip44VectorsTest::note, v -> () -> {
            String expected = MESSAGE_FOR_NOTE.entrySet().stream().filter(e -> note(v).startsWith(e.getKey()))
                    .map(Map.Entry::getValue).findFirst().orElseThrow(() -> new AssertionError("unmapped note"));
            Nip44Exception e = assertThrows(Nip44Exception.class,
                    () -> Nip44.decrypt(text(v, "payload"), ConversationKey.ofHex(text(v, "conversation_key"))));
            assertTrue(e.getMessage().startsWith(expected), "expected '" + expected + "...', got: " + e.getMessage());
        });
    }
}
