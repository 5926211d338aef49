package org.fleetmesh.meshnode;

import static org.fleetmesh.meshnode.CustodyChains.id;
import static org.fleetmesh.meshnode.CustodyChains.pubkey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

import org.fleetmesh.delivery.MemoryCustodyLedger;
import org.fleetmesh.delivery.log.CustodyProof;
import org.fleetmesh.delivery.log.Merkle;
import org.fleetmesh.delivery.log.Receipt;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.spi.delivery.CustodyLedger.Side;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

class ReceiptsCommandTest {
    static final String A = "did:peer:4zQmPeerA";
    static final String B = "did:peer:4zQmPeerB";
    static final ObjectMapper JSON = new ObjectMapper();

    final MemoryCustodyLedger ledger = new MemoryCustodyLedger();
    final byte[] self = Schnorr.newSecretKey();
    final byte[] peerA = Schnorr.newSecretKey();
    final byte[] peerB = Schnorr.newSecretKey();
    /** What A sent this node, receipted by this node. */
    CustodyChains fromA;
    /** What this node sent B, receipted by B. */
    CustodyChains toB;
    final List<Receipt> signedForA = new ArrayList<>();

    @TempDir
    Path dir;

    final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    @BeforeEach
    void chains() {
        fromA = new CustodyChains(ledger, Side.RECEIVED, A, self, pubkey(peerA));
        toB = new CustodyChains(ledger, Side.SENT, B, peerB, pubkey(self));
        signedForA.add(fromA.frame(id("a1"), id("shared")));
        signedForA.add(fromA.frame()); // a frame with nothing appended still gets a receipt
        signedForA.add(fromA.frame(id("a2"), id("a3"), id("a4")));
        signedForA.add(fromA.frame(id("a5")));
        toB.frame(id("b1"));
        toB.frame(id("shared"), id("b2"));
    }

    String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    List<String> lines() {
        return out().lines().toList();
    }

    @Test
    void exportWritesOneLinePerReceiptInChainOrderAndVerifyAcceptsIt() throws Exception {
        assertEquals(0, ReceiptsCommand.export(ledger, A, Side.RECEIVED, out, err));
        List<String> lines = lines();
        assertEquals(4, lines.size());
        for (int i = 0; i < lines.size(); i++) {
            JsonNode line = JSON.readTree(lines.get(i));
            assertEquals(List.of("receipt", "consistency"), names(line));
            assertEquals(signedForA.get(i).id().hex(), line.get("receipt").get("id").asText());
            assertEquals(11803, line.get("receipt").get("kind").asInt());
        }
        // from size 0: no proof; from 2 to 2: none; from 2 to 5 and from 5 to 6: RFC 9162 proofs
        assertEquals(0, JSON.readTree(lines.get(0)).get("consistency").size());
        assertEquals(0, JSON.readTree(lines.get(1)).get("consistency").size());
        assertTrue(JSON.readTree(lines.get(2)).get("consistency").size() > 0);
        assertTrue(err().contains("exported 4 receipts"));
        Path file = dir.resolve("a.jsonl");
        Files.writeString(file, out());
        resetStreams();
        assertEquals(0, ReceiptsCommand.verify(file, out, err), err());
        assertTrue(out().contains("4 receipts verified"), out());
    }

    @Test
    void theSentSideIsThePeersChainSignedByThePeer() throws Exception {
        assertEquals(0, ReceiptsCommand.export(ledger, B, Side.SENT, out, err));
        List<String> lines = lines();
        assertEquals(2, lines.size());
        assertEquals(pubkey(peerB).hex(), JSON.readTree(lines.get(0)).get("receipt").get("pubkey").asText());
        Path file = dir.resolve("b.jsonl");
        Files.writeString(file, out());
        assertEquals(0, ReceiptsCommand.verify(file, out, err));
    }

    @Test
    void exportOfAChainTheNodeDoesNotHaveExitsOneAndNamesTheChainsItHas() {
        assertEquals(1, ReceiptsCommand.export(ledger, B, Side.RECEIVED, out, err));
        assertEquals("", out());
        assertTrue(err().contains("no received receipts for " + B), err());
        assertTrue(err().contains(A), err());
    }

