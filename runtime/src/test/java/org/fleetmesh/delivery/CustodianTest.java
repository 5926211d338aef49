package org.fleetmesh.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.peering.link.EventFrame;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The receiver's checks of a frame before anything is stored (docs/spec/delivery.md, "Frames"), and of the other
 * messages: each bad frame is refused {@code invalid: ...} and counts as a violation; nothing of it reaches ingest.
 */
class CustodianTest {
    final Mesh mesh = new Mesh();
    Mesh.Node a;
    Mesh.Node b;
    Mesh.Link link;
    Event e;

    @BeforeEach
    void linked() {
        a = mesh.node("a", Mesh.settings(List.of()));
        b = mesh.node("b", Mesh.settings(DeliveryTest.KIND_1));
        link = mesh.link(a, b);
        mesh.quiesce();
        e = mesh.event(1, 1);
    }

    @AfterEach
    void close() {
        mesh.close();
    }

    /** Sends {@code text} as A and gives B's answer to it. */
    String answer(String text) {
        int before = link.ba.sent.size();
        link.ab.send(text);
        Mesh.await(() -> link.ba.sent.size() > before, "B answers");
        return link.ba.sent.get(before);
    }

    String frame(String from, String to, long seq, long time) {
        return SignedFrame.sign(a.secrets.transport(), from, to, seq, time, List.of(e.id().hex()), List.of(0))
                .encode(List.of(e.json()));
    }

    @Test
    void anUnsignedFrameIsRefused() {
        String answer = answer(EventFrame.encode(1000, List.of(e.json())));
        assertEquals("[\"MESH-EVENTS-REFUSED\",{\"seq\":1000,\"retry_ms\":null},"
                + "\"invalid: a frame must be signed (docs/spec/delivery.md)\"]", answer);
        assertTrue(b.fromPeer.isEmpty());
    }

    @Test
    void aFrameFromAnotherDidIsRefused() {
        String answer = answer(frame("did:peer:4zQmSomeoneElse", b.shortDid(), 1000, mesh.millis.get()));
        assertTrue(answer.contains("invalid: the frame is from did:peer:4zQmSomeoneElse, not this link's peer"), answer);
        assertTrue(b.fromPeer.isEmpty());
    }

    @Test
    void aFrameToAnotherNodeIsRefused() {
        String answer = answer(frame(a.shortDid(), a.shortDid(), 1000, mesh.millis.get()));
        assertTrue(answer.contains("invalid: the frame is to " + a.shortDid() + ", not this node"), answer);
        assertTrue(b.fromPeer.isEmpty());
    }

    @Test
    void aFrameOutsideTheClockSkewIsRefused() {
        String answer = answer(frame(a.shortDid(), b.shortDid(), 1000, mesh.millis.get() - 300_001));
        assertTrue(answer.contains("invalid: the frame's time is 300001 ms from this node's clock (at most 300000)"),
                answer);
        assertTrue(b.fromPeer.isEmpty());
    }

    @Test
    void aFrameWithABadSignatureIsRefused() {
        String good = frame(a.shortDid(), b.shortDid(), 1000, mesh.millis.get());
        // the same signature over another seq
        String answer = answer(good.replaceFirst("\"seq\":1000", "\"seq\":1001"));
        assertTrue(answer.contains("invalid: the frame's signature does not verify"), answer);
        assertTrue(b.fromPeer.isEmpty());
    }

    @Test
    void hopsThatDoNotMatchTheCountAreRefused() {
        String good = frame(a.shortDid(), b.shortDid(), 1000, mesh.millis.get());
        String answer = answer(good.replace("\"hops\":[0]", "\"hops\":[0,0]"));
        assertTrue(answer.contains("invalid: the frame's \\\"hops\\\" has 2 entries for 1 events"), answer);
    }

    @Test
    void aReplayedSeqIsRefused() {
        String first = answer(frame(a.shortDid(), b.shortDid(), 1000, mesh.millis.get()));
        assertTrue(first.startsWith("[\"MESH-RECEIPT\",{\"seq\":1000}"), first);
        String again = answer(frame(a.shortDid(), b.shortDid(), 1000, mesh.millis.get()));
        assertTrue(again.contains("invalid: frame seq 1000 is not above 1000, the last this node took from you"), again);
        assertEquals(1, b.fromPeer.size(), "the replay did not reach ingest");
    }

