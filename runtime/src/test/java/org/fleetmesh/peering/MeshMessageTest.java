package org.fleetmesh.peering;

import static org.fleetmesh.peering.Nodes.seq;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.fleetmesh.nostr.Signature;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MeshMessageTest {
    private static final int MAX = HandshakeSettings.DEFAULTS.maxMessageLength();
    private static final String C64 = Challenge.of(seq(0)).hex();
    private static final String S128 = C64 + C64;

    private static Refusal refused(String text) {
        MeshRefusedException e = assertThrows(MeshRefusedException.class, () -> MeshMessage.parse(text, MAX));
        return e.refusal();
    }

    private static void assertMalformed(String text, String detailPart) {
        Refusal r = refused(text);
        assertEquals(Refusal.Kind.MALFORMED, r.kind(), r.toString());
        assertTrue(r.detail().contains(detailPart), "'" + r.detail() + "' should mention '" + detailPart + "'");
    }

    private static String hello(String body) {
        return "[\"MESH-HELLO\",{" + body + "}]";
    }

    private static String auth(String body) {
        return "[\"MESH-AUTH\",{" + body + "}]";
    }

    private static final String HELLO_BODY = "\"versions\":[1],\"did\":\"did:key:z6Mk\",\"challenge\":\"" + C64
            + "\",\"time\":1767225600";
    private static final String AUTH_BODY = "\"version\":1,\"did\":\"did:a\",\"peer\":\"did:b\",\"challenge\":\"" + C64
            + "\",\"answers\":\"" + C64 + "\",\"time\":1767225600,\"sig\":\"" + S128 + "\"";

    @Test
    void everyMessageSurvivesARoundTrip() throws MeshRefusedException {
        Challenge c = Challenge.of(seq(0));
        List<MeshMessage> all = List.of(new MeshHello(List.of(1, 2), "did:key:z6Mk", c, 1_767_225_600L),
                new MeshAuth(1, "did:a", "did:b", c, Challenge.of(seq(0x20)), 5, Ed25519Signature.ofHex(S128),
                        Optional.of(Signature.ofHex(S128))),
                new MeshAuth(1, "did:a", "did:b", c, c, 5, Ed25519Signature.ofHex(S128), Optional.empty()),
                new MeshOk(1), new MeshErr("invalid: \"quoted\" reason"));
        for (MeshMessage m : all) {
            assertEquals(m, MeshMessage.parse(m.encode(), MAX), m.encode());
        }
    }

    @Test
    void encodingIsCompactWithMembersInSpecOrder() {
        assertEquals("[\"MESH-HELLO\",{" + HELLO_BODY + "}]",
                new MeshHello(List.of(1), "did:key:z6Mk", Challenge.ofHex(C64), 1_767_225_600L).encode());
        assertEquals("[\"MESH-OK\",{\"version\":1}]", new MeshOk(1).encode());
        assertEquals("[\"MESH-ERR\",\"timeout: x\"]", new MeshErr("timeout: x").encode());
    }

    @Test
    void unknownMembersAreIgnored() throws MeshRefusedException {
        MeshMessage m = MeshMessage.parse(hello(HELLO_BODY + ",\"extensions\":{\"x\":[1,2]}"), MAX);
        assertEquals("did:key:z6Mk", ((MeshHello) m).did());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "hello                             | not JSON",
            "[\"MESH-OK\"                      | not JSON",
            "{}                                | a message is a JSON array",
            "\"MESH-OK\"                       | a message is a JSON array",
            "7                                 | a message is a JSON array",
            "[]                                | starts with its type",
            "[1,{}]                            | starts with its type",
            "[\"MESH-OK\"]                     | two elements",
            "[\"MESH-OK\",{\"version\":1},1]   | two elements",
            "[\"MESH-OK\",[1]]                 | the second an object",
            "[\"MESH-ERR\"]                    | <reason string>",
            "[\"MESH-ERR\",{}]                 | <reason string>",
            "[\"MESH-OK\",{\"version\":1}] []  | not JSON",
            "[\"MESH-OK\",{\"version\":1,\"version\":2}] | Duplicate field",
            "[\"MESH-OK\",{}]                  | MESH-OK \"version\" must be a positive integer",
            "[\"MESH-OK\",{\"version\":0}]     | must be a positive integer",
            "[\"MESH-OK\",{\"version\":\"1\"}] | must be a positive integer",
            "[\"MESH-OK\",{\"version\":1.5}]   | must be a positive integer",
    })
    void malformedEnvelopesAreRefused(String text, String reason) {
        assertMalformed(text, reason.trim());
    }

    @Test
    void anEmptyMessageIsRefused() {
        assertMalformed("", "a message is a JSON array");
    }

    @Test
    void everyHelloMemberIsRequired() {
        for (String member : List.of("versions", "did", "challenge", "time")) {
            String body = HELLO_BODY.replaceFirst("\"" + member + "\":(\\[1\\]|\"[^\"]*\"|[0-9]+),?", "")
                    .replaceAll(",$", "");
            assertMalformed(hello(body), "MESH-HELLO needs \"" + member + "\"");
        }
    }

    @Test
    void everyAuthMemberButNostrSigIsRequired() throws MeshRefusedException {
        for (String member : List.of("version", "did", "peer", "challenge", "answers", "time", "sig")) {
            String body = AUTH_BODY.replaceFirst("\"" + member + "\":(\"[^\"]*\"|[0-9]+),?", "").replaceAll(",$", "");
            Refusal r = refused(auth(body));
            assertEquals(Refusal.Kind.MALFORMED, r.kind());
            assertTrue(r.detail().contains("\"" + member + "\""), r.detail());
        }
        assertEquals(Optional.empty(), ((MeshAuth) MeshMessage.parse(auth(AUTH_BODY), MAX)).nostrSig());
        assertEquals(Optional.empty(),
                ((MeshAuth) MeshMessage.parse(auth(AUTH_BODY + ",\"nostr_sig\":null"), MAX)).nostrSig());
    }

    @Test
    void nullCountsAsMissing() {
        assertMalformed(hello(HELLO_BODY.replace("\"did\":\"did:key:z6Mk\"", "\"did\":null")), "needs \"did\"");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "\"challenge\":\"" + "0001" + "\" | \"challenge\" must be 64 lower-case hex characters",
            "\"challenge\":\"ZZ" + "\"        | \"challenge\" must be 64 lower-case hex characters",
            "\"challenge\":7                 | \"challenge\" must be 64 lower-case hex characters",
            "\"did\":\"\"                    | \"did\" must be a DID string",
            "\"did\":5                       | \"did\" must be a DID string",
            "\"time\":\"1767225600\"         | \"time\" must be an integer number of seconds",
            "\"time\":-1                     | \"time\" must be an integer number of seconds",
            "\"time\":1767225600.5           | \"time\" must be an integer number of seconds",
            "\"time\":9007199254740992       | \"time\" must be an integer number of seconds",
            "\"versions\":[]                 | \"versions\" must be an array of 1 to 16",
            "\"versions\":1                  | \"versions\" must be an array of 1 to 16",
            "\"versions\":[\"1\"]            | \"versions\" entries must be a positive integer",
    })
    void badHelloValuesAreRefused(String replacement, String reason) {
        String member = replacement.substring(0, replacement.indexOf(':') + 1);
        String body = HELLO_BODY.replaceFirst(java.util.regex.Pattern.quote(member) + "(\\[1\\]|\"[^\"]*\"|[0-9]+)",
                java.util.regex.Matcher.quoteReplacement(replacement.trim()));
        assertMalformed(hello(body), reason.trim());
    }

    @Test
    void upperCaseHexIsRefused() {
        assertMalformed(hello(HELLO_BODY.replace(C64, C64.toUpperCase())), "64 lower-case hex");
        assertMalformed(auth(AUTH_BODY.replace(S128, S128.toUpperCase())), "\"sig\" must be 128 lower-case hex");
    }

    @Test
    void shortSignaturesAreRefused() {
        assertMalformed(auth(AUTH_BODY.replace(S128, S128.substring(2))), "\"sig\" must be 128 lower-case hex");
        assertMalformed(auth(AUTH_BODY + ",\"nostr_sig\":\"" + C64 + "\""), "\"nostr_sig\" must be 128 lower-case hex");
    }

    @Test
    void overlongMessagesAreRefusedUnread() {
        String padded = hello(HELLO_BODY + ",\"pad\":\"" + "x".repeat(MAX) + "\"");
        assertMalformed(padded, "at most " + MAX + " characters");
    }

    @Test
    void otherMessageTypesAreUnsupported() {
        Refusal r = refused("[\"EVENT\",{\"id\":\"x\"}]");
        assertEquals(Refusal.Kind.UNSUPPORTED, r.kind());
        assertEquals("unsupported: message type \"EVENT\" is not a handshake message (MESH-HELLO, MESH-AUTH, MESH-OK,"
                + " MESH-ERR)", r.reason());
    }

    @Test
    void typeOfReadsOnlyTheFirstElement() {
        assertEquals(Optional.of("FRAME"), MeshMessage.typeOf("[\"FRAME\", {\"broken"));
        assertEquals(Optional.empty(), MeshMessage.typeOf("{\"FRAME\":1}"));
        assertEquals(Optional.empty(), MeshMessage.typeOf("not json"));
    }
}
