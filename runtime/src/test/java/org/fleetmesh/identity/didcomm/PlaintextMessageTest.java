package org.fleetmesh.identity.didcomm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.fleetmesh.identity.didcomm.DidcommException.Reason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

/** The plaintext format: what it writes, what it reads back, and every shape it refuses with a reason. */
class PlaintextMessageTest {
    private static PlaintextMessage full() {
        ObjectNode body = DidcommJson.object();
        body.put("comment", "lunch?");
        return PlaintextMessage.builder("msg-1", "https://didcomm.org/basicmessage/2.0/message")
                .from("did:example:alice").to("did:example:bob", "did:example:carol")
                .createdTime(1516269022).expiresTime(1516385931).thid("thread-1").pthid("parent-1").body(body)
                .attachment(Attachment.base64(new byte[] { 1, 2, 3 }).id("a1").mediaType("application/octet-stream")
                        .build())
                .attachment(Attachment.links(List.of("https://example.com/x"), "zQmHash").id("a2").byteCount(3).build())
                .header("lang", new TextNode("en")).build();
    }

    private static String reasonOf(String json) {
        DidcommException e = assertThrows(DidcommException.class, () -> PlaintextMessage.parse(json));
        assertEquals(Reason.MALFORMED, e.reason(), e.getMessage());
        return e.getMessage();
    }

    @Test
    void writesTypAndReadsBackEqual() throws Exception {
        PlaintextMessage m = full();
        ObjectNode json = m.toJsonNode();
        assertEquals(MediaType.PLAIN.value(), json.get("typ").asText());
        assertEquals(m, PlaintextMessage.parse(m.toJson()));
        assertEquals(Optional.of("thread-1"), PlaintextMessage.parse(m.toJson()).thid());
    }

    @Test
    void keepsHeadersItDoesNotKnow() throws Exception {
        PlaintextMessage m = PlaintextMessage.parse("""
                {"id":"1","type":"t","please_ack":["receipt"],"lang":"en","body":{}}""");
        assertEquals(List.of("please_ack", "lang"), List.copyOf(m.headers().keySet()));
        assertTrue(m.toJson().contains("\"please_ack\":[\"receipt\"]"));
    }

    @Test
    void aMessageWithoutThidIsItsOwnThread() throws Exception {
        PlaintextMessage m = PlaintextMessage.parse("{\"id\":\"abc\",\"type\":\"t\"}");
        assertEquals("abc", m.threadId());
        assertEquals(0, m.body().size()); // v2.0 senders may leave body out
    }

    @Test
    void acceptsTheShortTyp() throws Exception {
        PlaintextMessage.parse("{\"id\":\"1\",\"type\":\"t\",\"typ\":\"didcomm-plain+json\",\"body\":{}}");
    }

    @Test
    void attachmentsReadAsWritten() throws Exception {
        PlaintextMessage m = PlaintextMessage.parse(full().toJson());
        Attachment a = m.attachments().get(0);
        assertEquals(Optional.of("a1"), a.id());
        assertEquals(Optional.of("AQID"), a.base64());
        assertEquals(List.of("https://example.com/x"), m.attachments().get(1).links());
        assertEquals(Optional.of("zQmHash"), m.attachments().get(1).hash());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "not an object | []",
            "not JSON | {\"id\":",
            "duplicate member | {\"id\":\"1\",\"id\":\"2\",\"type\":\"t\"}",
            "trailing text | {\"id\":\"1\",\"type\":\"t\"} {}",
            "no id | {\"type\":\"t\"}",
            "no type | {\"id\":\"1\"}",
            "empty id | {\"id\":\"\",\"type\":\"t\"}",
            "id not a string | {\"id\":1,\"type\":\"t\"}",
            "wrong typ | {\"id\":\"1\",\"type\":\"t\",\"typ\":\"application/didcomm-signed+json\"}",
            "from with fragment | {\"id\":\"1\",\"type\":\"t\",\"from\":\"did:example:alice#key-1\"}",
            "from not a DID | {\"id\":\"1\",\"type\":\"t\",\"from\":\"alice\"}",
            "to not an array | {\"id\":\"1\",\"type\":\"t\",\"to\":\"did:example:bob\"}",
            "to holds a number | {\"id\":\"1\",\"type\":\"t\",\"to\":[1]}",
            "created_time a string | {\"id\":\"1\",\"type\":\"t\",\"created_time\":\"1516269022\"}",
            "created_time fractional | {\"id\":\"1\",\"type\":\"t\",\"created_time\":1.5}",
            "expires_time null | {\"id\":\"1\",\"type\":\"t\",\"expires_time\":null}",
            "thid null | {\"id\":\"1\",\"type\":\"t\",\"thid\":null}",
            "body an array | {\"id\":\"1\",\"type\":\"t\",\"body\":[]}",
            "attachments an object | {\"id\":\"1\",\"type\":\"t\",\"attachments\":{}}",
            "attachment without data | {\"id\":\"1\",\"type\":\"t\",\"attachments\":[{\"id\":\"a\"}]}",
            "attachment data empty | {\"id\":\"1\",\"type\":\"t\",\"attachments\":[{\"data\":{}}]}",
            "attachment links without hash | {\"id\":\"1\",\"type\":\"t\",\"attachments\":[{\"data\":{\"links\":[\"https://x\"]}}]}",
            "attachment id reserved chars | {\"id\":\"1\",\"type\":\"t\",\"attachments\":[{\"id\":\"a/b\",\"data\":{\"base64\":\"AQ\"}}]}",
            "from_prior not a JWT | {\"id\":\"1\",\"type\":\"t\",\"from_prior\":\"abc\"}" })
    void refuses(String name, String json) {
        String message = reasonOf(json);
        assertTrue(message.startsWith("malformed: "), message);
    }

    @Test
    void refusalsNameTheHeader() {
        assertEquals("malformed: plaintext message 'created_time' must be an integer, got a string",
                reasonOf("{\"id\":\"1\",\"type\":\"t\",\"created_time\":\"1\"}"));
        assertEquals("malformed: plaintext message needs 'type'", reasonOf("{\"id\":\"1\"}"));
    }

    @Test
    void builderRefusesAPredefinedHeaderAsCustom() {
        assertThrows(IllegalArgumentException.class,
                () -> PlaintextMessage.builder("1", "t").header("from", new IntNode(1)));
    }

    @Test
    void bodyIsACopy() {
        PlaintextMessage m = full();
        m.body().put("comment", "changed");
        assertEquals("lunch?", m.body().get("comment").asText());
    }
}
