package org.fleetmesh.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fleetmesh.delivery.log.CompactRange;
import org.fleetmesh.delivery.log.CustodyBreach;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Utf8;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.fleetmesh.spi.peers.Evidence;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A receiver that lies, one test per breach kind: the sender stores the evidence (S2, {@code custody: <kind>}), a
 * third party's recheck of it holds, forwarding halts (nothing more is sent), and an operator's resume restarts it.
 */
class CustodyBreachTest {
    final Mesh mesh = new Mesh();
    Mesh.Node a;
    Mesh.Node b;
    Mesh.Link link;

    @AfterEach
    void close() {
        mesh.close();
    }

    /** A forwards 8 kind-1 events to B in frames of 4; B's outgoing receipts go through {@code liar}. */
    Liar run(int at, Liar.Lie lie) {
        a = mesh.node("a", Mesh.settings(List.of()));
        b = mesh.node("b", Mesh.settings(DeliveryTest.KIND_1));
        Liar liar = new Liar(b, a, at, lie);
        for (int i = 0; i < 8; i++) {
            a.publish(mesh.event(1, i));
        }
        link = mesh.link(a, b, liar);
        return liar;
    }

    Evidence breach(String kind) {
        Mesh.await(() -> !a.links.evidence(b.shortDid(), 10).isEmpty(), "A stores evidence");
        Evidence e = a.links.evidence(b.shortDid(), 10).get(0);
        assertEquals("S2", e.severity());
        assertEquals("custody: " + kind, e.reason());
        JsonNode detail = read(e.detail());
        assertEquals("fleetmesh.custody-breach", detail.get("type").asText());
        assertEquals(kind, detail.get("breach").asText());
        assertEquals(b.shortDid(), detail.get("peer").asText());
        CustodyBreach.Verdict v = CustodyBreach.verify(e.detail());
        assertTrue(v.holds(), "a third party's recheck holds: " + v.why());
        assertEquals(kind, v.kind().word());
        Map<String, Object> status = new LinkedHashMap<>();
        a.delivery.describe(b.shortDid(), status);
        assertEquals("custody: " + kind, ((Map<?, ?>) status.get("custody")).get("halted"));
        // the evidence is stored as the breach is found; the halted cursor is saved with the custody lane's next
        // commit, which may come a moment later
        Mesh.await(() -> ("custody: " + kind).equals(a.ledger.outbound(b.shortDid()).orElseThrow().halted()),
                "the ledger keeps the halt");
        haltedThenResumed();
        return e;
    }

    /** While halted nothing goes (the quiet mesh is the barrier); after resume the later events arrive. */
    void haltedThenResumed() {
        mesh.quiesce();
        int frames = link.ab.sent("MESH-EVENTS").size();
        Event later = mesh.event(1, 99);
        a.publish(later);
        mesh.quiesce();
        assertEquals(frames, link.ab.sent("MESH-EVENTS").size(), "no frame goes to a halted peer");
        ((Liar) link.ba.tamper).honest = true;
        a.delivery.resume(b.shortDid());
        Mesh.await(() -> b.store.holds(later.id()), "B gets the later event after the resume");
        Mesh.await(() -> a.ledger.outbound(b.shortDid()).orElseThrow().halted().isEmpty(), "the halt is cleared");
    }

