package org.fleetmesh.it;

import static org.fleetmesh.it.Keys.now;
import static org.fleetmesh.it.Keys.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.Negentropy;
import org.fleetmesh.negentropy.SortedVector;
import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The relay's live Negentropy index over the whole store ({@code {}}, the default) follows the
 * real PostgreSQL store through every kind of change, in a running node: after inserts, a
 * replaced profile, NIP-09 deletions by id and by address, and an expiring event, a NIP-77 sync on
 * {@code {}} (served by the index) and one on an unregistered but equivalent filter (served by a
 * per-session snapshot from PostgreSQL) both find exactly what a REQ returns.
 */
class LiveIndexIT {
    static MeshnodeProcess node;
    static final Keys alice = Keys.fresh();

    @BeforeAll
    static void start() {
        node = MeshnodeProcess.start("live-index");
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    /** The ids a client with an empty set is told it needs, for {@code filterJson}. */
    static Set<String> needs(NostrClient c, String sub, String filterJson) {
        Negentropy neg = new Negentropy(SortedVector.builder().seal(), 0);
        c.send("[\"NEG-OPEN\",\"" + sub + "\"," + filterJson + ",\"" + HexFormat.of().formatHex(neg.initiate()) + "\"]");
        for (int round = 0; round < 100; round++) {
            JsonNode m = c.take(j -> j.get(1).asText().equals(sub), "NEG-MSG for " + sub);
            assertEquals("NEG-MSG", m.get(0).asText(), m.toString());
            byte[] next = neg.reconcile(HexFormat.of().parseHex(m.get(2).asText()));
            if (next == null) {
                break;
            }
            c.send("[\"NEG-MSG\",\"" + sub + "\",\"" + HexFormat.of().formatHex(next) + "\"]");
        }
        c.send("[\"NEG-CLOSE\",\"" + sub + "\"]");
        Set<String> out = new TreeSet<>();
        for (Id id : neg.needIds()) {
            out.add(id.toHex());
        }
        return out;
    }

    /** The relay check's data from /q/health/ready. */
    static JsonNode readiness() throws Exception {
        return readiness(node);
    }

    static JsonNode readiness(MeshnodeProcess node) throws Exception {
        var http = java.net.http.HttpClient.newHttpClient();
        var resp = http.send(java.net.http.HttpRequest.newBuilder(node.httpUri().resolve("/q/health/ready")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        for (JsonNode check : NostrClient.JSON.readTree(resp.body()).path("checks")) {
            if (check.path("name").asText().equals("relay")) {
                return check.path("data");
            }
        }
        throw new AssertionError("no relay check in " + resp.body());
    }

    static Set<String> stored(NostrClient c, String sub) {
        Set<String> out = new TreeSet<>();
        for (JsonNode e : c.query(sub, FilterSpec.of().limit(5000))) {
            out.add(e.get("id").asText());
        }
        return out;
    }

    /**
     * Waits for the node's own endpoint announcement (kind 30802, stored just after the port is bound, see
     * docs/spec/identity.md): the one event in the store the tests did not publish.
     */
    static void awaitOwnAnnouncement(NostrClient c) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        for (int i = 0; c.query("own-" + i, NostrClient.tree("{\"kinds\":[30802]}")).size() != 1; i++) {
            assertTrue(System.nanoTime() < deadline, "the node never stored its endpoint announcement");
            Thread.sleep(100);
        }
    }

    @Test
    void theIndexFollowsEveryKindOfChange() throws Exception {
        long t = now() - 1000;
        try (NostrClient c = NostrClient.connect(node)) {
            awaitOwnAnnouncement(c);
            List<Event> notes = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                notes.add(alice.note(t + i, "note " + i));
            }
            Event profile1 = alice.sign(0, t, "{\"name\":\"v1\"}");
            Event profile2 = alice.sign(0, t + 1, "{\"name\":\"v2\"}");
            Event article = alice.sign(30023, t, "article", tag("d", "a1"));
            List<Event> all = new ArrayList<>(notes);
            all.addAll(List.of(profile1, profile2, article));
            for (Event e : all) {
                c.publishAndWait(e).assertAccepted();
            }
            // signed only now: publishing 300 notes can take seconds on a loaded machine
            // it must still be live through the checks below (a loaded machine can take seconds over them)
            long expiration = now() + 20;
            Event expiring = alice.note(t + 5, "short-lived", tag("expiration", String.valueOf(expiration)));
            c.publishAndWait(expiring).assertAccepted();
            Event delById = alice.sign(5, t + 500, "", tag("e", notes.get(0).id().hex()), tag("e", notes.get(1).id().hex()));
            Event delByAddress = alice.sign(5, t + 501, "", tag("a", "30023:" + alice.pubkey() + ":a1"));
            c.publishAndWait(delById).assertAccepted();
            c.publishAndWait(delByAddress).assertAccepted();

            Set<String> expected = stored(c, "req-1");
            assertEquals(300 - 2 + 1 + 1 + 2 + 1, expected.size(),
                    "notes minus two deleted, profile v2, the expiring note, two deletions, the node's announcement");
            assertTrue(!expected.contains(profile1.id().hex()) && !expected.contains(article.id().hex()));
            assertEquals(expected, needs(c, "idx-1", "{}"), "{} (live index) after inserts, replacement and deletions");
            assertEquals(expected, needs(c, "vec-1", "{\"since\":0}"), "per-session snapshot agrees");
            JsonNode ready = readiness();
            assertEquals(expected.size(), ready.path("negentropy_index_items").asInt(), "the index holds what the store holds: " + ready);
            assertEquals(1, ready.path("negentropy_sessions_from_index").asInt(), "only the {} session used the index: " + ready);

            // the expiring event is purged (the relay purges every minute); until then both views may still list it
            while (now() <= expiration) {
                Thread.sleep(200);
            }
            Set<String> afterExpiry = stored(c, "req-2");
            assertTrue(!afterExpiry.contains(expiring.id().hex()), "REQ hides an expired event at once");
            Set<String> index = needs(c, "idx-2", "{}");
            index.remove(expiring.id().hex()); // the index may hold it until the next purge (documented)
            assertEquals(afterExpiry, index);
        }
    }

    /**
     * A delete made by another process on the same database (the CLI's {@code ./meshnode delete},
     * attached to the running node's embedded cluster) reaches the live index through NOTIFY at
     * once, not at the hourly rebuild.
     */
    @Test
    void theIndexFollowsADeleteMadeByTheCli() throws Exception {
        Keys bob = Keys.fresh();
        // its own node: the other test counts the store and the sessions served from the index
        MeshnodeProcess other = MeshnodeProcess.start("live-index-cli");
        long t = now() - 2000;
        try (NostrClient c = NostrClient.connect(other)) {
            awaitOwnAnnouncement(c);
            List<Event> notes = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                notes.add(bob.note(t + i, "cli note " + i));
            }
            for (Event e : notes) {
                c.publishAndWait(e).assertAccepted();
            }
            Set<String> before = stored(c, "cli-req-1");
            assertEquals(before, needs(c, "cli-idx-1", "{}"), "index and store agree before the delete");

            String ids = notes.subList(0, 5).stream().map(e -> "\"" + e.id().hex() + "\"").collect(java.util.stream.Collectors.joining(","));
            Launcher.Run d = Launcher.run(other.dataDir(), null, "delete", "--filter", "{\"ids\":[" + ids + "]}");
            assertEquals(0, d.exit(), d.stderr());
            assertTrue(d.stderr().contains("deleted 5 events"), d.stderr());

            Set<String> after = stored(c, "cli-req-2");
            assertEquals(before.size() - 5, after.size());
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
            while (readiness(other).path("negentropy_index_items").asInt() != after.size()) {
                assertTrue(System.nanoTime() < deadline, "the index never dropped the CLI's deletions: " + readiness(other));
                Thread.sleep(100);
            }
            assertEquals(after, needs(c, "cli-idx-2", "{}"), "the live index follows the CLI's delete");
            assertTrue(other.isAlive(), "the node keeps running after the CLI exits");
            assertEquals(after, stored(c, "cli-req-3"), "and its database too");
        } finally {
            other.close();
        }
    }
}
