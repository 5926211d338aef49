package org.fleetmesh.nostr.nip59;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.nostr.nip44.ConversationKey;
import org.fleetmesh.nostr.nip44.Nip44;
import org.junit.jupiter.api.Test;

/** NIP-59: rumor, seal and gift wrap, and every reason to refuse one. */
class GiftWrapTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final long NOW = 1_750_000_000L;
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC);

    private final byte[] alice = Schnorr.newSecretKey();
    private final byte[] bob = Schnorr.newSecretKey();
    private final byte[] mallory = Schnorr.newSecretKey();
    private final PubKey alicePub = new PubKey(Schnorr.publicKey(alice));
    private final PubKey bobPub = new PubKey(Schnorr.publicKey(bob));
    private final SecureRandom random = new SecureRandom();

    /** A SecureRandom that repeats itself from a seed, so a wrap can be reproduced. */
    private static final class SeededRandom extends SecureRandom {
        private final Random seeded;

        SeededRandom(long seed) {
            this.seeded = new Random(seed);
        }

        @Override
        public void nextBytes(byte[] bytes) {
            seeded.nextBytes(bytes);
        }
    }

    private Rumor note(String content) {
        return Rumor.of(alicePub, NOW, 1, List.of(List.of("t", "party")), content);
    }

    private static String messageOf(Event wrap, byte[] secret) {
        return assertThrows(GiftWrapException.class, () -> GiftWrap.open(wrap, secret)).getMessage();
    }

    /** A seal built by hand, for shapes {@link GiftWrap} itself never produces. */
    private Event handMadeSeal(byte[] signer, int kind, List<List<String>> tags, String rumorJson) throws Exception {
        String content = Nip44.encrypt(rumorJson, ConversationKey.of(signer, bobPub));
        return Events.sign(signer, NOW - 10, kind, tags, content);
    }

    @Test
    void wrappedRumorOpensForTheRecipient() throws Exception {
        Rumor rumor = note("Are you going to the party tonight?");
        Event wrap = GiftWrap.wrap(rumor, alice, bobPub);

        GiftWrap.Opened opened = GiftWrap.open(wrap, bob);
        assertEquals(rumor, opened.rumor());
        assertEquals(alicePub, opened.author());
        assertEquals(alicePub, opened.seal().pubkey());
        assertEquals(GiftWrap.SEAL_KIND, opened.seal().kind());
        assertTrue(opened.seal().tags().isEmpty());
    }

    @Test
    void giftWrapIsKind1059AddressedToTheRecipientAndSignedByAOneTimeKey() throws Exception {
        Event first = GiftWrap.wrap(note("hi"), alice, bobPub);
        Event second = GiftWrap.wrap(note("hi"), alice, bobPub);
        assertEquals(GiftWrap.GIFT_WRAP_KIND, first.kind());
        assertEquals(List.of(List.of("p", bobPub.hex())), first.tags());
        assertEquals(null, Events.verify(first));
        assertNotEquals(alicePub, first.pubkey());
        assertNotEquals(first.pubkey(), second.pubkey());
    }

    @Test
    void sealAndWrapTimestampsAreRandomWithinTheLastTwoDaysAndNeverTheRumors() throws Exception {
        Rumor rumor = note("when?");
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 40; i++) {
            Event wrap = GiftWrap.wrap(rumor, alice, bobPub, CLOCK, random);
            Event seal = GiftWrap.open(wrap, bob).seal();
            for (long t : new long[] { wrap.createdAt(), seal.createdAt() }) {
                assertTrue(t >= NOW - GiftWrap.TIMESTAMP_WINDOW_SECONDS && t < NOW, "outside the window: " + t);
                assertNotEquals(rumor.createdAt(), t);
                seen.add(t);
            }
        }
        assertTrue(seen.size() > 60, "timestamps should vary, got " + seen.size() + " distinct of 80");
    }

    @Test
    void theSameClockAndSeedGiveTheSameWrap() {
        Rumor rumor = note("reproducible");
        Event a = GiftWrap.wrap(rumor, alice, bobPub, CLOCK, new SeededRandom(7));
        Event b = GiftWrap.wrap(rumor, alice, bobPub, CLOCK, new SeededRandom(7));
        assertEquals(a.json(), b.json());
    }

    @Test
    void aWrapWhoseContentWasChangedIsRefused() {
        Event wrap = GiftWrap.wrap(note("hi"), alice, bobPub);
        Event tampered = new Event(wrap.id(), wrap.pubkey(), wrap.createdAt(), wrap.kind(), wrap.tags(),
                Nip44.encrypt("{}", ConversationKey.ofBytes(new byte[32])), wrap.sig());
        assertTrue(messageOf(tampered, bob).startsWith("gift wrap is not authentic"));
    }

    @Test
    void aSealWhoseContentWasChangedIsRefused() throws Exception {
        Event seal = GiftWrap.seal(note("hi"), alice, bobPub, CLOCK, random);
        Event other = GiftWrap.seal(note("bye"), alice, bobPub, CLOCK, random);
        Event tampered = new Event(seal.id(), seal.pubkey(), seal.createdAt(), seal.kind(), seal.tags(),
                other.content(), seal.sig());
        Event wrap = GiftWrap.wrapSeal(tampered, bobPub, CLOCK, random);
        assertTrue(messageOf(wrap, bob).startsWith("seal is not authentic"), messageOf(wrap, bob));
    }

    @Test
    void aSealSignedBySomeoneElseThanTheRumorsAuthorIsRefused() {
        Event forged = GiftWrap.seal(note("I, Alice, owe Mallory 1 BTC"), mallory, bobPub, CLOCK, random);
        Event wrap = GiftWrap.wrapSeal(forged, bobPub, CLOCK, random);
        String message = messageOf(wrap, bob);
        assertTrue(message.startsWith("rumor claims author " + alicePub.hex()), message);
    }

    @Test
    void aWrapForAnotherRecipientDoesNotDecrypt() {
        Event wrap = GiftWrap.wrap(note("hi"), alice, bobPub);
        assertEquals("cannot decrypt the gift wrap: invalid MAC", messageOf(wrap, mallory));
    }

    @Test
    void anEventOfAnotherKindIsNotAGiftWrap() {
        Event note = Events.sign(alice, NOW, 1, List.of(), "plain");
        assertTrue(messageOf(note, bob).startsWith("not a gift wrap: kind 1"));
    }

    @Test
    void anEphemeralGiftWrapOpensToo() throws Exception {
        Rumor rumor = note("live");
        Event seal = GiftWrap.seal(rumor, alice, bobPub, CLOCK, random);
        byte[] oneTime = Schnorr.newSecretKey();
        Event wrap = Events.sign(oneTime, NOW - 5, GiftWrap.EPHEMERAL_GIFT_WRAP_KIND, List.of(List.of("p", bobPub.hex())),
                Nip44.encrypt(seal.json(), ConversationKey.of(oneTime, bobPub)));
        assertEquals(rumor, GiftWrap.open(wrap, bob).rumor());
    }

    @Test
    void aSealOfAnotherKindIsRefused() throws Exception {
        Event seal = handMadeSeal(alice, 14, List.of(), note("hi").json());
        assertEquals("seal has kind 14, expected 13", messageOf(GiftWrap.wrapSeal(seal, bobPub, CLOCK, random), bob));
    }

    @Test
    void aSealWithTagsIsRefused() throws Exception {
        Event seal = handMadeSeal(alice, 13, List.of(List.of("p", bobPub.hex())), note("hi").json());
        assertTrue(messageOf(GiftWrap.wrapSeal(seal, bobPub, CLOCK, random), bob).startsWith("seal has tags"));
    }

    @Test
    void aRumorWhoseIdDoesNotMatchItsFieldsIsRefused() throws Exception {
        Rumor honest = note("hi");
        Rumor edited = new Rumor(honest.id(), honest.pubkey(), honest.createdAt(), honest.kind(), honest.tags(), "bye");
        Event seal = handMadeSeal(alice, 13, List.of(), edited.json());
        String message = messageOf(GiftWrap.wrapSeal(seal, bobPub, CLOCK, random), bob);
        assertTrue(message.startsWith("rumor id"), message);
    }

    @Test
    void aSealHoldingSomethingOtherThanAnEventIsRefused() throws Exception {
        Event seal = handMadeSeal(alice, 13, List.of(), "[\"not\", \"an event\"]");
        String message = messageOf(GiftWrap.wrapSeal(seal, bobPub, CLOCK, random), bob);
        assertEquals("rumor is not a JSON object", message);
    }

    @Test
    void wrapRefusesARumorOfAnotherAuthor() {
        Rumor bobs = Rumor.of(bobPub, NOW, 1, List.of(), "hi");
        assertThrows(IllegalArgumentException.class, () -> GiftWrap.wrap(bobs, alice, bobPub));
    }

    @Test
    void wrapRefusesARumorWithAWrongId() {
        Rumor honest = note("hi");
        Rumor edited = new Rumor(honest.id(), honest.pubkey(), honest.createdAt(), honest.kind(), honest.tags(), "bye");
        assertThrows(IllegalArgumentException.class, () -> GiftWrap.wrap(edited, alice, bobPub));
    }

    @Test
    void wrapRefusesASecretKeyOutsideTheCurveOrder() {
        Rumor rumor = note("hi");
        assertThrows(IllegalArgumentException.class, () -> GiftWrap.wrap(rumor, new byte[32], bobPub));
    }

    @Test
    void rumorJsonHasNoSignatureAndReadsBack() throws Exception {
        Rumor rumor = Rumor.of(alicePub, NOW, 14, List.of(List.of("p", bobPub.hex(), "wss://relay.example")),
                "quote \" backslash \\ newline \n control \u0001 emoji \uD83E\uDD84");
        String json = rumor.json();
        assertTrue(!json.contains("\"sig\""), json);
        assertEquals(rumor, Rumor.fromJson(json));
        assertTrue(Rumor.fromJson(json).hasValidId());
    }

    @Test
    void rumorWithoutAnIdIsRefused() {
        GiftWrapException e = assertThrows(GiftWrapException.class, () -> Rumor.fromJson(
                "{\"pubkey\":\"" + alicePub.hex() + "\",\"created_at\":1,\"kind\":1,\"tags\":[],\"content\":\"\"}"));
        assertEquals("rumor has no id", e.getMessage());
    }

    /**
     * NIP-59's "An Example", exactly as 59.md prints it except for the trailing comma after the wrap's
     * tags, which is not JSON.
     */
    @Test
    void theExampleIn59mdOpensWithTheRecipientKey() throws Exception {
        byte[] recipient = HEX.parseHex("e108399bd8424357a710b606ae0c13166d853d327e47a6e5e038197346bdbf45");
        PubKey author = new PubKey(Schnorr.publicKey(
                HEX.parseHex("0beebd062ec8735f4243466049d7747ef5d6594ee838de147f8aab842b15e273")));
        Event wrap = new MessageParser(MessageParser.Limits.DEFAULT).parseEvent("""
                {
                  "content": "AhC3Qj/QsKJFWuf6xroiYip+2yK95qPwJjVvFujhzSguJWb/6TlPpBW0CGFwfufCs2Zyb0JeuLmZhNlnqecAAalC4ZCugB+I9ViA5pxLyFfQjs1lcE6KdX3euCHBLAnE9GL/+IzdV9vZnfJH6atVjvBkNPNzxU+OLCHO/DAPmzmMVx0SR63frRTCz6Cuth40D+VzluKu1/Fg2Q1LSst65DE7o2efTtZ4Z9j15rQAOZfE9jwMCQZt27rBBK3yVwqVEriFpg2mHXc1DDwHhDADO8eiyOTWF1ghDds/DxhMcjkIi/o+FS3gG1dG7gJHu3KkGK5UXpmgyFKt+421m5o++RMD/BylS3iazS1S93IzTLeGfMCk+7IKxuSCO06k1+DaasJJe8RE4/rmismUvwrHu/HDutZWkvOAhd4z4khZo7bJLtiCzZCZ74lZcjOB4CYtuAX2ZGpc4I1iOKkvwTuQy9BWYpkzGg3ZoSWRD6ty7U+KN+fTTmIS4CelhBTT15QVqD02JxfLF7nA6sg3UlYgtiGw61oH68lSbx16P3vwSeQQpEB5JbhofW7t9TLZIbIW/ODnI4hpwj8didtk7IMBI3Ra3uUP7ya6vptkd9TwQkd/7cOFaSJmU+BIsLpOXbirJACMn+URoDXhuEtiO6xirNtrPN8jYqpwvMUm5lMMVzGT3kMMVNBqgbj8Ln8VmqouK0DR+gRyNb8fHT0BFPwsHxDskFk5yhe5c/2VUUoKCGe0kfCcX/EsHbJLUUtlHXmTqaOJpmQnW1tZ/siPwKRl6oEsIJWTUYxPQmrM2fUpYZCuAo/29lTLHiHMlTbarFOd6J/ybIbICy2gRRH/LFSryty3Cnf6aae+A9uizFBUdCwTwffc3vCBae802+R92OL78bbqHKPbSZOXNC+6ybqziezwG+OPWHx1Qk39RYaF0aFsM4uZWrFic97WwVrH5i+/Nsf/OtwWiuH0gV/SqvN1hnkxCTF/+XNn/laWKmS3e7wFzBsG8+qwqwmO9aVbDVMhOmeUXRMkxcj4QreQkHxLkCx97euZpC7xhvYnCHarHTDeD6nVK+xzbPNtzeGzNpYoiMqxZ9bBJwMaHnEoI944Vxoodf51cMIIwpTmmRvAzI1QgrfnOLOUS7uUjQ/IZ1Qa3lY08Nqm9MAGxZ2Ou6R0/Z5z30ha/Q71q6meAs3uHQcpSuRaQeV29IASmye2A2Nif+lmbhV7w8hjFYoaLCRsdchiVyNjOEM4VmxUhX4VEvw6KoCAZ/XvO2eBF/SyNU3Of4SO",
                  "kind": 1059,
                  "created_at": 1703021488,
                  "pubkey": "18b1a75918f1f2c90c23da616bce317d36e348bcf5f7ba55e75949319210c87c",
                  "id": "5c005f3ccf01950aa8d131203248544fb1e41a0d698e846bd419cec3890903ac",
                  "sig": "35fabdae4634eb630880a1896a886e40fd6ea8a60958e30b89b33a93e6235df750097b04f9e13053764251b8bc5dd7e8e0794a3426a90b6bcc7e5ff660f54259",
                  "tags": [["p", "166bf3765ebd1fc55decfe395beff2ea3b2a4e0a8946e7eb578512b555737c99"]]
                }""");
        assertEquals(HEX.formatHex(Schnorr.publicKey(recipient)), wrap.firstTagValue("p"));

        GiftWrap.Opened opened = GiftWrap.open(wrap, recipient);
        assertEquals("Are you going to the party tonight?", opened.rumor().content());
        assertEquals(author, opened.author());
        assertEquals(1, opened.rumor().kind());
        assertEquals(1691518405L, opened.rumor().createdAt());
        assertEquals("9dd003c6d3b73b74a85a9ab099469ce251653a7af76f523671ab828acd2a0ef9", opened.rumor().id().hex());
        assertEquals("28a87d7c074d94a58e9e89bb3e9e4e813e2189f285d797b1c56069d36f59eaa7", opened.seal().id().hex());
        assertEquals(1703015180L, opened.seal().createdAt());
    }
}
