package org.fleetmesh.it;

import static org.fleetmesh.it.Keys.now;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.SortedVector;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.shards.Claim;
import org.fleetmesh.shards.ShardFigures;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Shard claims in a running node (docs/spec/shards.md): a shard declared in {@code FLEETMESH_SHARDS} is claimed
 * (kind 30803, signed by the node, served by REQ) with the count, fingerprint and root of what the node holds,
 * reclaimed when a matching event arrives, at most once per claim interval, and not when only other shards change;
 * the admin API declares, replaces and removes shards, which survive a restart; a bad setting stops the start.
 */
class ShardClaimIT {
    static final long INTERVAL = 2;
    static final String SHARDS = "[{\"id\":\"notes\",\"filter\":{\"kinds\":[1]},\"mode\":\"asserted\"},"
            + "{\"id\":\"reactions\",\"filter\":{\"kinds\":[7]},\"mode\":\"replicated\"}]";
    static final MessageParser PARSER = new MessageParser(MessageParser.Limits.DEFAULT);
    static MeshnodeProcess node;
    static String pubkey;
    static final Keys alice = Keys.fresh();
    private static String write, read;

    /** Admin tokens, issued once (each issue is a CLI run). */
    static synchronized String token(String right) throws Exception {
        if (write == null) {
            write = PeeringIT.token(node, "admin:write");
            read = PeeringIT.token(node, "admin:read");
        }
        return right.equals("admin:write") ? write : read;
    }

    @BeforeAll
    static void start() {
        node = MeshnodeProcess.start("shard-claims", Map.of("FLEETMESH_SHARDS", SHARDS,
                "FLEETMESH_SHARDS_CLAIM_INTERVAL", INTERVAL + "s", "FLEETMESH_CLIENT_LIMITS", "off"));
        pubkey = PeeringIT.status(node).path("pubkey").asText();
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    static Claim claim(JsonNode event) {
        try {
            return Claim.read(PARSER.parseEvent(event.toString()));
        } catch (Exception e) {
            throw new AssertionError("not a valid claim: " + event, e);
        }
    }

    static ShardFigures figures(List<Event> events) {
        SortedVector.Builder b = SortedVector.builder();
        for (Event e : events) {
            b.insert(e.createdAt(), Id.of(e.id().toBytes()));
        }
        return ShardFigures.of(b.seal());
    }

    /** Takes claims of {@code shard} from subscription {@code sub} until one has {@code want}; returns all taken. */
    static List<Claim> until(NostrClient c, String sub, String shard, ShardFigures want) {
        return until(c, sub, shard, want, null);
    }

    /** As {@link #until(NostrClient, String, String, ShardFigures)}, and with {@code mode} too when it is not null. */
    static List<Claim> until(NostrClient c, String sub, String shard, ShardFigures want, String mode) {
        List<Claim> seen = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            assertTrue(System.nanoTime() < deadline, "no claim of " + shard + " with " + want + "; saw " + seen);
            JsonNode m = c.take(n -> NostrClient.isFor(n, sub, "EVENT") && shard.equals(dTag(n.get(2))),
                    Duration.ofSeconds(30), "a claim of " + shard + " with " + want);
            Claim cl = claim(m.get(2));
            seen.add(cl);
            if (cl.figures().equals(want) && (mode == null || mode.equals(cl.shard().mode().word()))) {
                return seen;
            }
        }
    }

    static String dTag(JsonNode event) {
        for (JsonNode t : event.path("tags")) {
            if (t.size() >= 2 && t.get(0).asText().equals("d")) {
                return t.get(1).asText();
            }
        }
        return null;
    }

    static JsonNode storedClaim(NostrClient c, String sub, String shard) {
        List<JsonNode> found = c.query(sub, NostrClient.tree("{\"kinds\":[30803],\"authors\":[\"" + pubkey
                + "\"],\"#d\":[\"" + shard + "\"]}"));
        assertEquals(1, found.size(), "one head per address: " + found);
        return found.get(0);
    }

