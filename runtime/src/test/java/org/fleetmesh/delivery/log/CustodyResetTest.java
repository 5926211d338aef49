package org.fleetmesh.delivery.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;

import org.fleetmesh.delivery.CustodyMessages;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

class CustodyResetTest {
    static final byte[] SENDER = fill(0x01);
    static final byte[] RECEIVER = fill(0x04);
    static final PubKey S = new PubKey(Schnorr.publicKey(SENDER));
    static final PubKey R = new PubKey(Schnorr.publicKey(RECEIVER));
    static final long T = 1_767_225_600L;

    static byte[] fill(int b) {
        byte[] x = new byte[32];
        Arrays.fill(x, (byte) b);
        return x;
    }

    /** The receiver's head receipt the sender holds: a tree of 3 leaves. */
    static Receipt head() {
        CompactRange r = CompactRange.empty().appendAll(List.of(Merkle.leafHash(EventId.ofHex("11".repeat(32))),
                Merkle.leafHash(EventId.ofHex("22".repeat(32))), Merkle.leafHash(EventId.ofHex("33".repeat(32)))));
        return Receipt.sign(RECEIVER, T, S, null, 1, r.size(), r.root(), 900, List.of());
    }

    @Test
    void aResetIsTheEmptyTreesCheckpointWithPAndResetTags() {
        Receipt h = head();
        Event reset = CustodyReset.sign(RECEIVER, T + 60, S, h.id());
        assertEquals(Receipt.KIND, reset.kind());
        assertEquals(R, reset.pubkey());
        assertEquals("fleetmesh.custody/" + R.hex() + "/" + S.hex() + "\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n",
                reset.content());
        assertEquals(List.of(List.of("p", S.hex()), List.of("reset", h.id().hex())), reset.tags());
        assertNull(Events.verify(reset));
        assertNull(CustodyReset.check(reset, R, S, h.id()));
    }

    @Test
    void aResetIsNotAReceipt() {
        Event reset = CustodyReset.sign(RECEIVER, T, S, head().id());
        try {
            Receipt.parse(reset);
            throw new AssertionError("a reset must not read as a receipt of the chain");
        } catch (ReceiptException e) {
            assertEquals(CustodyBreach.Kind.FORMAT, e.breach());
        }
    }

    /** Re-signs {@code e} with {@code secret} after changing its fields (so only the checked rule fails). */
    static Event resign(Event e, byte[] secret, int kind, List<List<String>> tags, String content) {
        return Events.sign(secret, e.createdAt(), kind, tags, content);
    }

    @Test
    void everyRuleOfTheResetIsChecked() {
        Receipt h = head();
        Event good = CustodyReset.sign(RECEIVER, T, S, h.id());
        List<List<String>> tags = good.tags();
        String emptyOther = new Checkpoint(Checkpoint.origin(R, R), 0, Merkle.emptyRoot()).body();
        String sized = new Checkpoint(Checkpoint.origin(R, S), 3, h.root()).body();
        List<Object[]> cases = new ArrayList<>();
        cases.add(new Object[] { resign(good, RECEIVER, 1, tags, good.content()), "kind" });
        cases.add(new Object[] { resign(good, fill(0x09), Receipt.KIND, tags, good.content()), "not the receiver" });
        cases.add(new Object[] { resign(good, RECEIVER, Receipt.KIND, tags, emptyOther), "empty tree's checkpoint" });
        cases.add(new Object[] { resign(good, RECEIVER, Receipt.KIND, tags, sized), "empty tree's checkpoint" });
        cases.add(new Object[] { resign(good, RECEIVER, Receipt.KIND, tags, "not a checkpoint"), "not a checkpoint" });
        cases.add(new Object[] { resign(good, RECEIVER, Receipt.KIND,
                List.of(List.of("p", S.hex()), List.of("reset", "ab".repeat(32))), good.content()), "tags" });
        cases.add(new Object[] { resign(good, RECEIVER, Receipt.KIND,
                List.of(List.of("p", R.hex()), List.of("reset", h.id().hex())), good.content()), "tags" });
        cases.add(new Object[] { resign(good, RECEIVER, Receipt.KIND,
                List.of(List.of("p", S.hex()), List.of("reset", h.id().hex()), List.of("seq", "1")), good.content()),
                "tags" });
        cases.add(new Object[] { new Event(good.id(), good.pubkey(), good.createdAt() + 1, good.kind(), good.tags(),
                good.content(), good.sig()), "does not verify" });
        for (Object[] c : cases) {
            String why = CustodyReset.check((Event) c[0], R, S, h.id());
            assertTrue(why != null && why.contains((String) c[1]), c[1] + ": " + why);
        }
    }