    @Test
    void aBadFederateIsAnsweredAndThePreviousFiltersStay() {
        link.ba.send(FederateMessage.encode(DeliveryTest.KIND_1)); // B asks A for kind 1 (again)
        mesh.quiesce();
        int errors = link.ba.errors.size();
        link.ba.send("[\"MESH-FEDERATE\",[{\"kinds\":\"1\"}]]");
        Mesh.await(() -> link.ab.sent("MESH-ERR").size() == 1, "A answers MESH-ERR");
        assertEquals("[\"MESH-ERR\",\"invalid: MESH-FEDERATE filter 0: kinds must be an array of integers\"]",
                link.ab.sent("MESH-ERR").get(0));
        Map<String, Object> status = new LinkedHashMap<>();
        a.delivery.describe(b.shortDid(), status);
        assertEquals("[{kinds=[1]}]", ((Map<?, ?>) status.get("federate")).get("offered").toString());
        assertEquals(errors, link.ba.errors.size());
    }

    @Test
    void tooManyFiltersAreRefused() {
        StringBuilder sb = new StringBuilder("[\"MESH-FEDERATE\",[");
        for (int i = 0; i < 17; i++) {
            sb.append(i > 0 ? "," : "").append("{\"kinds\":[").append(i).append("]}");
        }
        link.ba.send(sb.append("]]").toString());
        Mesh.await(() -> link.ab.sent("MESH-ERR").size() == 1, "A answers MESH-ERR");
        assertEquals("[\"MESH-ERR\",\"invalid: MESH-FEDERATE holds at most 16 filters\"]", link.ab.sent("MESH-ERR").get(0));
    }

    @Test
    void aSecondCustodyQuestionWhileOneIsAnsweredIsRefused() {
        java.util.concurrent.CompletableFuture<Void> gate = new java.util.concurrent.CompletableFuture<>();
        b.ingestGate = gate;
        link.ab.send(frame(a.shortDid(), b.shortDid(), 1000, mesh.millis.get())); // B's answer waits for this frame
        Mesh.await(() -> b.fromPeer.size() == 1, "B took the frame");
        int before = link.ba.sent.size();
        link.ab.send(CustodyMessages.custody(0, null));
        link.ab.send(CustodyMessages.custody(0, null));
        Mesh.await(() -> link.ba.sent.size() > before, "B refuses the second question");
        assertEquals("[\"MESH-ERR\",\"rate-limited: a custody exchange is already under way; ask again after its "
                + "MESH-CUSTODY-HEAD\"]", link.ba.sent.get(before));
        gate.complete(null);
        Mesh.await(() -> link.ba.sent("MESH-CUSTODY-HEAD").size() == 2, "the first question is answered");
        mesh.quiesce();
        assertEquals(2, link.ba.sent("MESH-CUSTODY-HEAD").size(), "one answer per question taken (and the open's)");
    }

    @Test
    void federateMessagesInALoopCostOneLedgerWriteWhileOneWaits() throws Exception {
        java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(2);
        for (int i = 0; i < 2; i++) { // A's io threads (and with them its custody lane) are busy
            a.io.execute(() -> {
                started.countDown();
                try {
                    busy.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        started.await();
        for (int i = 0; i < 50; i++) {
            link.ba.send(FederateMessage.encode(List.of(new org.fleetmesh.nostr.Filter(null, null, java.util.Set.of(i),
                    Map.of(), null, null, null))));
        }
        Mesh.await(() -> link.ba.thread.getCompletedTaskCount() >= 50 + 3, "A read the 50 messages");
        assertEquals(1, a.delivery.laneWaiting(), "one save waits on the custody lane for all 50");
        assertTrue(a.io.getQueue().size() <= 2, "one lane pass and at most one scan wait on the io executor");
        busy.countDown();
        mesh.quiesce();
        assertEquals("[{\"kinds\":[49]}]", a.ledger.outbound(b.shortDid()).orElseThrow().filters());
    }

    /**
     * A frame on a new link before that link's custody exchange is refused, even though B's custodian has its head
     * loaded from the first link: the rule follows what the peer sent on this link, not how fast a head loaded.
     */
    @Test
    void aFrameOnANewLinkBeforeItsCustodyExchangeIsRefused() {
        Mesh.Link second = mesh.new Link(a, b);
        second.atB = b.delivery.open(second.ba, b.account(a));
        second.ab.target = second.atB;
        second.ab.release();
        second.ba.release();
        int before = second.ba.sent(EventFrame.REFUSED).size();
        second.ab.send(frame(a.shortDid(), b.shortDid(), 1000, mesh.millis.get()));
        Mesh.await(() -> second.ba.sent(EventFrame.REFUSED).size() > before, "B refuses the frame");
        assertTrue(second.ba.sent(EventFrame.REFUSED).get(before).contains("invalid: a frame before the custody exchange"),
                second.ba.sent.toString());
        assertTrue(b.fromPeer.isEmpty(), "nothing reached ingest");
    }
}