    static JsonNode read(String json) {
        try {
            return DeliveryJson.MAPPER.readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aForgedSignatureIsASignatureBreach() {
        run(1, (liar, m, r) -> {
            String json = m.receipt().json();
            String sig = m.receipt().sig().hex();
            String flipped = sig.substring(0, 127) + (sig.charAt(127) == '0' ? '1' : '0');
            return CustodyMessages.receipt(m.seq(), false, json.replace(sig, flipped), m.consistency(), m.appended());
        });
        breach("signature");
    }

    @Test
    void aReceiptForAnotherSeqIsAFormatBreach() {
        run(1, (liar, m, r) -> liar.sign(m.seq(), m.seq() + 7, liar.lastId, liar.range.appendAll(Liar.hashes(m.appended())),
                r.bytes(), r.rejected(), m.consistency(), m.appended()));
        breach("format");
    }

    @Test
    void aBrokenPrevLinkIsAPrevBreach() {
        run(2, (liar, m, r) -> liar.sign(m.seq(), EventId.ofHex("ab".repeat(32)),
                liar.range.appendAll(Liar.hashes(m.appended())), r.bytes(), r.rejected(), m.consistency(),
                m.appended()));
        breach("prev");
    }

    @Test
    void aConsistencyProofThatDoesNotVerifyIsAFork() {
        run(2, (liar, m, r) -> {
            List<byte[]> proof = new ArrayList<>(m.consistency());
            byte[] first = proof.get(0).clone();
            first[0] ^= 1;
            proof.set(0, first);
            return CustodyMessages.receipt(m.seq(), false, m.receipt().json(), proof, m.appended());
        });
        breach("fork");
    }

    @Test
    void anEventLeftOutOfTheTreeIsMissing() {
        run(1, (liar, m, r) -> {
            List<EventId> kept = new ArrayList<>(m.appended().subList(0, m.appended().size() - 1));
            EventId dropped = m.appended().get(m.appended().size() - 1);
            long bytes = r.bytes() - Utf8.length(a.store.events().stream().filter(e -> e.id().equals(dropped))
                    .findFirst().orElseThrow().json());
            CompactRange next = liar.range.appendAll(Liar.hashes(kept));
            return liar.sign(m.seq(), liar.lastId, next, bytes, r.rejected(), List.of(), kept);
        });
        breach("missing");
    }

    @Test
    void bytesThatDoNotAddUpAreACountsBreach() {
        run(1, (liar, m, r) -> liar.sign(m.seq(), liar.lastId, liar.range.appendAll(Liar.hashes(m.appended())),
                r.bytes() + 1, r.rejected(), m.consistency(), m.appended()));
        breach("counts");
    }

    @Test
    void aHeadBehindTheVerifiedChainAtRelinkIsARollback() {
        a = mesh.node("a", Mesh.settings(List.of()));
        b = mesh.node("b", Mesh.settings(DeliveryTest.KIND_1));
        for (int i = 0; i < 8; i++) {
            a.publish(mesh.event(1, i));
        }
        Mesh.Link first = mesh.link(a, b);
        Mesh.await(() -> DeliveryTest.leaves(a, CustodyLedger.Side.SENT, b) == 8, "A holds receipts for 8");
        mesh.quiesce();
        first.cut();
        Liar liar = new Liar(b, a, Integer.MAX_VALUE, null) {
            @Override
            public synchronized String apply(String text) {
                if (!honest && text.startsWith("[\"" + CustodyMessages.HEAD + "\"")) {
                    lied = true;
                    return CustodyMessages.head(0, null, null, false);
                }
                return text;
            }
        };
        link = relink(liar);
        breach("rollback");
    }

    @Test
    void aHeadAheadOfTheVerifiedChainWithoutItsReceiptsIsARollback() {
        a = mesh.node("a", Mesh.settings(List.of()));
        b = mesh.node("b", Mesh.settings(DeliveryTest.KIND_1));
        for (int i = 0; i < 8; i++) {
            a.publish(mesh.event(1, i));
        }
        Mesh.Link first = mesh.link(a, b);
        Mesh.await(() -> DeliveryTest.leaves(a, CustodyLedger.Side.SENT, b) == 8, "A holds receipts for 8");
        mesh.quiesce();
        first.cut();
        Liar liar = new Liar(b, a, Integer.MAX_VALUE, null) {
            @Override
            public synchronized String apply(String text) {
                if (!honest && text.startsWith("[\"" + CustodyMessages.HEAD + "\"")) {
                    lied = true;
                    return CustodyMessages.head(100, "cd".repeat(32), 40L, false);
                }
                return text;
            }
        };
        link = relink(liar);
        breach("rollback");
    }

    private Mesh.Link relink(Liar liar) {
        Mesh.Link l = mesh.new Link(a, b);
        l.ba.tamper = liar;
        l.atA = a.delivery.open(l.ab, a.account(b));
        l.atB = b.delivery.open(l.ba, b.account(a));
        l.ba.target = l.atA;
        l.ab.target = l.atB;
        l.ab.release();
        l.ba.release();
        return l;
    }
}
