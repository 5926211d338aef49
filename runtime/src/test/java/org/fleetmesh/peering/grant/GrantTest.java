package org.fleetmesh.peering.grant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class GrantTest {
    // The test vector of docs/spec/grants.md: secret key 3, auxiliary randomness 32 zero bytes.
    static final byte[] SECRET = Hex.decodeLower("0000000000000000000000000000000000000000000000000000000000000003");
    static final String GRANTOR = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
    static final String GRANTEE = "did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf";
    static final long CREATED = 1764547200L; // 2025-12-01T00:00:00Z
    static final long EXPIRES = 1767225600L; // 2026-01-01T00:00:00Z
    static final GrantTerms TERMS = new GrantTerms(GRANTOR, GRANTEE, 4_194_304, 600, 60, 1, EXPIRES);

    static final String VECTOR_ID = "0e97ac84b829f96dede91485684efe3fa4aac0438b679f4bdad992696f4b12f8";
    static final String VECTOR_SIG = "d7ab5919d8c1fc5ac948e995d4e7ebc95e716e37147123023b3e5b71c8be2dd5"
            + "579fde0bd81cf884529cd679ef0675c33d9f8a5b651a510bf6a34e5cfb89e511";
    static final String VECTOR_JSON = "{\"id\":\"" + VECTOR_ID + "\","
            + "\"pubkey\":\"f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9\","
            + "\"created_at\":1764547200,\"kind\":30801,\"tags\":["
            + "[\"d\",\"" + GRANTEE + "\"],"
            + "[\"v\",\"1\"],"
            + "[\"link\",\"" + GRANTOR + "\",\"" + GRANTEE + "\"],"
            + "[\"bytes\",\"4194304\"],"
            + "[\"events\",\"600\"],"
            + "[\"window\",\"60\"],"
            + "[\"tier\",\"1\"],"
            + "[\"expiration\",\"1767225600\"]],"
            + "\"content\":\"\",\"sig\":\"" + VECTOR_SIG + "\"}";

    @Test
    void theSpecVectorIsWhatSigningWrites() {
        Grant g = Grant.sign(TERMS, SECRET, CREATED, new byte[32]);
        assertEquals(VECTOR_ID, g.event().id().hex());
        assertEquals(VECTOR_SIG, g.event().sig().hex());
        assertEquals(VECTOR_JSON, g.event().json());
        assertEquals(VECTOR_SIG, Hex.encode(Schnorr.signPortable(g.event().id().toBytes(), SECRET, new byte[32])),
                "the portable BIP-340 signer agrees with the one signing used");
    }

    @Test
    void theSpecVectorParsesBackToItsTerms() throws GrantException {
        Grant g = Grant.parse(VECTOR_JSON, CREATED);
        assertEquals(TERMS, g.terms());
        assertEquals("30801:f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9:" + GRANTEE, g.address());
        assertEquals(new org.fleetmesh.peering.budget.Allowance(4_194_304, 600, 0, 60), g.terms().allowance());
        assertTrue(g.validAt(EXPIRES - 1));
        assertTrue(!g.validAt(EXPIRES));
    }

    @Test
    void aGrantSignedWithFreshRandomnessVerifiesToo() throws GrantException {
        byte[] key = Schnorr.newSecretKey();
        Grant g = Grant.sign(TERMS, key, CREATED);
        Grant back = Grant.parse(g.event().json(), CREATED + 10);
        assertEquals(TERMS, back.terms());
        assertEquals(Hex.encode(Schnorr.publicKey(key)), back.grantor().hex());
    }

    @Test
    void unknownTagsAreIgnored() throws GrantException {
        List<List<String>> tags = new ArrayList<>(Grant.tags(TERMS));
        tags.add(List.of("alt", "a bilateral grant"));
        tags.add(List.of());
        Event e = Events.sign(SECRET, CREATED, Grant.KIND, tags, "");
        assertEquals(TERMS, Grant.parse(e, CREATED).terms());
    }

    static List<Arguments> broken() {
        return List.of(
                Arguments.of("missing d", edit(t -> without(t, "d")), "invalid: missing d tag"),
                Arguments.of("duplicate d", edit(t -> with(t, List.of("d", GRANTEE))), "invalid: duplicate d tag"),
                Arguments.of("missing v", edit(t -> without(t, "v")), "invalid: missing v tag"),
                Arguments.of("version 2", edit(t -> replace(t, "v", List.of("v", "2"))),
                        "invalid: unsupported grant version \"2\" (this node reads 1)"),
                Arguments.of("missing link", edit(t -> without(t, "link")), "invalid: missing link tag"),
                Arguments.of("duplicate link", edit(t -> with(t, List.of("link", GRANTOR, GRANTEE))),
                        "invalid: duplicate link tag"),
                Arguments.of("short link", edit(t -> replace(t, "link", List.of("link", GRANTOR))),
                        "invalid: link tag must be [\"link\", <grantor DID>, <grantee DID>]"),
                Arguments.of("link to another grantee",
                        edit(t -> replace(t, "link", List.of("link", GRANTOR, "did:key:z6Mkother"))),
                        "invalid: the link's grantee is not the d tag"),
                Arguments.of("grantor not a DID", edit(t -> replace(t, "link", List.of("link", "npub1x", GRANTEE))),
                        "invalid: the grantor is not a DID"),
                Arguments.of("grantee not a DID", edit(t -> replace(replace(t, "d", List.of("d", "bob")), "link",
                        List.of("link", GRANTOR, "bob"))), "invalid: the grantee is not a DID"),
                Arguments.of("self grant", edit(t -> replace(replace(t, "d", List.of("d", GRANTOR)), "link",
                        List.of("link", GRANTOR, GRANTOR))), "invalid: a node cannot grant itself"),
                Arguments.of("missing bytes", edit(t -> without(t, "bytes")), "invalid: missing bytes tag"),
                Arguments.of("duplicate events", edit(t -> with(t, List.of("events", "600"))),
                        "invalid: duplicate events tag"),
                Arguments.of("missing window", edit(t -> without(t, "window")), "invalid: missing window tag"),
                Arguments.of("missing tier", edit(t -> without(t, "tier")), "invalid: missing tier tag"),
                Arguments.of("missing expiration", edit(t -> without(t, "expiration")),
                        "invalid: missing expiration tag"),
                Arguments.of("leading zero", edit(t -> replace(t, "bytes", List.of("bytes", "0600"))),
                        "invalid: bytes must be a decimal integer without sign or leading zeros, was \"0600\""),
                Arguments.of("sign", edit(t -> replace(t, "events", List.of("events", "+600"))),
                        "invalid: events must be a decimal integer without sign or leading zeros, was \"+600\""),
                Arguments.of("fraction", edit(t -> replace(t, "window", List.of("window", "1.5"))),
                        "invalid: window must be a decimal integer without sign or leading zeros, was \"1.5\""),
                Arguments.of("overflow", edit(t -> replace(t, "bytes", List.of("bytes", "9999999999999999999"))),
                        "invalid: bytes is out of range"),
                Arguments.of("two values", edit(t -> replace(t, "tier", List.of("tier", "1", "2"))),
                        "invalid: tier tag must have exactly one value"),
                Arguments.of("zero bytes", edit(t -> replace(t, "bytes", List.of("bytes", "0"))),
                        "invalid: bytes must be 1..(window x 10^9)"),
                Arguments.of("zero events", edit(t -> replace(t, "events", List.of("events", "0"))),
                        "invalid: events must be 1..(window x 10^9)"),
                Arguments.of("more bytes than nanoseconds",
                        edit(t -> replace(t, "bytes", List.of("bytes", "60000000001"))),
                        "invalid: bytes must be 1..(window x 10^9)"),
                Arguments.of("zero window", edit(t -> replace(t, "window", List.of("window", "0"))),
                        "invalid: window must be 1..86400 seconds"),
                Arguments.of("window over a day", edit(t -> replace(t, "window", List.of("window", "86401"))),
                        "invalid: window must be 1..86400 seconds"),
                Arguments.of("tier 256", edit(t -> replace(t, "tier", List.of("tier", "256"))),
                        "invalid: tier must be 0..255"),
                Arguments.of("expires before created",
                        edit(t -> replace(t, "expiration", List.of("expiration", Long.toString(CREATED - 1)))),
                        "invalid: the grant expires before it was created"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("broken")
    void aMalformedGrantIsRefusedWithItsReason(String name, Event e, String reason) {
        GrantException ex = assertThrows(GrantException.class, () -> Grant.parse(e, CREATED));
        assertEquals(reason, ex.getMessage());
    }

    @Test
    void anotherKindIsRefused() {
        Event e = Events.sign(SECRET, CREATED, 30802, Grant.tags(TERMS), "");
        assertEquals("invalid: kind 30802 is not a grant (30801)",
                assertThrows(GrantException.class, () -> Grant.parse(e, CREATED)).getMessage());
    }

    @Test
    void anExpiredGrantIsRefused() {
        assertEquals("invalid: the grant expired at 1767225600",
                assertThrows(GrantException.class, () -> Grant.parse(VECTOR_JSON, EXPIRES)).getMessage());
    }

    @Test
    void aTamperedGrantIsRefused() {
        String more = VECTOR_JSON.replace("[\"events\",\"600\"]", "[\"events\",\"6000\"]");
        assertEquals("invalid: event id does not match the canonical serialization",
                assertThrows(GrantException.class, () -> Grant.parse(more, CREATED)).getMessage());
        String otherSig = VECTOR_JSON.replace(VECTOR_SIG, VECTOR_SIG.substring(0, 127) + "0");
        assertEquals("invalid: bad signature",
                assertThrows(GrantException.class, () -> Grant.parse(otherSig, CREATED)).getMessage());
    }

    @Test
    void unreadableJsonIsRefused() {
        GrantException ex = assertThrows(GrantException.class, () -> Grant.parse("[1,2]", CREATED));
        assertTrue(ex.getMessage().startsWith("invalid: "), ex.getMessage());
    }

    @Test
    void termsOutOfRangeCannotBeSigned() {
        assertThrows(IllegalArgumentException.class, () -> new GrantTerms(GRANTOR, GRANTEE, 0, 1, 60, 0, EXPIRES));
        assertThrows(IllegalArgumentException.class, () -> new GrantTerms(GRANTOR, "x", 1, 1, 60, 0, EXPIRES));
        assertThrows(IllegalArgumentException.class, () -> Grant.sign(TERMS, SECRET, EXPIRES + 1));
    }

    private static Event edit(UnaryOperator<List<List<String>>> change) {
        return Events.sign(SECRET, CREATED, Grant.KIND, change.apply(new ArrayList<>(Grant.tags(TERMS))), "");
    }

    private static List<List<String>> without(List<List<String>> tags, String name) {
        tags.removeIf(t -> t.get(0).equals(name));
        return tags;
    }

    private static List<List<String>> with(List<List<String>> tags, List<String> tag) {
        tags.add(tag);
        return tags;
    }

    private static List<List<String>> replace(List<List<String>> tags, String name, List<String> tag) {
        tags.replaceAll(t -> t.get(0).equals(name) ? tag : t);
        return tags;
    }

    /** A grant naming a DID of the largest size a grant allows: the old regex overflowed the stack on it. */
    @Test
    void aDidOfTheLargestSizeIsReadWithoutOverflowingTheStack() throws InterruptedException {
        String grantee = "did:peer:4zQm" + "b".repeat(GrantTerms.MAX_DID_LENGTH - 13);
        java.util.concurrent.atomic.AtomicReference<Object> result = new java.util.concurrent.atomic.AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                result.set(GrantTerms.isDid(grantee));
            } catch (StackOverflowError e) {
                result.set(e);
            }
        }, "small stack", 128 * 1024);
        t.start();
        t.join();
        org.junit.jupiter.api.Assertions.assertEquals(Boolean.TRUE, result.get());
    }
}