    @Test
    void aDeclaredShardIsClaimedWithItsFiguresAndReclaimedAsItGrowsAtMostOncePerInterval() throws Exception {
        long t = now() - 5000;
        List<Event> notes = new ArrayList<>();
        try (NostrClient c = NostrClient.connect(node)) {
            c.req("claims", NostrClient.tree("{\"kinds\":[30803],\"authors\":[\"" + pubkey + "\"]}"));
            for (int i = 0; i < 20; i++) {
                notes.add(alice.note(t + i, "note " + i));
                c.publishAndWait(notes.get(i)).assertAccepted();
            }
            Event reaction = alice.sign(7, t, "+");
            c.publishAndWait(reaction).assertAccepted();
            List<Claim> seen = until(c, "claims", "notes", figures(notes));
            Claim first = seen.get(seen.size() - 1);
            assertEquals(pubkey, first.author().hex(), "signed by the node's Nostr key");
            assertEquals("{\"kinds\":[1]}", first.event().firstTagValue("filter"));
            assertEquals("asserted", first.event().firstTagValue("mode"));
            assertTrue(first.createdAt() <= now() && first.createdAt() > t);

            List<Claim> reacted = until(c, "claims", "reactions", figures(List.of(reaction)));
            Claim reactions = reacted.get(reacted.size() - 1);
            assertEquals("replicated", reactions.shard().mode().word());

            // a burst of matching events over several intervals: claims keep coming, never two within an interval
            List<Claim> burst = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                notes.add(alice.note(t + 100 + i, "burst " + i));
                c.publishAndWait(notes.get(notes.size() - 1)).assertAccepted();
                Thread.sleep(400);
            }
            burst.addAll(until(c, "claims", "notes", figures(notes)));
            assertTrue(burst.size() >= 2, "the growing shard was reclaimed along the way: " + burst.size());
            long previous = first.createdAt();
            for (Claim cl : burst) {
                assertTrue(cl.createdAt() - previous >= INTERVAL, "claims " + previous + " and " + cl.createdAt()
                        + " are closer than the interval");
                previous = cl.createdAt();
            }
            assertEquals(figures(notes), claim(storedClaim(c, "n2", "notes")).figures(), "the stored head is the last");

            // the kind 7 shard did not change while the kind 1 shard was reclaimed: its claim is the same event
            assertEquals(reactions.event().id().hex(), storedClaim(c, "r2", "reactions").path("id").asText());

            JsonNode status = PeeringIT.status(node);
            JsonNode s = null;
            for (JsonNode x : status.path("shards")) {
                if (x.path("id").asText().equals("notes")) {
                    s = x;
                }
            }
            assertTrue(s != null, status.toString());
            ShardFigures now = figures(notes);
            assertEquals(now.count(), s.path("count").asLong());
            assertEquals(now.fingerprintHex(), s.path("fingerprint").asText());
            assertEquals(now.rootHex(), s.path("root").asText());
            assertEquals(claim(storedClaim(c, "n3", "notes")).event().id().hex(), s.path("claim").asText());
            assertEquals("{\"kinds\":[1]}", s.path("filter").asText());
        }
        // every fleetmesh kind, by the names issues 14 and 15 gave them
        assertEquals("{\"grant\":30801,\"endpoint\":30802,\"claim\":30803,\"receipt\":11803,\"finding\":1804,"
                + "\"offer\":30810,\"job\":30811}",
                NostrClient.tree(node.relayInfo()).path("fleetmesh").path("kinds").toString());
    }

    static HttpResponse<String> post(String token, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(node.httpUri().resolve("/mesh/shards"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return PeeringIT.send(b);
    }

    static JsonNode list(String token) {
        HttpResponse<String> r = PeeringIT.send(HttpRequest.newBuilder(node.httpUri().resolve("/mesh/shards"))
                .header("Authorization", "Bearer " + token).GET());
        assertEquals(200, r.statusCode(), r.body());
        return NostrClient.tree(r.body()).path("shards");
    }

    static HttpResponse<String> delete(String token, String id) {
        return PeeringIT.send(HttpRequest.newBuilder(node.httpUri().resolve("/mesh/shards/" + id))
                .header("Authorization", "Bearer " + token).DELETE());
    }

    static List<String> ids(JsonNode shards) {
        List<String> out = new ArrayList<>();
        shards.forEach(s -> out.add(s.path("id").asText()));
        return out;
    }

    @Test
    void theAdminApiDeclaresReplacesAndRemovesShardsThatSurviveARestart() throws Exception {
        String write = token("admin:write");
        String read = token("admin:read");
        Event profile = alice.sign(0, now() - 10, "{\"name\":\"alice\"}");
        try (NostrClient c = NostrClient.connect(node)) {
            c.publishAndWait(profile).assertAccepted();
        }
        assertEquals(401, post(null, "{\"id\":\"profiles\",\"filter\":{\"kinds\":[0]},\"mode\":\"asserted\"}").statusCode());
        assertEquals(403, post(read, "{\"id\":\"profiles\",\"filter\":{\"kinds\":[0]},\"mode\":\"asserted\"}").statusCode());
        HttpResponse<String> bad = post(write, "{\"id\":\"profiles\",\"filter\":{\"kinds\":[0]},\"mode\":\"complete\"}");
        assertEquals(400, bad.statusCode());
        assertEquals("invalid: mode must be \"asserted\" or \"replicated\"", NostrClient.tree(bad.body()).path("error").asText());
        HttpResponse<String> limited = post(write, "{\"id\":\"profiles\",\"filter\":{\"kinds\":[0],\"limit\":1},\"mode\":\"asserted\"}");
        assertEquals(400, limited.statusCode());
        assertEquals("invalid: filter: a shard filter has no limit", NostrClient.tree(limited.body()).path("error").asText());
        assertTrue(!ids(list(read)).contains("profiles"), "a refused declaration leaves nothing behind");

        HttpResponse<String> created = post(write, "{\"id\":\"profiles\",\"filter\":{\"kinds\":[0]},\"mode\":\"asserted\"}");
        assertEquals(201, created.statusCode(), created.body());
        assertEquals("profiles", NostrClient.tree(created.body()).path("id").asText());
        HttpResponse<String> replaced = post(write, "{\"id\":\"profiles\",\"filter\":{\"kinds\":[0]},\"mode\":\"replicated\"}");
        assertEquals(200, replaced.statusCode(), replaced.body());
        assertEquals("replicated", NostrClient.tree(replaced.body()).path("mode").asText());

        try (NostrClient c = NostrClient.connect(node)) {
            c.req("claims", NostrClient.tree("{\"kinds\":[30803],\"authors\":[\"" + pubkey + "\"],\"#d\":[\"profiles\"]}"));
            // the asserted claim may be stored before the REQ; the replicated one follows it a second later at most
            List<Claim> seen = until(c, "claims", "profiles", figures(List.of(profile)), "replicated");
            assertEquals("replicated", seen.get(seen.size() - 1).shard().mode().word());
        }
        assertTrue(ids(list(read)).containsAll(List.of("notes", "reactions", "profiles")), list(read).toString());

        // a restart keeps the admin's shard (PostgreSQL) and the configured ones
        node.stop();
        node.startAgain();
        assertTrue(ids(list(read)).containsAll(List.of("notes", "reactions", "profiles")), list(read).toString());

        assertEquals(204, delete(write, "profiles").statusCode());
        HttpResponse<String> again = delete(write, "profiles");
        assertEquals(404, again.statusCode());
        assertEquals("not found: no declared shard profiles", NostrClient.tree(again.body()).path("error").asText());
        assertEquals(400, delete(write, "bad%20id").statusCode());
        assertTrue(!ids(list(read)).contains("profiles"));
        assertTrue(!ids(PeeringIT.status(node).path("shards")).contains("profiles"));
        try (NostrClient c = NostrClient.connect(node)) {
            // the claims are withdrawn by a NIP-09 deletion of their address: once it is stored, REQ serves none
            String address = "30803:" + pubkey + ":profiles";
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            for (int i = 0; c.query("del-" + i, NostrClient.tree("{\"kinds\":[5],\"authors\":[\"" + pubkey
                    + "\"],\"#a\":[\"" + address + "\"]}")).isEmpty(); i++) {
                assertTrue(System.nanoTime() < deadline, "the node never withdrew its claims of profiles");
                Thread.sleep(100);
            }
            assertEquals(List.of(), c.query("gone", NostrClient.tree("{\"kinds\":[30803],\"authors\":[\"" + pubkey
                    + "\"],\"#d\":[\"profiles\"]}")), "the withdrawn claim is no longer served");
        }

    }

    @Test
    void theAdminApiDeclaresAtMostSixtyFourShards() throws Exception {
        String write = token("admin:write");
        String read = token("admin:read");
        int declared = list(read).size();
        List<String> added = new ArrayList<>();
        for (int i = declared; i < 64; i++) {
            String id = "bound-" + i;
            HttpResponse<String> r = post(write, "{\"id\":\"" + id + "\",\"filter\":{\"kinds\":[" + (40000 + i)
                    + "]},\"mode\":\"replicated\"}");
            assertEquals(201, r.statusCode(), r.body());
            added.add(id);
        }
        HttpResponse<String> over = post(write, "{\"id\":\"one-more\",\"filter\":{},\"mode\":\"replicated\"}");
        assertEquals(400, over.statusCode());
        assertEquals("invalid: this node declares 64 shards already, at most 64", NostrClient.tree(over.body()).path("error").asText());
        assertEquals(64, list(read).size(), "the refused one left nothing behind");
        HttpResponse<String> big = post(write, "{\"id\":\"big\",\"filter\":{\"#t\":[\"" + "x".repeat(20_000)
                + "\"]},\"mode\":\"replicated\"}");
        assertEquals(413, big.statusCode(), "a body over 16 KiB is refused before it is read");
        for (String id : added) {
            assertEquals(204, delete(write, id).statusCode());
        }
        assertEquals(declared, list(read).size());
    }

    @Test
    void aBadShardsSettingStopsTheStartWithItsReason() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> MeshnodeProcess.start("shards-bad",
                Map.of("FLEETMESH_SHARDS", "[{\"id\":\"a\",\"filter\":{},\"mode\":\"asserted\"},"
                        + "{\"id\":\"b\",\"filter\":{},\"mode\":\"complete\"}]")).close());
        assertTrue(e.getMessage().contains("fleetmesh.shards (FLEETMESH_SHARDS) shard 2: mode must be \"asserted\" or \"replicated\""),
                e.getMessage());
    }
}
