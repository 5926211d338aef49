package org.fleetmesh.it;

import static org.fleetmesh.it.Keys.now;
import static org.fleetmesh.it.Keys.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * NIP-42 authentication, NIP-70 protected events and the private kinds (4, 13, 1059) against a
 * packaged node with its default, open policy.
 */
class AuthIT {
    private static final Duration QUIET = Duration.ofMillis(800);

    static MeshnodeProcess node;

    @BeforeAll
    static void startNode() {
        node = MeshnodeProcess.start("auth");
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    private static NostrClient client() {
        return NostrClient.connect(node);
    }

    private static Set<String> ids(List<JsonNode> events) {
        return new HashSet<>(NostrClient.ids(events));
    }

    private static Set<String> ids(Event... events) {
        Set<String> s = new HashSet<>();
        for (Event e : events) {
            s.add(e.id().hex());
        }
        return s;
    }

    // ---------------------------------------------------------------- NIP-42

    @Test
    void everyConnectionGetsItsOwnChallenge() {
        try (NostrClient a = client(); NostrClient b = client()) {
            String ca = a.challenge(), cb = b.challenge();
            assertFalse(ca.isBlank());
            assertFalse(ca.equals(cb), "two connections share a challenge");
        }
    }

    @Test
    void validAuthIsAcceptedAndTheAuthEventIsNeitherStoredNorBroadcast() {
        Keys k = Keys.fresh();
        try (NostrClient watcher = client(); NostrClient c = client()) {
            watcher.query("w", FilterSpec.of().kinds(22242).authors(k));
            Event auth = c.authEvent(k);
            c.send("[\"AUTH\"," + auth.json() + "]");
            NostrClient.Ok ok = c.expectOk(auth.id().hex());
            assertTrue(ok.accepted(), "AUTH: " + ok);
            watcher.expectNoEvent("w", QUIET);
            assertEquals(List.of(), watcher.query("stored", FilterSpec.of().ids(auth)));
        }
    }

    @Test
    void badAuthEventsAreRefused() {
        Keys k = Keys.fresh();
        try (NostrClient c = client()) {
            String challenge = c.challenge();
            String relay = node.wsUri().toString();
            Event[] bad = {
                    k.sign(22242, now(), "", tag("relay", relay), tag("challenge", challenge + "00")),
                    k.sign(22242, now(), "", tag("relay", "wss://elsewhere.example/"), tag("challenge", challenge)),
                    k.sign(22242, now() - 3600, "", tag("relay", relay), tag("challenge", challenge)),
                    k.sign(22242, now(), "", tag("relay", relay)),
                    k.sign(1, now(), "", tag("relay", relay), tag("challenge", challenge)), };
            for (Event e : bad) {
                c.send("[\"AUTH\"," + e.json() + "]");
                NostrClient.Ok ok = c.expectOk(e.id().hex());
                assertFalse(ok.accepted(), "should be refused: " + e.json() + " -> " + ok);
            }
            Event good = k.sign(22242, now(), "", tag("relay", relay), tag("challenge", challenge));
            c.send("[\"AUTH\"," + Keys.withBrokenSignature(good) + "]");
            assertFalse(c.expectOk(good.id().hex()).accepted(), "AUTH with a bad signature");

            // none of that authenticated the connection
            Event prot = k.note(now(), "protected", tag("-"));
            c.publishAndWait(prot).assertRefused("auth-required:");
        }
    }

    // ---------------------------------------------------------------- NIP-70

    @Test
    void protectedEventsOnlyFromTheirAuthenticatedAuthor() {
        Keys a = Keys.fresh(), b = Keys.fresh(), stranger = Keys.fresh();
        Event fromA = a.note(now(), "a's protected note", tag("-"));
        Event fromB = b.note(now(), "b's protected note", tag("-"));
        Event fromStranger = stranger.note(now(), "stranger's protected note", tag("-"));
        try (NostrClient c = client(); NostrClient reader = client()) {
            c.publishAndWait(fromA).assertRefused("auth-required:");
            // NIP-42 allows several pubkeys on one connection, and all of them count
            c.authenticate(a).assertAccepted();
            c.authenticate(b).assertAccepted();
            c.publishAndWait(fromA).assertAccepted();
            c.publishAndWait(fromB).assertAccepted();
            NostrClient.Ok ok = c.publishAndWait(fromStranger);
            assertFalse(ok.accepted(), "someone else's protected event: " + ok);
            // a protected event, once stored, is served like any other
            assertEquals(ids(fromA, fromB), ids(reader.query("p", FilterSpec.of().authors(a, b, stranger))));
        }
    }

    // ---------------------------------------------------------------- private kinds

    @Test
    void directMessagesAreServedOnlyToTheirAuthorAndRecipient() {
        Keys alice = Keys.fresh(), bob = Keys.fresh(), eve = Keys.fresh();
        long t = now() - 100;
        Event note = alice.note(t, "public");
        Event dm = alice.sign(4, t + 1, "c2VjcmV0?iv=AAAAAAAAAAAAAAAAAAAAAA==", tag("p", bob.pubkey()));
        Event wrap = Keys.fresh().sign(1059, t + 2, "sealed", tag("p", bob.pubkey()));
        try (NostrClient anon = client(); NostrClient asEve = client(); NostrClient asBob = client();
                NostrClient asAlice = client()) {
            anon.publishAndWait(note).assertAccepted();
            anon.publishAndWait(dm).assertAccepted();
            anon.publishAndWait(wrap).assertAccepted();
            asEve.authenticate(eve).assertAccepted();
            asBob.authenticate(bob).assertAccepted();
            asAlice.authenticate(alice).assertAccepted();

            anon.req("dms", FilterSpec.of().kinds(4));
            assertTrue(anon.expectClosed("dms").startsWith("auth-required:"));
            assertEquals(ids(note), ids(anon.query("all", FilterSpec.of().authors(alice))),
                    "a filter without kinds must not reveal the DM");
            assertEquals(Set.of(), ids(asEve.query("eve", FilterSpec.of().kinds(4, 1059).tag('p', bob.pubkey()))));
            assertEquals(ids(dm, wrap), ids(asBob.query("bob", FilterSpec.of().kinds(4, 1059).tag('p', bob.pubkey()))));
            assertEquals(ids(note, dm), ids(asAlice.query("alice", FilterSpec.of().authors(alice))));

            // live: only the recipient's and the author's subscriptions see a new DM
            anon.query("live", FilterSpec.of().authors(alice));
            asEve.query("live", FilterSpec.of().authors(alice));
            asBob.query("live", FilterSpec.of().authors(alice));
            Event dm2 = alice.sign(4, now(), "bW9yZQ==?iv=AAAAAAAAAAAAAAAAAAAAAA==", tag("p", bob.pubkey()));
            Event note2 = alice.note(now(), "public again");
            asAlice.publishAndWait(dm2).assertAccepted();
            asAlice.publishAndWait(note2).assertAccepted();
            assertEquals(dm2.id().hex(), asBob.expectEvent("live").get("id").asText());
            assertEquals(note2.id().hex(), asBob.expectEvent("live").get("id").asText());
            assertEquals(note2.id().hex(), anon.expectEvent("live").get("id").asText());
            assertEquals(note2.id().hex(), asEve.expectEvent("live").get("id").asText());
            anon.expectNoEvent("live", QUIET);
            asEve.expectNoEvent("live", Duration.ZERO);
        }
    }

    @Test
    void countDoesNotRevealPrivateEvents() {
        Keys alice = Keys.fresh(), bob = Keys.fresh();
        long t = now() - 100;
        try (NostrClient anon = client(); NostrClient asBob = client()) {
            anon.publishAndWait(alice.note(t, "public")).assertAccepted();
            anon.publishAndWait(alice.sign(4, t + 1, "eA==?iv=AAAAAAAAAAAAAAAAAAAAAA==", tag("p", bob.pubkey())))
                    .assertAccepted();
            assertEquals(1, anon.countNow("c", FilterSpec.of().authors(alice)),
                    "COUNT must not count events the client may not read");
            assertEquals(0, anon.countNow("c2", FilterSpec.of().kinds(1, 4).tag('p', bob.pubkey())),
                    "COUNT by recipient must not reveal that a DM exists");
            asBob.authenticate(bob).assertAccepted();
            assertEquals(2, asBob.countNow("c3", FilterSpec.of().authors(alice)));
        }
    }
}
