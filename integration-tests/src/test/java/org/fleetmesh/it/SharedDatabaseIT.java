package org.fleetmesh.it;

import static org.fleetmesh.it.Keys.now;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * Two meshnode processes on one PostgreSQL (started here): what one node commits reaches live
 * subscriptions on the other through LISTEN/NOTIFY, ephemeral events included.
 */
class SharedDatabaseIT {
    /** NOTIFY is asynchronous but on one machine it should take well under this. */
    private static final Duration CROSS_NODE = Duration.ofSeconds(10);

    static EmbeddedPostgres pg;
    static MeshnodeProcess a;
    static MeshnodeProcess b;

    @BeforeAll
    static void start() throws IOException {
        pg = EmbeddedPostgres.builder()
                .setDataDirectory(MeshnodeProcess.newDataDir("shared-pg"))
                .setCleanDataDirectory(true)
                .start();
        String url = "jdbc:postgresql://localhost:" + pg.getPort() + "/postgres";
        // one after the other, so that the schema migration runs once
        a = MeshnodeProcess.start("shared-a", MeshnodeProcess.externalDatabase(url, "postgres"));
        b = MeshnodeProcess.start("shared-b", MeshnodeProcess.externalDatabase(url, "postgres"));
    }

    @AfterAll
    static void stop() throws IOException {
        try {
            if (b != null) {
                b.close();
            }
            if (a != null) {
                a.close();
            }
        } finally {
            if (pg != null) {
                pg.close();
            }
        }
    }

    @Test
    void storedEventReachesALiveSubscriptionOnTheOtherNode() {
        Keys k = Keys.fresh();
        try (NostrClient onA = NostrClient.connect(a); NostrClient onB = NostrClient.connect(b)) {
            assertEquals(List.of(), onB.query("live", FilterSpec.of().authors(k)));
            assertEquals(List.of(), onA.query("local", FilterSpec.of().authors(k)));
            Event e = k.note(now(), "written on A");
            onA.publishAndWait(e).assertAccepted();
            assertEquals(NostrClient.tree(e.json()), onB.expectEvent("live", CROSS_NODE));
            assertEquals(NostrClient.tree(e.json()), onA.expectEvent("local"));
            // once each: A must not deliver its own commit a second time when the NOTIFY comes back
            onB.expectNoEvent("live", Duration.ofMillis(1500));
            onA.expectNoEvent("local", Duration.ZERO);

            // and the other way round
            assertEquals(List.of(), onA.query("back", FilterSpec.of().authors(k).kinds(7)));
            Event r = k.sign(7, now(), "+", Keys.tag("e", e.id().hex()));
            onB.publishAndWait(r).assertAccepted();
            assertEquals(NostrClient.tree(r.json()), onA.expectEvent("back", CROSS_NODE));
        }
    }

    @Test
    void ephemeralEventReachesTheOtherNodeWithoutBeingStored() {
        Keys k = Keys.fresh();
        try (NostrClient onA = NostrClient.connect(a); NostrClient onB = NostrClient.connect(b)) {
            onB.query("eph", FilterSpec.of().authors(k).kinds(20001));
            onA.query("localeph", FilterSpec.of().authors(k).kinds(20001));
            Event e = k.sign(20001, now(), "ephemeral from A");
            onA.publishAndWait(e).assertAccepted();
            assertEquals(NostrClient.tree(e.json()), onB.expectEvent("eph", CROSS_NODE));
            assertEquals(NostrClient.tree(e.json()), onA.expectEvent("localeph"));
            onB.expectNoEvent("eph", Duration.ofMillis(1500));
            onA.expectNoEvent("localeph", Duration.ZERO);
            assertEquals(List.of(), onB.query("stored", FilterSpec.of().ids(e)));
            assertEquals(List.of(), onA.query("stored", FilterSpec.of().ids(e)));
        }
    }

    @Test
    void eventStoredThroughOneNodeIsServedByTheOther() {
        Keys k = Keys.fresh();
        Event e = k.note(now() - 5, "stored via A");
        try (NostrClient onA = NostrClient.connect(a); NostrClient onB = NostrClient.connect(b)) {
            onA.publishAndWait(e).assertAccepted();
            assertEquals(1, onB.query("q", FilterSpec.of().ids(e)).size());
            // a duplicate is recognised across nodes: they share one store
            NostrClient.Ok dup = onB.publishAndWait(e);
            assertEquals(true, dup.accepted());
            assertEquals(true, dup.message().startsWith("duplicate:"), dup.toString());
        }
    }

    @Test
    void liveSubscriptionOnTheOtherNodeHonoursItsFilter() {
        Keys k = Keys.fresh();
        try (NostrClient onA = NostrClient.connect(a); NostrClient onB = NostrClient.connect(b)) {
            onB.query("only7", FilterSpec.of().authors(k).kinds(7));
            Event note = k.note(now(), "not for only7");
            Event reaction = k.sign(7, now(), "+");
            onA.publishAndWait(note).assertAccepted();
            onA.publishAndWait(reaction).assertAccepted();
            assertEquals(NostrClient.tree(reaction.json()), onB.expectEvent("only7", CROSS_NODE));
            onB.expectNoEvent("only7", Duration.ofMillis(800));
        }
    }

    @Test
    void aDirectMessageCrossesToItsRecipientOnlyOnTheOtherNode() {
        Keys alice = Keys.fresh(), bob = Keys.fresh();
        try (NostrClient onA = NostrClient.connect(a); NostrClient bobOnB = NostrClient.connect(b);
                NostrClient anonOnB = NostrClient.connect(b)) {
            bobOnB.authenticate(bob).assertAccepted();
            bobOnB.query("bob", FilterSpec.of().authors(alice));
            anonOnB.query("anon", FilterSpec.of().authors(alice));
            Event dm = alice.sign(4, now(), "eA==?iv=AAAAAAAAAAAAAAAAAAAAAA==", Keys.tag("p", bob.pubkey()));
            Event note = alice.note(now(), "public");
            onA.publishAndWait(dm).assertAccepted();
            onA.publishAndWait(note).assertAccepted();
            assertEquals(dm.id().hex(), bobOnB.expectEvent("bob", CROSS_NODE).get("id").asText());
            assertEquals(note.id().hex(), bobOnB.expectEvent("bob", CROSS_NODE).get("id").asText());
            assertEquals(note.id().hex(), anonOnB.expectEvent("anon", CROSS_NODE).get("id").asText());
            anonOnB.expectNoEvent("anon", Duration.ofMillis(800));
        }
    }
}
