package org.fleetmesh.peering.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.Refusal;
import org.fleetmesh.peering.grant.Grant;
import org.fleetmesh.peering.link.EventLinkTest.RecordingIntake;
import org.fleetmesh.peering.link.EventLinkTest.Wire;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/** What standing does to a peer through its links (docs/spec/standing-node.md §5): demote, suspend, quarantine. */
class StandingActionsTest {
    static final String B = PeerIdentity.shortForm(EventLinkTest.B_DID);
    final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    final AtomicLong millis = new AtomicLong(EventLinkTest.T0_MILLIS);
    final MemoryLinkLedger ledger = new MemoryLinkLedger();
    final RecordingIntake intake = new RecordingIntake();
    EventLinks node;

    @BeforeEach
    void node() {
        node = new EventLinks(EventLinkTest.A_DID, EventLinkTest.A, EventLinkTest.POLICY, intake, ledger, Runnable::run,
                nanos::get, millis::get, 100);
    }

    void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
        millis.addAndGet(d.toMillis());
    }

    /** B, linked, in tier 1 (two clean windows). */
    EventLink linkedInTier1(Wire w) {
        EventLink s = node.open(w);
        for (int i = 0; i < 2; i++) {
            advance(Duration.ofSeconds(10));
            node.windowEnded();
        }
        assertEquals(1, node.known(B).orElseThrow().tier().level());
        return s;
    }

    static String grantMessageType(String text) throws Exception {
        return EventLinkTest.atB().read(text).type();
    }

    @Test
    void aDemotedPeerDropsOneTierAndIsOfferedItsGrant() throws Exception {
        Wire w = new Wire(EventLinkTest.identity(EventLinkTest.B));
        linkedInTier1(w);
        int offers = w.ofType("MESH-DIDCOMM").size();
        assertTrue(node.demote(B, "view_transit 0.9"));
        assertEquals(0, node.known(B).orElseThrow().tier().level());
        List<String> didcomm = w.ofType("MESH-DIDCOMM");
        assertEquals(offers + 1, didcomm.size(), "the grant of tier 0, as a revision");
        Grant g = EventLinkTest.atB().read(didcomm.get(didcomm.size() - 1)).grant(millis.get() / 1000);
        assertEquals(0, g.terms().tier());
        assertFalse(node.demote(B, "again"), "tier 0 is the floor");
    }

    @Test
    void aSuspendedGrantRefusesEventFramesUntilItIsReinstated() throws Exception {
        Wire w = new Wire(EventLinkTest.identity(EventLinkTest.B));
        EventLink s = node.open(w);
        assertTrue(node.suspend(B, "view_transit 0.5 below suspend-below 0.6"));
        assertFalse(node.suspend(B, "again"), "once");
        assertEquals(GrantMessagesTypes.SUSPEND, grantMessageType(w.last()), "the peer is told");
        s.receive(EventFrame.encode(1, EventLinkTest.events(1, 0)));
        JsonNode refused = EventLinkTest.json(w.last());
        assertEquals("MESH-EVENTS-REFUSED", refused.get(0).asText());
        assertTrue(refused.get(2).asText().startsWith("blocked: the grant of this node is suspended (view_transit 0.5"),
                refused.toString());
        assertEquals(0, intake.peerEvents(), "nothing of a suspended peer's frame reaches the relay");
        java.util.Map<String, Object> status = new java.util.HashMap<>();
        node.describe(B, status);
        assertTrue(String.valueOf(status.get("suspended")).contains("suspend-below"), status.toString());
        assertNull(w.ended, "the link stays");

        assertTrue(node.reinstate(B));
        assertEquals(GrantMessagesTypes.OFFER_OR_REVISE, kind(grantMessageType(w.last())), "a grant again");
        s.receive(EventFrame.encode(2, EventLinkTest.events(1, 10)));
        assertEquals("MESH-EVENTS-OK", EventLinkTest.json(w.last()).get(0).asText());
        assertEquals(1, intake.peerEvents());
        assertFalse(node.reinstate(B), "nothing is suspended");
    }

    @Test
    void aSuspendedPeerThatRelinksIsToldAgain() throws Exception {
        Wire w = new Wire(EventLinkTest.identity(EventLinkTest.B));
        EventLink s = node.open(w);
        node.suspend(B, "view_transit 0.5");
        s.closed();
        Wire again = new Wire(EventLinkTest.identity(EventLinkTest.B));
        node.open(again);
        assertEquals(GrantMessagesTypes.SUSPEND, grantMessageType(again.last()));
    }

    @Test
    void aQuarantineEndsTheLinkRefusesARelinkAndAfterItThePeerStartsAgain() throws Exception {
        Wire w = new Wire(EventLinkTest.identity(EventLinkTest.B));
        node.open(w);
        node.suspend(B, "view_transit 0.5");
        long until = node.quarantine(B, "view_transit 0.1 below quarantine-below 0.2");
        assertEquals(millis.get() + 30_000, until, "fleetmesh.grants.quarantine");
        assertNotNull(w.ended);
        assertEquals(Refusal.Kind.QUARANTINED, w.ended.kind());
        assertEquals(GrantMessagesTypes.SUSPEND, grantMessageType(w.sent.get(w.sent.size() - 1)),
                "the grant is suspended as the link ends");
        assertEquals(until, node.quarantine(B, "again"), "already quarantined");
        assertTrue(ledger.load(B).orElseThrow().quarantinedUntil() == until, "persisted");
        assertTrue(ledger.evidence(B, 10).isEmpty(), "the findings are the evidence: no budget record");

        Wire during = new Wire(EventLinkTest.identity(EventLinkTest.B));
        node.open(during);
        assertEquals(Refusal.Kind.QUARANTINED, during.ended.kind());

        advance(Duration.ofSeconds(31));
        Wire after = new Wire(EventLinkTest.identity(EventLinkTest.B));
        EventLink s = node.open(after);
        assertNull(after.ended);
        s.receive(EventFrame.encode(1, EventLinkTest.events(1, 20)));
        assertEquals("MESH-EVENTS-OK", EventLinkTest.json(after.last()).get(0).asText(),
                "the quarantine took the place of the suspension");
    }

    static String kind(String type) {
        boolean offer = type.equals(GrantMessages.OFFER) || type.equals(GrantMessages.REVISE);
        return offer ? GrantMessagesTypes.OFFER_OR_REVISE : type;
    }

    static final class GrantMessagesTypes {
        static final String SUSPEND = GrantMessages.SUSPEND;
        static final String OFFER_OR_REVISE = "offer or revise";
    }
}
