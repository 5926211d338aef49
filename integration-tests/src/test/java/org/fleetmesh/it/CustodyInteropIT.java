package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fleetmesh.delivery.log.ChainFile;
import org.fleetmesh.delivery.log.CompactRange;
import org.fleetmesh.delivery.log.CustodyProof;
import org.fleetmesh.delivery.log.Merkle;
import org.fleetmesh.delivery.log.Receipt;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Custody proofs and receipt chains checked by an implementation nobody here wrote the crypto of: nostr-tools (npm)
 * for the receipts' NIP-01 ids and BIP-340 signatures, node:crypto SHA-256, and RFC 9162 verification written in
 * the script. Valid and damaged proofs and chains, including the vectors printed in docs/spec/custody.md; the
 * script's verdicts must match how each case was built, and Java's own verdicts.
 */
class CustodyInteropIT {
    private static final String SCRIPT = "custody-verify.mjs";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final byte[] receiverSecret = Schnorr.newSecretKey();
    private final PubKey sender = new PubKey(Schnorr.publicKey(Schnorr.newSecretKey()));
    private final List<EventId> leaves = new ArrayList<>();
    private final List<Receipt> receipts = new ArrayList<>();
    private final List<String> lines = new ArrayList<>();
    private CompactRange range = CompactRange.empty();
    private long bytes;

    private static EventId id(int i) {
        return new EventId(Events.sha256(("interop event " + i).getBytes(StandardCharsets.UTF_8)));
    }

    /** The receiver takes a frame: appends the ids not yet leaves, rejects {@code refused}, signs the receipt. */
    private void frame(long seq, List<Integer> events, Set<Integer> refused) {
        Set<EventId> held = new HashSet<>(leaves);
        List<byte[]> appended = new ArrayList<>();
        List<Receipt.Rejected> rejected = new ArrayList<>();
        for (int i : events) {
            if (refused.contains(i)) {
                rejected.add(new Receipt.Rejected(id(i), "invalid: bad signature"));
            } else if (held.add(id(i))) {
                leaves.add(id(i));
                appended.add(Merkle.leafHash(id(i)));
                bytes += 250 + i;
            }
        }
        List<byte[]> consistency = range.consistencyProof(appended);
        range = range.appendAll(appended);
        Receipt prev = receipts.isEmpty() ? null : receipts.get(receipts.size() - 1);
        Receipt r = Receipt.sign(receiverSecret, 1_767_225_600L + seq, sender, prev == null ? null : prev.id(), seq,
                range.size(), range.root(), bytes, rejected);
        receipts.add(r);
        lines.add(ChainFile.line(r.event().json(), consistency));
    }

