package org.fleetmesh.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.Item;
import org.fleetmesh.negentropy.SortedVector;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventClass;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.nostr.Signature;
import org.junit.jupiter.api.Test;

class ClaimTest {
    /** The vector's signer: node A of docs/spec/mesh-link.md, Nostr secret key 32 bytes 0x01. */
    static final byte[] SECRET = fill(0x01);
    /** 2026-01-01T00:00:00Z. */
    static final long T0 = 1_767_225_600L;
    static final Shard SHARD = new Shard("uk-events-2026Q3", new Filter(null, null, Set.of(7, 1), Map.of(), null, null, null),
            Shard.Mode.ASSERTED);

    static byte[] fill(int b) {
        byte[] x = new byte[32];
        Arrays.fill(x, (byte) b);
        return x;
    }

    /** The vector's set: ids SHA-256("fleetmesh shard vector i"), created_at T0 - 100 + i / 2, i = 0..4. */
    static List<Item> vectorItems() {
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            items.add(new Item(T0 - 100 + i / 2,
                    Id.of(Events.sha256(("fleetmesh shard vector " + i).getBytes(StandardCharsets.UTF_8)))));
        }
        items.sort(null);
        return items;
    }

    static ShardFigures vectorFigures() {
        SortedVector.Builder b = SortedVector.builder();
        vectorItems().forEach(b::insert);
        return ShardFigures.of(b.seal());
    }

    /** The vector's claim: created_at T0, BIP-340 auxiliary randomness 32 zero bytes. */
    static Event vectorClaim() {
        return Claim.sign(SHARD, vectorFigures(), T0, SECRET, new byte[32]);
    }

    static Event resigned(Event e, UnaryOperator<List<List<String>>> edit) {
        return Events.sign(SECRET, e.createdAt(), e.kind(), edit.apply(new ArrayList<>(e.tags())), e.content());
    }

    static String refusal(Event e) {
        return assertThrows(ClaimException.class, () -> Claim.read(e)).getMessage();
    }

    @Test
    void signsAnAddressableEventWithTheTagsInOrder() {
        ShardFigures f = vectorFigures();
        Event e = Claim.sign(SHARD, f, T0, SECRET);
        assertEquals(Claim.KIND, e.kind());
        assertEquals(EventClass.ADDRESSABLE, e.eventClass());
        assertEquals(new PubKey(Schnorr.publicKey(SECRET)), e.pubkey());
        assertEquals(T0, e.createdAt());
        assertEquals("", e.content());
        assertEquals(List.of(List.of("d", "uk-events-2026Q3"), List.of("filter", "{\"kinds\":[1,7]}"),
                List.of("mode", "asserted"), List.of("count", "5"), List.of("fingerprint", f.fingerprintHex()),
                List.of("root", f.rootHex()), List.of("alt", "fleetmesh shard claim: uk-events-2026Q3 (asserted), 5 events")),
                e.tags());
        assertEquals(null, Events.verify(e));
    }

    @Test
    void readsWhatItSigned() throws Exception {
        Event e = Claim.sign(SHARD, vectorFigures(), T0, SECRET);
        Claim c = Claim.read(e);
        assertEquals(e.pubkey(), c.author());
        assertEquals(SHARD.id(), c.shard().id());
        assertEquals(SHARD.filter(), c.shard().filter());
        assertEquals(SHARD.mode(), c.shard().mode());
        assertEquals(vectorFigures(), c.figures());
        assertEquals(T0, c.createdAt());
        assertEquals(e, c.event());
        assertTrue(c.sameShard(SHARD));
        assertTrue(!c.sameShard(new Shard(SHARD.id(), Filter.ALL, SHARD.mode())));
    }

    @Test
    void matchesTheVectorInTheSpec() throws Exception {
        Event e = vectorClaim();
        String spec = Files.readString(Path.of("..", "docs", "spec", "shards.md"));
        ShardFigures f = vectorFigures();
        for (Item it : vectorItems()) {
            assertTrue(spec.contains("| " + it.timestamp() + " | " + it.id().toHex() + " |"), "item " + it.id());
        }
        assertTrue(spec.contains("fingerprint " + f.fingerprintHex()), "the fingerprint " + f.fingerprintHex());
        assertTrue(spec.contains("root        " + f.rootHex()), "the root " + f.rootHex());
        assertTrue(spec.contains(e.json()), "the event\n" + e.json());
        ShardFigures empty = ShardFigures.of(SortedVector.builder().seal());
        assertTrue(spec.contains("The empty set: count 0, fingerprint `" + empty.fingerprintHex() + "`, root\n`"
                + empty.rootHex() + "`"), "the empty set's figures");
        assertEquals(null, Events.verify(e));
        assertTrue(Schnorr.verifyPortable(e.sig().unsafeBytes(), e.id().unsafeBytes(), e.pubkey().unsafeBytes()));
    }

    @Test
    void refusesAnyTamperedTag() {
        Event e = vectorClaim();
        for (int i = 0; i < e.tags().size(); i++) {
            List<List<String>> tags = new ArrayList<>(e.tags());
            tags.set(i, List.of(tags.get(i).get(0), tags.get(i).get(1) + "0"));
            Event forged = new Event(e.id(), e.pubkey(), e.createdAt(), e.kind(), tags, e.content(), e.sig());
            assertEquals("invalid: event id does not match the canonical serialization", refusal(forged), "tag " + i);
        }
        Event wrongSig = new Event(e.id(), e.pubkey(), e.createdAt(), e.kind(), e.tags(), e.content(),
                new Signature(new byte[64]));
        assertEquals("invalid: bad signature", refusal(wrongSig));
    }

    @Test
    void refusesOtherKinds() {
        Event e = Events.sign(SECRET, T0, 30802, vectorClaim().tags(), "");
        assertEquals("not a shard claim: kind 30802, not 30803", refusal(e));
    }

    @Test
    void refusesMissingAndRepeatedTags() {
        Event e = vectorClaim();
        for (String name : List.of("d", "filter", "mode", "count", "fingerprint", "root")) {
            assertEquals("invalid: missing tag " + name,
                    refusal(resigned(e, t -> new ArrayList<>(t.stream().filter(x -> !x.get(0).equals(name)).toList()))));
            assertEquals("invalid: more than one " + name + " tag", refusal(resigned(e, t -> {
                t.add(t.stream().filter(x -> x.get(0).equals(name)).findFirst().orElseThrow());
                return t;
            })));
            assertEquals("invalid: the " + name + " tag has one value", refusal(resigned(e, t -> {
                t.replaceAll(x -> x.get(0).equals(name) ? List.of(x.get(0), x.get(1), "extra") : x);
                return t;
            })));
        }
    }

    @Test
    void refusesMalformedValues() {
        Event e = vectorClaim();
        assertEquals("invalid: filter is not in canonical form", refusal(with(e, "filter", "{\"kinds\":[7,1]}")));
        assertEquals("invalid: filter: a shard filter has no limit", refusal(with(e, "filter", "{\"kinds\":[1,7],\"limit\":1}")));
        assertTrue(refusal(with(e, "filter", "{")).startsWith("invalid: filter: "));
        assertEquals("invalid: mode must be \"asserted\" or \"replicated\"", refusal(with(e, "mode", "complete")));
        assertEquals("invalid: d is not a shard id (1 to 64 characters of [A-Za-z0-9._:-])", refusal(with(e, "d", "a b")));
        for (String count : List.of("-1", "01", "1.0", "", "x", "1234567890123456789")) {
            assertEquals("invalid: count is a non-negative decimal integer without leading zeros",
                    refusal(with(e, "count", count)), count);
        }
        assertEquals("invalid: fingerprint is 32 lower-case hex characters",
                refusal(with(e, "fingerprint", vectorFigures().fingerprintHex().toUpperCase())));
        assertEquals("invalid: fingerprint is 32 lower-case hex characters", refusal(with(e, "fingerprint", "00")));
        assertEquals("invalid: root is 64 lower-case hex characters", refusal(with(e, "root", "ab".repeat(31))));
    }

    @Test
    void ignoresTagsItDoesNotKnow() throws Exception {
        Event e = resigned(vectorClaim(), t -> {
            t.removeIf(x -> x.get(0).equals("alt"));
            t.add(List.of("expiration-hint", "later", "x"));
            return t;
        });
        assertEquals(5, Claim.read(e).figures().count());
    }

    @Test
    void aWithdrawalDeletesTheClaimsAddress() {
        Event w = Claim.withdrawal("uk-events-2026Q3", T0 + 60, SECRET);
        assertEquals(5, w.kind());
        assertEquals(T0 + 60, w.createdAt());
        assertEquals(List.of(List.of("a", "30803:" + new PubKey(Schnorr.publicKey(SECRET)).hex() + ":uk-events-2026Q3"),
                List.of("k", "30803")), w.tags());
        assertEquals(null, Events.verify(w));
    }

    static Event with(Event e, String name, String value) {
        return resigned(e, t -> {
            t.replaceAll(x -> x.get(0).equals(name) ? List.of(name, value) : x);
            return t;
        });
    }

    /** Prints the vector for docs/spec/shards.md (run by hand after changing the vector's inputs). */
    public static void main(String[] args) {
        for (Item it : vectorItems()) {
            System.out.println("| " + it.timestamp() + " | " + it.id().toHex() + " |");
        }
        ShardFigures f = vectorFigures();
        System.out.println("count       " + f.count());
        System.out.println("fingerprint " + f.fingerprintHex());
        System.out.println("root        " + f.rootHex());
        System.out.println(vectorClaim().json());
    }
}