    @Test
    void verifyNamesTheFirstBadLine() throws Exception {
        ReceiptsCommand.export(ledger, A, Side.RECEIVED, out, err);
        List<String> lines = new ArrayList<>(lines());

        // a consistency proof with a flipped bit
        List<String> flipped = new ArrayList<>(lines);
        JsonNode third = JSON.readTree(flipped.get(2));
        String h = third.get("consistency").get(0).asText();
        String bad = (h.charAt(0) == '0' ? "1" : "0") + h.substring(1);
        flipped.set(2, flipped.get(2).replace(h, bad));
        assertBadAt(flipped, 3, "fork");

        // a receipt left out: the next one's prev does not name the one before
        List<String> gap = new ArrayList<>(lines);
        gap.remove(1);
        assertBadAt(gap, 2, "prev");

        // a receipt whose content was changed after signing
        List<String> forged = new ArrayList<>(lines);
        forged.set(3, forged.get(3).replace("\\n6\\n", "\\n7\\n"));
        assertBadAt(forged, 4, "");

        // not JSON at all
        List<String> junk = new ArrayList<>(lines);
        junk.set(0, "not json");
        assertBadAt(junk, 1, "");

        resetStreams();
        assertEquals(1, ReceiptsCommand.verify(dir.resolve("missing.jsonl"), out, err));
        assertTrue(err().contains("no such file"), err());
    }

    void assertBadAt(List<String> lines, int lineNo, String word) throws Exception {
        Path file = dir.resolve("bad.jsonl");
        Files.write(file, lines, StandardCharsets.UTF_8);
        resetStreams();
        assertEquals(1, ReceiptsCommand.verify(file, out, err), out() + err());
        assertTrue(err().contains("line " + lineNo + ": " + word), err());
    }

    @Test
    void proveGivesOneProofPerChainHoldingTheEventSentSideFirstInTheContractsForm() throws Exception {
        assertEquals(0, ReceiptsCommand.prove(ledger, id("shared"), Optional.empty(), Optional.empty(), out, err), err());
        List<String> lines = lines();
        assertEquals(2, lines.size());
        JsonNode sent = JSON.readTree(lines.get(0));
        JsonNode received = JSON.readTree(lines.get(1));
        assertEquals(List.of("event_id", "index", "tree_size", "path", "receipt"), names(sent));
        assertEquals(List.of("event_id", "index", "tree_size", "path", "receipt"), names(received));
        // sent: B's head receipt over its tree of 3 leaves, "shared" at index 1
        assertEquals(id("shared").hex(), sent.get("event_id").asText());
        assertEquals(1, sent.get("index").asLong());
        assertEquals(3, sent.get("tree_size").asLong());
        assertEquals(pubkey(peerB).hex(), sent.get("receipt").get("pubkey").asText());
        assertEquals(toB.head.hex(), sent.get("receipt").get("id").asText());
        // received: this node's head receipt (size 6), "shared" at index 1
        assertEquals(1, received.get("index").asLong());
        assertEquals(6, received.get("tree_size").asLong());
        assertEquals(signedForA.get(3).id().hex(), received.get("receipt").get("id").asText());
        for (String line : lines) {
            CustodyProof p = CustodyProof.parse(line);
            assertNull(p.verify());
            // the path is the RFC 9162 one: it leads to the root the receipt signs
            Receipt r = Receipt.parse(p.receipt());
            assertTrue(Merkle.verifyInclusion(Merkle.leafHash(p.eventId()), p.index(), p.treeSize(), p.path(), r.root()));
        }
    }

    @Test
    void provePicksTheChainsAskedFor() throws Exception {
        assertEquals(0, ReceiptsCommand.prove(ledger, id("shared"), Optional.of(A), Optional.empty(), out, err));
        assertEquals(1, lines().size());
        assertEquals(6, JSON.readTree(lines().get(0)).get("tree_size").asLong());
        resetStreams();
        assertEquals(0, ReceiptsCommand.prove(ledger, id("shared"), Optional.empty(), Optional.of(Side.SENT), out, err));
        assertEquals(1, lines().size());
        assertEquals(3, JSON.readTree(lines().get(0)).get("tree_size").asLong());
        resetStreams();
        assertEquals(0, ReceiptsCommand.prove(ledger, id("a5"), Optional.empty(), Optional.empty(), out, err));
        assertEquals(1, lines().size());
        assertEquals(5, JSON.readTree(lines().get(0)).get("index").asLong());
        assertNull(CustodyProof.parse(lines().get(0)).verify());
    }

