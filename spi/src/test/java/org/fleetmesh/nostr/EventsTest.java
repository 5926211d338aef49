package org.fleetmesh.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Event ids (SHA-256 of the NIP-01 canonical form), their verification, and signing. */
class EventsTest {
    private static final String ID_MISMATCH = "invalid: event id does not match the canonical serialization";
    private static final String BAD_SIG = "invalid: bad signature";

    /*
     * Real events published on the Nostr network (signed by their authors' clients, not by this
     * code), as quoted in quanta's UtilsTest: a kind-0 profile whose content holds quotes, a kind-1
     * note with an r tag, and a kind-1 reply whose content holds line feeds and several tags.
     */
    static final Event PROFILE = new Event(
            EventId.ofHex("b12e1d13848d47e28f912bb0a8b3d6b211d1af97f60e9e10b9cf5df9e5c731ed"),
            PubKey.ofHex("35d26e4690cbe1a898af61cc3515661eb5fa763b57bd0b42e45099c8b32fd50f"), 1677727939L, 0, List.of(),
            "{\"name\":\"scsibug\",\"picture\":\"https://s.gravatar.com/avatar/1a425d744df94198d68dfffbf7ae51cf\","
                    + "\"about\":\"author of nostr-rs-relay, operates nostr-pub.wellorder.net\","
                    + "\"nip05\":\"scsibug@wellorder.net\",\"lud06\":\"\",\"lud16\":\"outsideice77@walletofsatoshi.com\","
                    + "\"username\":\"scsibug\",\"display_name\":\"\",\"displayName\":\"\",\"banner\":\"\",\"website\":\"\"}",
            Signature.ofHex("02f3e61059e99874cfd777f8cff44a2faa801429ab2cfd844adcc52e5c917ed8"
                    + "86891d2cafab30fb4d38acfd20a399a2fd75e7472a4d13669735dc2cea84d6b6"));

    static final Event NOTE = new Event(
            EventId.ofHex("1b71f57e1c3365f32b2a0abd8ded19f2a5e217a6eeaf3df11fa5c904bfb90dd6"),
            PubKey.ofHex("35d26e4690cbe1a898af61cc3515661eb5fa763b57bd0b42e45099c8b32fd50f"), 1681157953L, 1,
            List.of(List.of("r", "https://btcplusplus.dev/talks#nostr")),
            "I will be giving a talk on Nostr at the Bitcoin++ conference in Austin TX, end of this month, "
                    + "hoping to meet some other nostr people!  https://btcplusplus.dev/talks#nostr",
            Signature.ofHex("ec6e37c3d492654a4b8b5411b1872fc1dd7bbc3920d2c0818b177b42bd9429e2"
                    + "06b878ad3b8fa0e72993b58182024d32a345ce487072de897bd0061d1c5e2189"));

    static final Event REPLY = new Event(
            EventId.ofHex("126c4bc4a33b0b03cd947e164002066b70d97ce1c4b4f581c9f965c625069d41"),
            PubKey.ofHex("32e1827635450ebb3c5a7d12c1f8e7b2b514439ac10a67eef3d9fd9c5c68e245"), 1681657931L, 1,
            List.of(List.of("e", "3de94ee418667f1567a79eb4c76ff788e39a4caf1947d5ec75fcda15d8920b0b"),
                    List.of("e", "2633adacdd31915719910b84c51b6a9b4bc8cdf165073bd8d5b2db8d36dc2fb3"),
                    List.of("p", "d7f0e3917c466f1e2233e9624fbd6d4bd1392dbcfcaf3574f457569d496cb731"),
                    List.of("p", "d7f0e3917c466f1e2233e9624fbd6d4bd1392dbcfcaf3574f457569d496cb731"),
                    List.of("p", "43c27728028a8b631118e73a46b363b464fee19002da657cc0196e8260188a7e")),
            "It runs fast on my ryzen 1800x (nixos) on 16 threads:\n\nsystem_info: n_threads = 16 / 16 | AVX = 1 | "
                    + "AVX2 = 1 | AVX512 = 0 | FMA = 1 | NEON = 0 | ARM_FMA = 0 | F16C = 1 | FP16_VA = 0 | "
                    + "WASM_SIMD = 0 | BLAS = 0 | SSE3 = 1 | VSX = 0 \n\nmy m1 shows:\n\nsystem_info: n_threads = 4 / 8 | "
                    + "AVX = 0 | AVX2 = 0 | AVX512 = 0 | FMA = 0 | NEON = 1 | ARM_FMA = 1 | F16C = 0 | FP16_VA = 1 | "
                    + "WASM_SIMD = 0 | BLAS = 1 | SSE3 = 0 | VSX = 0 \n\nusing about 1.5GB of ram?  ",
            Signature.ofHex("b9465f00cbc8c36c9140ad9360597b7bd16c9007bfb924576101d062f3cbaf10"
                    + "851950460bd876941e89d42c85cdfb0166908a9ce33cbfa12419a4ab430df30a"));