    @Test
    void evidenceRechecksAndEveryTamperingFails() throws Exception {
        Receipt h = head();
        Event reset = CustodyReset.sign(RECEIVER, T + 60, S, h.id());
        String json = CustodyReset.evidence("did:peer:4zQmB", R, S, h, reset, "did:peer:4zQmB#reset-1", 1_767_225_700_000L);
        CustodyReset.Verdict v = CustodyReset.verify(json);
        assertTrue(v.holds(), v.why());
        ObjectNode o = (ObjectNode) LogJson.MAPPER.readTree(json);
        assertEquals("fleetmesh.custody-reset", o.get("type").asText());
        assertEquals(3, o.get("size").asLong());

        List<UnaryOperator<ObjectNode>> tamperings = List.of(
                x -> x.put("type", "fleetmesh.custody-breach"),
                x -> x.put("size", 2),
                x -> x.put("receiver", S.hex()),
                x -> x.put("sender", R.hex()),
                x -> x.set("reset", LogJson.read(CustodyReset.sign(RECEIVER, T, S, EventId.ofHex("cd".repeat(32))).json(), "e")),
                x -> x.set("reset", LogJson.read(CustodyReset.sign(fill(0x09), T, S, h.id()).json(), "e")),
                x -> x.set("previous", LogJson.read(Receipt.sign(fill(0x09), T, S, null, 1, 3, h.root(), 900, List.of())
                        .event().json(), "e")),
                x -> {
                    ((ObjectNode) x.get("previous")).put("content", "x");
                    return x;
                });
        for (int i = 0; i < tamperings.size(); i++) {
            ObjectNode t = tamperings.get(i).apply(o.deepCopy());
            assertFalse(CustodyReset.verify(LogJson.MAPPER.writeValueAsString(t)).holds(), "tampering " + i);
        }
    }

    static final String BEGIN = "<!-- reset-vector:begin (generated by CustodyResetTest) -->";
    static final String END = "<!-- reset-vector:end -->";
    /** Receipt 2 of the vectors of custody.md §7 (tree size 5), the sender's head when B is restored. */
    static final EventId VECTOR_HEAD = EventId.ofHex("c4103323e6b5fc20617e19789fcc4d10a3dc798be4124916c57e9a47151d7e42");

    static String vectorBlock() {
        Event reset = CustodyReset.sign(RECEIVER, T + 100, S, VECTOR_HEAD, new byte[32]);
        assertNull(CustodyReset.check(reset, R, S, VECTOR_HEAD));
        return BEGIN + "\n\n" + "The keys of §7 (BIP-340 aux = 32 zero bytes). B, restored, resets the chain whose head A holds, receipt 2 ("
                + "`" + VECTOR_HEAD.hex() + "`, tree size 5), at created_at " + (T + 100) + ":\n\n```json\n" + reset.json()
                + "\n```\n\nIts content, line by line:\n\n```\n" + reset.content() + "```\n\n"
                + "The MESH-CUSTODY-HEAD carrying it (delivery.md §2):\n\n```json\n"
                + CustodyMessages.head(0, null, null, false, reset.json()) + "\n```\n\n" + END;
    }

    @Test
    void theSpecPrintsTheResetVector() throws IOException {
        org.fleetmesh.SpecPage.assertPrints("custody.md", BEGIN, END, vectorBlock(), "fleetmesh.custody.write-vectors");
    }
}
