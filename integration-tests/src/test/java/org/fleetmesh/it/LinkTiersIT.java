package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.peering.grant.Grant;
import org.fleetmesh.peering.link.EventFrame;
import org.fleetmesh.peering.link.GrantMessages;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.vertx.core.Vertx;

/**
 * A fresh peer DID starts in tier 0, climbs after its clean windows (a revised grant arrives on the link), keeps its
 * tier across a restart of the node (persisted per DID), and falls a tier on a violation. Windows of 2 s.
 */
class LinkTiersIT {
    static MeshnodeProcess node;
    static Vertx vertx;

    @BeforeAll
    static void start() {
        node = MeshnodeProcess.start("link-tiers", Map.of(
                "FLEETMESH_DELIVERY_RECEIPTS", "false",
                "FLEETMESH_GRANTS_WINDOW", "2s",
                "FLEETMESH_GRANTS_CLIMB_AFTER", "2",
                "FLEETMESH_GRANTS_TIER_BYTES", "262144,524288",
                "FLEETMESH_GRANTS_TIER_EVENTS", "5,10"));
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() throws Exception {
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        if (node != null) {
            node.close();
        }
    }

    /** The next grant offered or revised on the peer's link. */
    static GrantMessages.Received nextGrant(MeshPeer peer) throws Exception {
        return peer.grants.read(peer.takeType(EventFrame.DIDCOMM));
    }

    static long now() {
        return System.currentTimeMillis() / 1000;
    }

    @Test
    void aFreshPeerClimbsKeepsItsTierAcrossARestartAndFallsOnAViolation() throws Exception {
        try (MeshPeer peer = new MeshPeer(vertx, "tiers")) {
            peer.link(node);
            GrantMessages.Received offer = nextGrant(peer);
            assertEquals(GrantMessages.OFFER, offer.type());
            assertEquals(0, offer.grant(now()).terms().tier(), "a fresh DID starts in tier 0");
            GrantMessages.Received revise = nextGrant(peer);
            assertEquals(GrantMessages.REVISE, revise.type());
            assertEquals(offer.id(), revise.thread());
            Grant climbed = revise.grant(now());
            assertEquals(1, climbed.terms().tier(), "two clean windows climb one tier");
            assertEquals(10, climbed.terms().eventsPerWindow());

            node.stop();
            node.startAgain();
            peer.link(node);
            peer.exchange();
            Grant again = nextGrant(peer).grant(now());
            assertEquals(1, again.terms().tier(), "the tier is kept per DID across the restart");

            // spend tier 1's ten events and one more: refused, and the peer falls to tier 0 with a revised grant
            peer.send(peer.frame(1, peer.notes(10, 0)));
            assertEquals(10, MeshPeer.json(peer.takeType(EventFrame.EVENTS_OK)).get(2).size());
            peer.send(peer.frame(2, peer.notes(1, 10)));
            assertTrue(peer.takeType(EventFrame.REFUSED).contains("rate-limited: over the grant of 524288 bytes and 10"
                    + " events per 2 s"));
            GrantMessages.Received fell = nextGrant(peer);
            assertEquals(GrantMessages.REVISE, fell.type());
            assertEquals(0, fell.grant(now()).terms().tier());

            try (Connection db = MeshPeer.database(node);
                    PreparedStatement ps = db.prepareStatement("select tier, violations, in_events, in_bytes from link_peer where peer = ?")) {
                ps.setString(1, peer.shortDid());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                int tier = -1;
                long violations = -1;
                long inEvents = -1;
                long inBytes = -1;
                while (System.nanoTime() < deadline && violations != 1) {
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            tier = rs.getInt(1);
                            violations = rs.getLong(2);
                            inEvents = rs.getLong(3);
                            inBytes = rs.getLong(4);
                        }
                    }
                    Thread.sleep(200);
                }
                assertEquals(1, violations, "the violation is persisted with the tier");
                assertTrue(tier <= 1, "tier " + tier);
                // the strain ledger: the ten admitted events and their bytes, decayed by at most a few seconds of
                // the one-hour half-life
                assertTrue(inEvents >= 9 && inEvents <= 10, "in_events " + inEvents);
                assertTrue(inBytes > 1000, "in_bytes " + inBytes);
            }
        }
    }
}
