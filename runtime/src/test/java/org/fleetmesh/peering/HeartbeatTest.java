package org.fleetmesh.peering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** MESH-PING / MESH-PONG on an authenticated link: answers, RTT, the latency bound. */
class HeartbeatTest {
    private final Nodes.TestClock clock = new Nodes.TestClock(Nodes.T0);
    private final List<String> sentByB = new ArrayList<>();
    private final List<String> closes = new ArrayList<>();
    private final List<String> inner = new ArrayList<>();
    private long nanos;

    /** b's side of an authenticated link to a; what b sends is recorded. */
    private MeshLink link() {
        MeshLinkTest.RecordingSocket toB = new MeshLinkTest.RecordingSocket();
        MeshLink.Socket toA = new MeshLink.Socket() {
            MeshLink peer;

            @Override
            public void send(String text) {
                sentByB.add(text);
            }

            @Override
            public void close(int code, String reason) {
                closes.add(code + " " + reason);
            }
        };
        MeshLink a = new MeshLink(Nodes.initiator(Nodes.A, clock, new SeenProofs()), toB);
        MeshLink b = new MeshLink(Nodes.responder(Nodes.B, clock, new SeenProofs()), new MeshLink.Socket() {
            @Override
            public void send(String text) {
                toA.send(text);
                a.receive(text);
            }

            @Override
            public void close(int code, String reason) {
                toA.close(code, reason);
            }
        });
        toB.peer = b;
        a.open();
        b.open();
        assertTrue(b.peer().isPresent());
        sentByB.clear();
        return b;
    }

    private Heartbeat beat(MeshLink link) {
        return new Heartbeat(link, inner::add, Duration.ofSeconds(5), Duration.ofSeconds(15), () -> nanos);
    }

    @Test
    void aPingIsAnsweredWithAPongOfTheSameNumber() {
        Heartbeat h = beat(link());
        h.receive("[\"MESH-PING\",{\"n\":42}]");
        assertEquals(List.of("[\"MESH-PONG\",{\"n\":42}]"), sentByB);
        assertTrue(inner.isEmpty(), "heartbeats do not reach the inner session");
    }

    @Test
    void theRttIsThatOfTheLatestAnsweredPing() {
        Heartbeat h = beat(link());
        h.tick(nanos);
        assertEquals(List.of("[\"MESH-PING\",{\"n\":0}]"), sentByB);
        nanos += 3_500_000;
        h.receive("[\"MESH-PONG\",{\"n\":0}]");
        assertEquals(Optional.of(3.5), h.rttMillis());
        h.receive("[\"MESH-PONG\",{\"n\":7}]"); // never sent: ignored
        assertEquals(Optional.of(3.5), h.rttMillis());
    }

    @Test
    void pingsGoOutOncePerInterval() {
        Heartbeat h = beat(link());
        h.tick(nanos);
        h.tick(nanos + Duration.ofSeconds(1).toNanos());
        assertEquals(1, sentByB.size());
        h.tick(nanos + Duration.ofSeconds(5).toNanos());
        assertEquals(List.of("[\"MESH-PING\",{\"n\":0}]", "[\"MESH-PING\",{\"n\":1}]"), sentByB);
    }

    @Test
    void aLinkWithoutAPongForTheTimeoutIsEndedLate() {
        Heartbeat h = beat(link());
        h.tick(nanos);
        h.tick(nanos + Duration.ofSeconds(15).toNanos()); // at the bound: still fine
        assertTrue(closes.isEmpty());
        h.tick(nanos + Duration.ofSeconds(15).toNanos() + 1);
        assertTrue(sentByB.get(sentByB.size() - 1).startsWith("[\"MESH-ERR\",\"late: no MESH-PONG for 15000 ms"),
                sentByB.toString());
        assertEquals(List.of("1000 late: no MESH-PONG for 15000 ms (bound 15000 ms)"), closes);
    }

    @Test
    void aPongKeepsTheLinkPastTheTimeout() {
        Heartbeat h = beat(link());
        h.tick(nanos);
        nanos += Duration.ofSeconds(10).toNanos();
        h.receive("[\"MESH-PONG\",{\"n\":0}]");
        h.tick(nanos + Duration.ofSeconds(14).toNanos());
        assertTrue(closes.isEmpty(), closes.toString());
    }

    @Test
    void aMalformedPingIsAnsweredMalformedAndTheLinkStays() {
        Heartbeat h = beat(link());
        h.receive("[\"MESH-PING\",{\"n\":-1}]");
        h.receive("[\"MESH-PING\",{\"n\":\"1\"}]");
        h.receive("[\"MESH-PING\"]");
        assertEquals(3, sentByB.size());
        assertTrue(sentByB.stream().allMatch(s -> s.startsWith("[\"MESH-ERR\",\"malformed: MESH-PING is")), sentByB.toString());
        assertTrue(closes.isEmpty());
    }

    @Test
    void otherMessagesGoToTheInnerSession() {
        Heartbeat h = beat(link());
        h.receive("[\"MESH-EVENTS\",{}]");
        h.receive("[\"MESH-PINGX\",{\"n\":1}]");
        assertEquals(List.of("[\"MESH-EVENTS\",{}]", "[\"MESH-PINGX\",{\"n\":1}]"), inner);
    }
}
