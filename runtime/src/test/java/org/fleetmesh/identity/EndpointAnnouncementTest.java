package org.fleetmesh.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventClass;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.Test;

class EndpointAnnouncementTest {
    /** The worked example's node A (docs/spec/mesh-link.md): every secret byte 0x01, 0x02, 0x03. */
    private static final NodeSecrets A = secrets(0x01, 0x02, 0x03);
    private static final NodeSecrets B = secrets(0x04, 0x05, 0x06);
    private static final NodeEndpoints A_AT = NodeEndpoints.of("ws://a.example/", "ws://a.example/mesh",
            "http://a.example/didcomm");
    /** 2026-01-01T00:00:00Z. */
    private static final long T0 = 1_767_225_600L;
    private static final NodeDidDocument NODE_A = NodeDidDocument.of(A.publicKeys(), A_AT);

    // the vector in docs/spec/identity.md: node A at A_AT, created_at T0, BIP-340 auxiliary randomness 32 zero bytes
    static final String VECTOR_ID = "9fda2ef15fc367c1f5ee00b00b49ddc25e4f16784ebac38c29979262b77eec92";
    static final String VECTOR_SIG = "8d7f4e8f1c5dde911fd59b00552af2cb7b9121d4c902b805f7d22c6fd1cb21e0e5b85e6c8c438878af7f5d1430ca3c0875a6ddd596b04b3a92a71b39c1f7ecec";

    private static NodeSecrets secrets(int nostr, int agreement, int transport) {
        return NodeSecrets.of(new SecretKey(fill(nostr)), new SecretKey(fill(agreement)), new SecretKey(fill(transport)));
    }

    private static byte[] fill(int b) {
        byte[] x = new byte[32];
        Arrays.fill(x, (byte) b);
        return x;
    }

    private static Event resigned(Event e, List<List<String>> tags) {
        byte[] key = A.nostr().bytes();
        return Events.sign(key, e.createdAt(), e.kind(), tags, e.content());
    }

    @Test
    void signsAnAddressableEventNamingTheDidAndTheEndpoints() {
        EndpointAnnouncement a = EndpointAnnouncement.sign(A, NODE_A, T0);
        Event e = a.event();
        assertEquals(EndpointAnnouncement.KIND, e.kind());
        assertEquals(EventClass.ADDRESSABLE, e.eventClass());
        assertEquals(A.publicKeys().nostr(), e.pubkey());
        assertEquals(T0, e.createdAt());
        assertEquals("", e.content());
        assertEquals(List.of(List.of("d", NODE_A.shortForm()), List.of("did", NODE_A.did()),
                List.of("relay", "ws://a.example/"), List.of("mesh", "ws://a.example/mesh"),
                List.of("didcomm", "http://a.example/didcomm")), e.tags());
        assertEquals(null, Events.verify(e));
    }

    @Test
    void verifiesWhatItSigned() {
        EndpointAnnouncement verified = EndpointAnnouncement.verify(EndpointAnnouncement.sign(A, NODE_A, T0).event());
        assertEquals(NODE_A.did(), verified.did());
        assertEquals(NODE_A.shortForm(), verified.shortForm());
        assertEquals(A_AT, verified.endpoints());
        assertEquals(T0, verified.createdAt());
    }

    @Test
    void matchesTheVectorInTheSpec() throws Exception {
        EndpointAnnouncement a = EndpointAnnouncement.sign(A, NODE_A, T0, new byte[32]);
        assertEquals(VECTOR_ID, a.event().id().hex());
        assertEquals(VECTOR_SIG, a.event().sig().hex());
        assertTrue(Schnorr.verifyPortable(Hex.decodeLower(VECTOR_SIG), Hex.decodeLower(VECTOR_ID),
                A.publicKeys().nostr().unsafeBytes()));
        String page = Files.readString(Path.of("..", "docs", "spec", "identity.md"), StandardCharsets.UTF_8);
        Event printed = new MessageParser(MessageParser.Limits.DEFAULT).parseEvent(between(page,
                "<!-- endpoint-announcement-vector -->", "<!-- /endpoint-announcement-vector -->"));
        assertEquals(a.event().json(), printed.json());
        assertEquals(NODE_A.did(), EndpointAnnouncement.verify(printed).did());
    }

    @Test
    void isDueWhenNoneIsStored() {
        assertEquals(java.util.OptionalLong.of(T0), EndpointAnnouncement.due(java.util.Optional.empty(), A_AT, T0));
    }