    /** BIP-340 test vector 1's secret key and its x-only public key. */
    static final byte[] SECRET = HexFormat.of().parseHex("b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfef");
    static final String SECRET_PUB = "dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b502ba659";

    private static EventId idOf(Event e) {
        return Events.computeId(e.pubkey(), e.createdAt(), e.kind(), e.tags(), e.content());
    }

    private static Event copy(Event e, EventId id, PubKey pubkey, long createdAt, int kind, List<List<String>> tags,
            String content, Signature sig) {
        return new Event(id, pubkey, createdAt, kind, tags, content, sig);
    }

    private static byte[] flipLastBit(byte[] b) {
        byte[] c = b.clone();
        c[c.length - 1] ^= 1;
        return c;
    }

    // --- computeId -------------------------------------------------------------------------

    @Test
    void computeIdMatchesARealProfileEventWithQuotesInContent() {
        assertEquals(PROFILE.id(), idOf(PROFILE));
    }

    @Test
    void computeIdMatchesARealNoteWithATag() {
        assertEquals(NOTE.id(), idOf(NOTE));
    }

    @Test
    void computeIdMatchesARealReplyWithLineFeedsAndSeveralTags() {
        assertEquals(REPLY.id(), idOf(REPLY));
    }

    @Test
    void computeIdIsSha256OfTheHandWrittenCanonicalUtf8() throws Exception {
        PubKey pk = PubKey.ofHex(SECRET_PUB);
        String handWritten = "[0,\"" + SECRET_PUB + "\",1700000000,1,[[\"e\",\"x\\\"y\"],[\"t\",\"caf\u00e9\"]],"
                + "\"a\\nb\\\\c\\td\u0001e/\uD83D\uDE00\u2028\"]";
        byte[] expected = MessageDigest.getInstance("SHA-256").digest(handWritten.getBytes(StandardCharsets.UTF_8));

        EventId id = Events.computeId(pk, 1700000000L, 1, List.of(List.of("e", "x\"y"), List.of("t", "café")),
                "a\nb\\c\td\u0001e/\uD83D\uDE00\u2028");

        assertEquals(HexFormat.of().formatHex(expected), id.hex());
    }

    @Test
    void computeIdOfTheEmptyNoteIsSha256OfItsCanonicalForm() throws Exception {
        String handWritten = "[0,\"" + SECRET_PUB + "\",0,1,[],\"\"]";
        byte[] expected = MessageDigest.getInstance("SHA-256").digest(handWritten.getBytes(StandardCharsets.US_ASCII));
        assertEquals(HexFormat.of().formatHex(expected),
                Events.computeId(PubKey.ofHex(SECRET_PUB), 0L, 1, List.of(), "").hex());
    }

