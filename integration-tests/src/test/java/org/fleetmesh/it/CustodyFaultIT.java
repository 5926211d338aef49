package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Store-and-forward under faults (docs/spec/delivery.md): a kill -9 of the sender or of the receiver in mid-stream
 * loses nothing and stores nothing twice, and both custody chains verify afterwards; a partition (a TCP proxy in
 * this process, cut and restored) leaves both sides accepting writes, and when it heals the backlog arrives under
 * receipts and the queue drains to 0.
 */
class CustodyFaultIT {
    static final String KIND1 = "[{\"kinds\":[1]}]";
    static final int N = 400;

    @Test
    @Timeout(value = 480, unit = TimeUnit.SECONDS) // restarts and CLI runs on a shared machine
    void aKill9OfTheSenderMidStreamLosesNothingAndStoresNothingTwice() throws Exception {
        killMidStream(true);
    }

    @Test
    @Timeout(value = 480, unit = TimeUnit.SECONDS) // restarts and CLI runs on a shared machine
    void aKill9OfTheReceiverMidStreamLosesNothingAndStoresNothingTwice() throws Exception {
        killMidStream(false);
    }

    private void killMidStream(boolean killSender) throws Exception {
        try (MeshnodeProcess a = MeshnodeProcess.start("fault-a", Delivered.env("[]"))) {
            String aDid = PeeringIT.did(a);
            try (MeshnodeProcess b = MeshnodeProcess.start("fault-b", Delivered.env(KIND1, "FLEETMESH_PEERS",
                    Delivered.peerSetting(aDid, a.port())))) {
                String bDid = PeeringIT.did(b);
                PeeringIT.awaitLinked(a, aDid, b, bDid);
                Keys author = Keys.fresh();
                // the first half, acknowledged at a, then the second half published while the kill lands
                Set<String> first = FederationIT.publish(a, author, N / 2);
                Delivered.awaitPeer(b, aDid, p -> Delivered.size(p, "received") > 0, "a first receipt");
                Set<String> acknowledged = ConcurrentHashMap.newKeySet();
                acknowledged.addAll(first);
                Thread publisher = new Thread(() -> {
                    try (NostrClient c = NostrClient.connect(a)) {
                        for (int i = 0; i < N / 2; i++) {
                            Event e = author.note(Keys.now(), "second half " + i);
                            if (c.publishAndWait(e).accepted()) {
                                acknowledged.add(e.id().hex());
                            }
                        }
                    } catch (RuntimeException | AssertionError e) {
                        // the sender died under it: what it acknowledged is what counts
                    }
                }, "publisher");
                publisher.start();
                MeshnodeProcess victim = killSender ? a : b;
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (acknowledged.size() < N / 2 + N / 8 && System.nanoTime() < deadline) {
                    MeshnodeProcess.sleep(5);
                }
                victim.kill();
                // with the receiver dead the sender takes the rest; with the sender dead the publisher gives up
                publisher.join(60_000);
                if (killSender) {
                    a.startAgainOnSamePort();
                } else {
                    b.startAgain();
                }
                PeeringIT.awaitLinked(a, aDid, b, bDid);
                // a kept every event it acknowledged; b ends with exactly what a holds, each once
                Set<String> atA = Delivered.ids(a, author.pubkey());
                assertTrue(atA.containsAll(acknowledged), "a lost acknowledged events");
                Delivered.awaitIds(b, author.pubkey(), atA);
                JsonNode sent = Delivered.awaitPeer(a, bDid, p -> Delivered.drained(p, atA.size()), "a drained queue");
                JsonNode received = Delivered.awaitPeer(b, aDid, p -> Delivered.size(p, "received") == atA.size(),
                        "b's tree of " + atA.size());
                assertEquals(sent.path("custody").path("sent").path("head").asText(),
                        received.path("custody").path("received").path("head").asText(), "one head on both sides");
                List<String> sentChain = Delivered.verifiedChain(a, bDid, "sent");
                List<String> receivedChain = Delivered.verifiedChain(b, aDid, "received");
                assertEquals(atA.size(), Delivered.lastEvents(sentChain), "each event is one leaf");
                assertEquals(receivedChain.size(), sentChain.size(), "both ledgers hold the whole chain");
                System.out.printf("MEASURE kill -9 of the %s mid-stream: %d events acknowledged, %d held by both, %d receipts%n",
                        killSender ? "sender" : "receiver", acknowledged.size(), atA.size(), sentChain.size());
            }
        }
    }

    @Test
    @Timeout(value = 480, unit = TimeUnit.SECONDS) // restarts and CLI runs on a shared machine
    void aPartitionHealsTheBacklogArrivesUnderReceiptsAndTheQueueDrains() throws Exception {
        try (TcpProxy proxy = new TcpProxy()) {
            // a announces the proxy as its address, so b keeps dialling it there
            try (MeshnodeProcess a = MeshnodeProcess.start("part-a", Delivered.env("[]", "FLEETMESH_RELAY_URL",
                    "ws://127.0.0.1:" + proxy.port() + "/"))) {
                proxy.target(a.port());
                String aDid = PeeringIT.did(a);
                try (MeshnodeProcess b = MeshnodeProcess.start("part-b", Delivered.env(KIND1, "FLEETMESH_PEERS",
                        Delivered.peerSetting(aDid, proxy.port())))) {
                    String bDid = PeeringIT.did(b);
                    PeeringIT.awaitLinked(a, aDid, b, bDid);
                    Keys author = Keys.fresh();
                    Set<String> all = new HashSet<>(FederationIT.publish(a, author, 50));
                    Delivered.awaitIds(b, author.pubkey(), all);
                    Delivered.awaitPeer(a, bDid, p -> Delivered.drained(p, 50), "the first 50 receipted");

                    proxy.cut();
                    PeeringIT.awaitNotUp(b, aDid);
                    // both sides keep taking writes while cut off
                    all.addAll(FederationIT.publish(a, author, 150));
                    Keys other = Keys.fresh();
                    Set<String> atB = FederationIT.publish(b, other, 5);
                    Delivered.peer(a, bDid).ifPresent(p -> assertTrue(p.path("queue").asLong() >= 150,
                            "the backlog shows in the queue: " + p));
                    assertEquals(50, Delivered.ids(b, author.pubkey()).size(), "nothing crossed the cut");

                    proxy.restore();
                    PeeringIT.awaitLinked(a, aDid, b, bDid);
                    Delivered.awaitIds(b, author.pubkey(), all);
                    JsonNode drained = Delivered.awaitPeer(a, bDid, p -> Delivered.drained(p, 200), "the backlog receipted");
                    assertTrue(drained.path("custody").path("halted").isNull(), drained.toString());
                    assertEquals(atB, Delivered.ids(b, other.pubkey()), "b's own writes stayed");
                    List<String> chain = Delivered.verifiedChain(a, bDid, "sent");
                    assertEquals(200, Delivered.lastEvents(chain));
                    Delivered.verifiedChain(b, aDid, "received");
                    System.out.printf("MEASURE partition healed: 150 events of backlog, %d receipts in the chain, %d proxied connections%n",
                            chain.size(), proxy.accepted());
                }
            }
        }
    }
}