    @Test
    void isNotDueWhenTheStoredOneNamesTheSameEndpoints() {
        EndpointAnnouncement stored = EndpointAnnouncement.sign(A, NODE_A, T0 - 60);
        assertEquals(java.util.OptionalLong.empty(), EndpointAnnouncement.due(java.util.Optional.of(stored), A_AT, T0));
    }

    @Test
    void isDueAndNewerWhenTheEndpointsMovedEvenWithinTheSameSecond() {
        EndpointAnnouncement stored = EndpointAnnouncement.sign(A, NODE_A, T0);
        NodeEndpoints moved = NodeEndpoints.of("ws://a2.example/", "ws://a2.example/mesh", "http://a2.example/didcomm");
        assertEquals(java.util.OptionalLong.of(T0 + 1), EndpointAnnouncement.due(java.util.Optional.of(stored), moved, T0));
        assertEquals(java.util.OptionalLong.of(T0 + 5),
                EndpointAnnouncement.due(java.util.Optional.of(stored), moved, T0 + 5));
    }

    @Test
    void refusesATamperedEndpoint() {
        Event e = EndpointAnnouncement.sign(A, NODE_A, T0).event();
        List<List<String>> tags = new ArrayList<>(e.tags());
        tags.set(3, List.of("mesh", "ws://evil.example/mesh"));
        Event tampered = new Event(e.id(), e.pubkey(), e.createdAt(), e.kind(), tags, e.content(), e.sig());
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> EndpointAnnouncement.verify(tampered));
        assertTrue(x.getMessage().startsWith("invalid:"), x.getMessage());
    }

    @Test
    void refusesAnAnnouncementSignedByAnotherKey() {
        // B signs A's DID and endpoints: a valid event, but B's key is not in A's DID
        Event forged = Events.sign(B.nostr().bytes(), T0, EndpointAnnouncement.KIND,
                EndpointAnnouncement.sign(A, NODE_A, T0).event().tags(), "");
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> EndpointAnnouncement.verify(forged));
        assertTrue(x.getMessage().contains("not an assertion method"), x.getMessage());
    }

    @Test
    void refusesADTagThatIsNotTheDidsShortForm() {
        Event e = EndpointAnnouncement.sign(A, NODE_A, T0).event();
        List<List<String>> tags = new ArrayList<>(e.tags());
        tags.set(0, List.of("d", NodeDidDocument.of(B.publicKeys(), A_AT).shortForm()));
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> EndpointAnnouncement.verify(resigned(e, tags)));
        assertTrue(x.getMessage().contains("short form"), x.getMessage());
    }

    @Test
    void refusesAMissingOrDoubledEndpoint() {
        Event e = EndpointAnnouncement.sign(A, NODE_A, T0).event();
        List<List<String>> missing = new ArrayList<>(e.tags());
        missing.remove(4);
        assertThrows(IllegalArgumentException.class, () -> EndpointAnnouncement.verify(resigned(e, missing)));
        List<List<String>> doubled = new ArrayList<>(e.tags());
        doubled.add(List.of("relay", "ws://other.example/"));
        assertThrows(IllegalArgumentException.class, () -> EndpointAnnouncement.verify(resigned(e, doubled)));
    }

    @Test
    void refusesAnEndpointThatIsNotAUrlOfItsKind() {
        Event e = EndpointAnnouncement.sign(A, NODE_A, T0).event();
        List<List<String>> tags = new ArrayList<>(e.tags());
        tags.set(2, List.of("relay", "https://a.example/"));
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> EndpointAnnouncement.verify(resigned(e, tags)));
        assertTrue(x.getMessage().startsWith("invalid:"), x.getMessage());
    }

    @Test
    void refusesAnotherKind() {
        Event e = EndpointAnnouncement.sign(A, NODE_A, T0).event();
        Event other = Events.sign(A.nostr().bytes(), T0, 30803, e.tags(), "");
        assertThrows(IllegalArgumentException.class, () -> EndpointAnnouncement.verify(other));
    }

    @Test
    void refusesToSignForKeysItDoesNotHold() {
        assertThrows(IllegalArgumentException.class,
                () -> EndpointAnnouncement.sign(B, NODE_A, T0));
    }

    private static String between(String page, String open, String close) {
        int from = page.indexOf(open);
        int to = page.indexOf(close);
        assertTrue(from >= 0 && to > from, "identity.md does not print the endpoint announcement vector");
        String block = page.substring(from + open.length(), to);
        return block.replace("```json", "").replace("```", "").trim();
    }
}