    @Test
    void sha256OfEmptyInputIsTheStandardDigest() {
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                HexFormat.of().formatHex(Events.sha256(new byte[0])));
    }

    // --- verify ----------------------------------------------------------------------------

    @Test
    void verifyAcceptsRealEvents() {
        assertNull(Events.verify(PROFILE));
        assertNull(Events.verify(NOTE));
        assertNull(Events.verify(REPLY));
    }

    @Test
    void verifyRefusesTamperedContent() {
        Event t = copy(REPLY, REPLY.id(), REPLY.pubkey(), REPLY.createdAt(), REPLY.kind(), REPLY.tags(),
                REPLY.content() + " ", REPLY.sig());
        assertEquals(ID_MISMATCH, Events.verify(t));
    }

    @Test
    void verifyRefusesTamperedId() {
        Event t = copy(NOTE, new EventId(flipLastBit(NOTE.id().toBytes())), NOTE.pubkey(), NOTE.createdAt(),
                NOTE.kind(), NOTE.tags(), NOTE.content(), NOTE.sig());
        assertEquals(ID_MISMATCH, Events.verify(t));
    }

    @Test
    void verifyRefusesTamperedSignature() {
        Event t = copy(NOTE, NOTE.id(), NOTE.pubkey(), NOTE.createdAt(), NOTE.kind(), NOTE.tags(), NOTE.content(),
                new Signature(flipLastBit(NOTE.sig().unsafeBytes())));
        assertEquals(BAD_SIG, Events.verify(t));
    }

    @Test
    void verifyRefusesTamperedCreatedAt() {
        Event t = copy(NOTE, NOTE.id(), NOTE.pubkey(), NOTE.createdAt() + 1, NOTE.kind(), NOTE.tags(), NOTE.content(),
                NOTE.sig());
        assertEquals(ID_MISMATCH, Events.verify(t));
    }

    @Test
    void verifyRefusesTamperedKind() {
        Event t = copy(NOTE, NOTE.id(), NOTE.pubkey(), NOTE.createdAt(), 2, NOTE.tags(), NOTE.content(), NOTE.sig());
        assertEquals(ID_MISMATCH, Events.verify(t));
    }

    @Test
    void verifyRefusesTamperedTags() {
        List<List<String>> tags = new ArrayList<>(REPLY.tags());
        tags.remove(tags.size() - 1);
        Event t = copy(REPLY, REPLY.id(), REPLY.pubkey(), REPLY.createdAt(), REPLY.kind(), tags, REPLY.content(),
                REPLY.sig());
        assertEquals(ID_MISMATCH, Events.verify(t));
    }

    @Test
    void verifyRefusesAnotherAuthorsPubkey() {
        Event t = copy(REPLY, REPLY.id(), NOTE.pubkey(), REPLY.createdAt(), REPLY.kind(), REPLY.tags(), REPLY.content(),
                REPLY.sig());
        assertEquals(ID_MISMATCH, Events.verify(t));
    }

    @Test
    void verifyRefusesTamperedContentWithARecomputedId() {
        String forged = NOTE.content().replace("Austin", "Denver");
        EventId forgedId = Events.computeId(NOTE.pubkey(), NOTE.createdAt(), NOTE.kind(), NOTE.tags(), forged);
        Event t = copy(NOTE, forgedId, NOTE.pubkey(), NOTE.createdAt(), NOTE.kind(), NOTE.tags(), forged, NOTE.sig());
        assertEquals(BAD_SIG, Events.verify(t));
    }

    @Test
    void verifyRefusesASignatureOfAnotherEventBySameAuthor() {
        Event t = copy(NOTE, NOTE.id(), NOTE.pubkey(), NOTE.createdAt(), NOTE.kind(), NOTE.tags(), NOTE.content(),
                PROFILE.sig());
        assertEquals(BAD_SIG, Events.verify(t));
    }

    private static final String LONE_SURROGATE = "invalid: content or tags hold an unpaired UTF-16 surrogate";

    @Test
    void verifyRefusesContentWithALoneSurrogateThatHashesLikeAQuestionMark() throws ProtocolException {
        // UTF-8 cannot encode U+D800 alone: String.getBytes writes '?', so this forgery would share the real id
        Event real = Events.sign(SECRET, 1L, 1, List.of(), "pay ? sats");
        String forged = real.json().replace("\"pay ? sats\"", "\"pay \\ud800 sats\"");
        Event f = new MessageParser(MessageParser.Limits.DEFAULT).parseEvent(forged);
        assertEquals("pay \ud800 sats", f.content());
        assertEquals(LONE_SURROGATE, Events.verify(f));
    }

    @Test
    void verifyRefusesATagValueWithALoneLowSurrogate() {
        Event real = Events.sign(SECRET, 1L, 1, List.of(List.of("t", "?")), "");
        Event f = copy(real, real.id(), real.pubkey(), real.createdAt(), real.kind(), List.of(List.of("t", "\udfff")),
                real.content(), real.sig());
        assertEquals(LONE_SURROGATE, Events.verify(f));
    }

    @Test
    void verifyRefusesAHighSurrogateAtTheEndOfContent() {
        Event real = Events.sign(SECRET, 1L, 1, List.of(), "x?");
        Event f = copy(real, real.id(), real.pubkey(), real.createdAt(), real.kind(), real.tags(), "x\ud83d",
                real.sig());
        assertEquals(LONE_SURROGATE, Events.verify(f));
    }

    @Test
    void verifyAcceptsSurrogatePairs() {
        assertNull(Events.verify(Events.sign(SECRET, 1L, 1, List.of(List.of("t", "\uD83D\uDE00")), "\uD83E\uDD19 ok")));
    }

    // --- sign ------------------------------------------------------------------------------

    @Test
    void signRoundTripsThroughVerify() {
        Event e = Events.sign(SECRET, 1700000000L, 1, List.of(List.of("t", "test")), "hello\n\"world\"\u0001");
        assertNull(Events.verify(e));
    }

    @Test
    void signUsesThePublicKeyOfTheSecretKey() {
        Event e = Events.sign(SECRET, 1700000000L, 1, List.of(), "");
        assertEquals(SECRET_PUB, e.pubkey().hex());
    }

    @Test
    void signSetsTheCanonicalIdAndTheGivenFields() {
        List<List<String>> tags = List.of(List.of("d", "slug"), List.of("-"));
        Event e = Events.sign(SECRET, 1234L, 30023, tags, "body");
        assertEquals(Events.computeId(PubKey.ofHex(SECRET_PUB), 1234L, 30023, tags, "body"), e.id());
        assertEquals(1234L, e.createdAt());
        assertEquals(30023, e.kind());
        assertEquals(tags, e.tags());
        assertEquals("body", e.content());
    }

    @Test
    void signedEventSurvivesTheWireFormAndTheParser() throws ProtocolException {
        Event e = Events.sign(SECRET, 1700000000L, 1, List.of(List.of("t", "a\u0002b")), "x\u0001y\n\u2028\uD83D\uDE00");
        Event back = new MessageParser(MessageParser.Limits.DEFAULT).parseEvent(e.json());
        assertEquals(e.id(), back.id());
        assertEquals(e.content(), back.content());
        assertEquals(e.tags(), back.tags());
        assertEquals(e.sig(), back.sig());
        assertNull(Events.verify(back));
    }

    @Test
    void signUsesFreshRandomnessEachTime() {
        Event a = Events.sign(SECRET, 1L, 1, List.of(), "same");
        Event b = Events.sign(SECRET, 1L, 1, List.of(), "same");
        assertEquals(a.id(), b.id());
        assertNotEquals(a.sig(), b.sig());
        assertNull(Events.verify(b));
    }

    @Test
    void signCopiesTheTagsSoLaterChangesDoNotAlterTheEvent() {
        List<String> tag = new ArrayList<>(List.of("t", "one"));
        List<List<String>> tags = new ArrayList<>();
        tags.add(tag);
        Event e = Events.sign(SECRET, 1L, 1, tags, "");
        tag.set(1, "two");
        tags.add(List.of("p", "x"));
        assertEquals(List.of(List.of("t", "one")), e.tags());
        assertNull(Events.verify(e));
        assertThrows(UnsupportedOperationException.class, () -> e.tags().add(List.of()));
    }

    @Test
    void idOverTheEscapedControlCharacterFormIsAcceptedToo() {
        byte[] sk = Schnorr.newSecretKey();
        PubKey pk = new PubKey(Schnorr.publicKey(sk));
        String content = "bell\u0007 and unit separator\u001f";
        String stringified = NostrJson.canonicalEscapingControls(pk, 1_700_000_000L, 1, List.of(), content);
        assertTrue(stringified.contains("\\u0007"), stringified);
        EventId id = new EventId(Events.sha256(stringified.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        Event e = new Event(id, pk, 1_700_000_000L, 1, List.of(), content, new Signature(Schnorr.sign(id.toBytes(), sk)));
        assertNull(Events.verify(e), "nostr-tools hashes JSON.stringify's form; the same fields must verify");
        assertNotEquals(Events.computeId(pk, 1_700_000_000L, 1, List.of(), content), id);
    }

    @Test
    void escapedFormIsNotAcceptedWithoutControlCharacters() {
        byte[] sk = Schnorr.newSecretKey();
        PubKey pk = new PubKey(Schnorr.publicKey(sk));
        Event good = Events.sign(sk, 1_700_000_000L, 1, List.of(), "plain");
        EventId other = new EventId(Events.sha256("something else".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        Event forged = new Event(other, pk, good.createdAt(), 1, List.of(), "plain",
                new Signature(Schnorr.sign(other.toBytes(), sk)));
        assertEquals("invalid: event id does not match the canonical serialization", Events.verify(forged));
    }
}