    private static List<Integer> span(int from, int to) {
        List<Integer> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(i);
        }
        return out;
    }

    private static String codeBlockAfter(String page, String marker, String fence) {
        int at = page.indexOf(marker);
        assertTrue(at >= 0, "custody.md has no " + marker);
        int start = page.indexOf(fence, at) + fence.length();
        return page.substring(start, page.indexOf("\n```", start));
    }

    @Test
    void nostrToolsAndNodeCryptoAgreeWithTheCustodyLog() throws Exception {
        frame(1, span(0, 5), Set.of());
        frame(2, span(3, 12), Set.of(7));
        frame(3, List.of(7), Set.of(7)); // nothing appended
        frame(4, span(12, 13), Set.of());
        frame(5, span(13, 30), Set.of(20, 21));
        frame(6, span(30, 38), Set.of());
        Merkle.Subtrees tree = Merkle.ofLeaves(leaves.stream().map(Merkle::leafHash).toList());
        Receipt head = receipts.get(receipts.size() - 1);

        Map<String, CustodyProof> proofs = new LinkedHashMap<>();
        Map<String, Boolean> proofValid = new LinkedHashMap<>();
        for (int i = 0; i < leaves.size(); i++) {
            proofs.put("leaf " + i, CustodyProof.prove(leaves.get(i), i, head, tree));
            proofValid.put("leaf " + i, true);
        }
        Receipt early = receipts.get(1);
        Merkle.Subtrees earlyTree = Merkle.ofLeaves(leaves.subList(0, (int) early.size()).stream().map(Merkle::leafHash).toList());
        proofs.put("leaf 4 under receipt 2", CustodyProof.prove(leaves.get(4), 4, early, earlyTree));
        proofValid.put("leaf 4 under receipt 2", true);
        Path page = MeshnodeProcess.projectRoot().resolve("docs/spec/custody.md");
        String spec = Files.readString(page, StandardCharsets.UTF_8);
        proofs.put("custody.md vector", CustodyProof.parse(codeBlockAfter(spec, "**Custody proof**", "```json\n")));
        proofValid.put("custody.md vector", true);

        CustodyProof p = proofs.get("leaf 9");
        Event e = p.receipt();
        List<byte[]> flipped = new ArrayList<>(p.path());
        byte[] h = flipped.get(1).clone();
        h[0] ^= 1;
        flipped.set(1, h);
        Map<String, CustodyProof> bad = new LinkedHashMap<>();
        bad.put("path bit flipped", new CustodyProof(p.eventId(), 9, p.treeSize(), flipped, e));
        bad.put("index plus 1", new CustodyProof(p.eventId(), 10, p.treeSize(), p.path(), e));
        bad.put("index sub 1", new CustodyProof(p.eventId(), 8, p.treeSize(), p.path(), e));
        bad.put("tree size plus 1", new CustodyProof(p.eventId(), 9, p.treeSize() + 1, p.path(), e));
        bad.put("tree size sub 1", new CustodyProof(p.eventId(), 9, p.treeSize() - 1, p.path(), e));
        bad.put("wrong event", new CustodyProof(id(999), 9, p.treeSize(), p.path(), e));
        bad.put("path truncated", new CustodyProof(p.eventId(), 9, p.treeSize(), p.path().subList(0, p.path().size() - 1), e));
        List<byte[]> extended = new ArrayList<>(p.path());
        extended.add(new byte[32]);
        bad.put("path extended", new CustodyProof(p.eventId(), 9, p.treeSize(), extended, e));
        bad.put("receipt edited", new CustodyProof(p.eventId(), 9, p.treeSize(), p.path(), new Event(e.id(), e.pubkey(),
                e.createdAt(), e.kind(), e.tags(), e.content().replace("\n" + p.treeSize() + "\n", "\n" + (p.treeSize() + 1) + "\n"),
                e.sig())));
        bad.put("receipt re-signed by another key", new CustodyProof(p.eventId(), 9, p.treeSize(), p.path(),
                Events.sign(Schnorr.newSecretKey(), e.createdAt(), e.kind(), e.tags(), e.content())));
        bad.put("receipt of another kind", new CustodyProof(p.eventId(), 9, p.treeSize(), p.path(),
                Events.sign(receiverSecret, e.createdAt(), 1, e.tags(), e.content())));
        for (Map.Entry<String, CustodyProof> b : bad.entrySet()) {
            proofs.put(b.getKey(), b.getValue());
            proofValid.put(b.getKey(), false);
        }

        Map<String, List<String>> chains = new LinkedHashMap<>();
        Map<String, Long> chainBadLine = new LinkedHashMap<>();
        chains.put("honest chain", lines);
        chainBadLine.put("honest chain", 0L);
        chains.put("custody.md export", List.of(codeBlockAfter(spec, "**Export**", "```\n").split("\n")));
        chainBadLine.put("custody.md export", 0L);
        List<String> gap = new ArrayList<>(lines);
        gap.remove(2);
        chains.put("line 3 removed", gap);
        chainBadLine.put("line 3 removed", 3L);
        List<String> swapped = new ArrayList<>(lines);
        swapped.set(3, lines.get(4));
        swapped.set(4, lines.get(3));
        chains.put("lines 4 and 5 swapped", swapped);
        chainBadLine.put("lines 4 and 5 swapped", 4L);
        List<String> bent = new ArrayList<>(lines);
        String l5 = bent.get(4);
        int at = l5.indexOf("\"consistency\":[\"") + 16;
        bent.set(4, l5.substring(0, at) + (l5.charAt(at) == 'a' ? 'b' : 'a') + l5.substring(at + 1));
        chains.put("line 5 proof bent", bent);
        chainBadLine.put("line 5 proof bent", 5L);
        List<String> edited = new ArrayList<>(lines);
        edited.set(1, edited.get(1).replace("[\"seq\",\"2\"]", "[\"seq\",\"9\"]"));
        chains.put("line 2 edited", edited);
        chainBadLine.put("line 2 edited", 2L);
        chains.put("first line dropped", lines.subList(1, lines.size()));
        chainBadLine.put("first line dropped", 1L);

        ObjectNode input = JSON.createObjectNode();
        ArrayNode pin = input.putArray("proofs");
        for (Map.Entry<String, CustodyProof> c : proofs.entrySet()) {
            ObjectNode o = pin.addObject();
            o.put("name", c.getKey());
            o.set("proof", JSON.readTree(c.getValue().json()));
        }
        ArrayNode cin = input.putArray("chains");
        for (Map.Entry<String, List<String>> c : chains.entrySet()) {
            ObjectNode o = cin.addObject();
            o.put("name", c.getKey());
            ArrayNode ls = o.putArray("lines");
            c.getValue().forEach(ls::add);
        }
        Path jsDir = NodeJs.withNostrTools(SCRIPT);
        Path in = jsDir.resolve("custody-in.json");
        Path out = jsDir.resolve("custody-out.json");
        Files.writeString(in, JSON.writeValueAsString(input), StandardCharsets.UTF_8);
        NodeJs.Run run = NodeJs.run(jsDir, 120, "node", SCRIPT, in.toString(), out.toString());
        assertEquals(0, run.exit(), "node failed:\n" + run.stdout() + run.stderr());

        Map<String, JsonNode> verdicts = new LinkedHashMap<>();
        for (JsonNode v : JSON.readTree(Files.readString(out))) {
            verdicts.put(v.get("name").asText(), v);
        }
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, CustodyProof> c : proofs.entrySet()) {
            JsonNode v = verdicts.get(c.getKey());
            boolean expected = proofValid.get(c.getKey());
            boolean java = c.getValue().verify() == null;
            if (v == null || v.get("ok").asBoolean() != expected || java != expected) {
                wrong.add("proof " + c.getKey() + ": expected " + expected + ", node " + v + ", java " + c.getValue().verify());
            }
        }
        for (Map.Entry<String, List<String>> c : chains.entrySet()) {
            JsonNode v = verdicts.get(c.getKey());
            long expected = chainBadLine.get(c.getKey());
            ChainFile.Result java = ChainFile.verify(new BufferedReader(new StringReader(String.join("\n", c.getValue()))));
            if (v == null || v.get("badLine").asLong() != expected || java.badLine() != expected) {
                wrong.add("chain " + c.getKey() + ": expected bad line " + expected + ", node " + v + ", java " + java);
            }
        }
        assertEquals(List.of(), wrong);
        assertEquals(proofs.size() + chains.size(), verdicts.size());
    }
}
