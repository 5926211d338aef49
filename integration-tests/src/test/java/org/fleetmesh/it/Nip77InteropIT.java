package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** nostr-tools' NIP-77 client (NegentropySync) against a running meshnode. */
class Nip77InteropIT {
    static final String SCRIPT = "nip77-interop.mjs";
    static Path jsDir;
    static MeshnodeProcess node;

    @BeforeAll
    static void start() throws Exception {
        jsDir = NodeJs.withNostrTools(SCRIPT);
        node = MeshnodeProcess.start("nip77");
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void nostrToolsLearnsExactlyTheDifference() throws Exception {
        Keys k = Keys.fresh();
        long now = System.currentTimeMillis() / 1000;
        List<Event> relayOnly = new ArrayList<>(), both = new ArrayList<>(), localOnly = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            relayOnly.add(k.sign(30, now - 1000 - i, "relay " + i));
            both.add(k.sign(30, now - 2000 - i, "both " + i));
            localOnly.add(k.sign(30, now - 3000 - i, "local " + i));
        }
        try (NostrClient c = NostrClient.connect(node)) {
            for (Event e : relayOnly) {
                c.publishAndWait(e).assertAccepted();
            }
            for (Event e : both) {
                c.publishAndWait(e).assertAccepted();
            }
        }
        ObjectNode in = NostrClient.JSON.createObjectNode();
        in.putObject("filter").putArray("authors").add(k.pubkey());
        ArrayNode local = in.putArray("local");
        for (List<Event> set : List.of(both, localOnly)) {
            for (Event e : set) {
                local.addArray().add(e.createdAt()).add(e.id().hex());
            }
        }
        Path input = Files.createTempFile(MeshnodeProcess.targetDir(), "nip77-", ".json");
        Files.writeString(input, in.toString(), StandardCharsets.UTF_8);
        NodeJs.Run r = NodeJs.run(jsDir, 60, "node", SCRIPT, node.wsUri().toString(), input.toString());
        assertEquals(0, r.exit(), r.stdout() + r.stderr());
        String line = r.stdout().lines().filter(l -> l.startsWith("RESULT ")).findFirst().orElseThrow();
        JsonNode res = NostrClient.JSON.readTree(line.substring(7));
        assertEquals(ids(relayOnly), strings(res.path("need")), "nostr-tools needs what only the relay has");
        assertEquals(ids(localOnly), strings(res.path("have")), "nostr-tools has what the relay lacks");
        assertTrue(node.isAlive());
    }

    static TreeSet<String> ids(List<Event> events) {
        TreeSet<String> s = new TreeSet<>();
        events.forEach(e -> s.add(e.id().hex()));
        return s;
    }

    static TreeSet<String> strings(JsonNode array) {
        TreeSet<String> s = new TreeSet<>();
        array.forEach(n -> s.add(n.asText()));
        return s;
    }
}