    @Test
    void proveOfAnEventNoTreeHoldsExitsOneWithTheReason() {
        assertEquals(1, ReceiptsCommand.prove(ledger, id("nobody has this"), Optional.empty(), Optional.empty(), out,
                err));
        assertEquals("", out());
        assertTrue(err().contains("is a leaf of no [sent, received] custody tree"), err());
        resetStreams();
        assertEquals(1, ReceiptsCommand.prove(ledger, id("b1"), Optional.of(A), Optional.empty(), out, err));
        assertTrue(err().contains("of " + A), err());
    }

    @Test
    void proveRefusesToPrintAProofThatDoesNotHold() {
        // a ledger whose head receipt signs a root its leaves do not make (a damaged database)
        MemoryCustodyLedger damaged = new MemoryCustodyLedger();
        byte[] wrongRoot = Merkle.leafHash(id("something else"));
        Receipt r = Receipt.sign(self, 1_700_000_000L, pubkey(peerA), null, 1, 1, wrongRoot, 100, List.of());
        damaged.append(List.of(new org.fleetmesh.spi.delivery.CustodyLedger.Append(Side.RECEIVED, A,
                List.of(new org.fleetmesh.spi.delivery.CustodyLedger.Leaf(0, id("x"), 100, 0)),
                new org.fleetmesh.spi.delivery.CustodyLedger.Receipt(0, 1, 1, r.id(), r.event().json(), 100, 1,
                        List.of(), List.of(wrongRoot)), Optional.empty())));
        assertEquals(1, ReceiptsCommand.prove(damaged, id("x"), Optional.empty(), Optional.empty(), out, err));
        assertEquals("", out());
        assertTrue(err().contains("does not verify"), err());
    }

    @Test
    void badArgumentsAreUsageErrors() {
        assertThrows(UsageException.class, () -> ReceiptsCommand.run(new String[] { "receipts", "export" }));
        assertThrows(UsageException.class,
                () -> ReceiptsCommand.run(new String[] { "receipts", "export", "--peer", A, "--side", "both" }));
        assertThrows(UsageException.class, () -> ReceiptsCommand.run(new String[] { "receipts", "prove", "abc" }));
        assertThrows(UsageException.class, () -> ReceiptsCommand.run(new String[] { "receipts", "verify" }));
        assertThrows(UsageException.class, () -> ReceiptsCommand.run(new String[] { "receipts" }));
        assertThrows(UsageException.class, () -> ReceiptsCommand.run(
                new String[] { "receipts", "prove", Hex.encode(new byte[32]), "--bogus" }));
    }

    void resetStreams() {
        outBytes.reset();
        errBytes.reset();
    }

    static List<String> names(JsonNode o) {
        List<String> out = new ArrayList<>();
        for (Iterator<String> it = o.fieldNames(); it.hasNext();) {
            out.add(it.next());
        }
        return out;
    }

    @Test
    void aChainArchivedByACustodyResetStillExportsVerifiesAndProves() throws Exception {
        String archived = ledger.archive(Side.SENT, B).orElseThrow();
        assertEquals(B + "#reset-1", archived);
        assertEquals(0, ReceiptsCommand.export(ledger, archived, Side.SENT, out, err), err());
        assertEquals(2, lines().size());
        Path file = dir.resolve("archived.jsonl");
        Files.writeString(file, out());
        outBytes.reset();
        assertEquals(0, ReceiptsCommand.verify(file, out, err), err());
        outBytes.reset();
        assertEquals(0, ReceiptsCommand.prove(ledger, id("b1"), Optional.empty(), Optional.of(Side.SENT), out, err), err());
        assertEquals(1, lines().size(), "the archived tree proves custody of what the peer once took");
        assertEquals(1, ReceiptsCommand.export(ledger, B, Side.SENT, out, err), "the peer's live chain starts again empty");
    }
}
