package org.fleetmesh.it;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.fleetmesh.delivery.log.CompactRange;
import org.fleetmesh.delivery.log.Merkle;
import org.fleetmesh.delivery.log.Receipt;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Utf8;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.grant.Grant;
import org.fleetmesh.peering.grant.GrantTerms;
import org.fleetmesh.peering.link.EventFrame;
import org.fleetmesh.peering.link.GrantMessages;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.vertx.core.Vertx;

/**
 * A receiving peer written in the test that speaks delivery (docs/spec/delivery.md) by hand over a {@link MeshPeer}
 * link: it asks the node for filters ({@code MESH-FEDERATE}), answers the custody exchange from its own chain, and
 * takes custody of each frame the node forwards with a kind 11803 receipt over its own RFC 9162 tree, built with the
 * log's primitives. It can lie: leave an event of a frame out of its tree while receipting the frame
 * ({@link Lie#OMIT}), or rewrite a past leaf of its tree and sign its old size again with the new root, a checkpoint that
 * contradicts the one it signed before ({@link Lie#FORK}). Messages it does not serve wait in {@link #others}.
 */
final class CustodyPeer implements AutoCloseable {
    enum Lie {
        NONE, OMIT, FORK
    }

    /** This peer's custody state: restorable, to undo a lie. */
    private record State(CompactRange range, List<byte[]> leaves, Set<String> ids, long bytes, EventId head,
            long seq, List<String> chain) {
        State copy() {
            return new State(range, new ArrayList<>(leaves), new HashSet<>(ids), bytes, head, seq, new ArrayList<>(chain));
        }
    }

    final MeshPeer peer;
    final BlockingQueue<String> others = new LinkedBlockingQueue<>();
    /** Every event id of every frame the node forwarded, in arrival order (duplicates included). */
    final List<String> forwarded = java.util.Collections.synchronizedList(new ArrayList<>());
    /** The MESH-EVENTS headers received, in order. */
    final List<JsonNode> headers = java.util.Collections.synchronizedList(new ArrayList<>());
    private State state = new State(CompactRange.empty(), new ArrayList<>(), new HashSet<>(), 0, null, 0,
            new ArrayList<>());
    private volatile Lie lie = Lie.NONE;
    /** The state before the last lie. */
    private volatile State honest;
    /** The id left out by the OMIT lie. */
    private volatile String omitted;
    /** The receipt that lied. */
    private volatile String lyingReceipt;
    private volatile int frames;
    private volatile int custodyRequests;

    CustodyPeer(Vertx vertx, String name) throws Exception {
        peer = new MeshPeer(vertx, name);
        peer.listener = this::receive;
    }

    String shortDid() {
        return peer.shortDid();
    }

    String pubkey() {
        return peer.secrets.publicKeys().nostr().hex();
    }

    /**
     * Links to the node, accepts its grant, offers it a roomy one (so nothing here paces it), and asks it for
     * {@code federate} (a JSON array of filters).
     */
    CustodyPeer link(MeshnodeProcess node, String federate) throws Exception {
        peer.link(node);
        send("[\"MESH-FEDERATE\"," + federate + "]");
        long now = System.currentTimeMillis() / 1000;
        String nodeShort = PeerIdentity.shortForm(peer.link.peer().orElseThrow().did());
        Grant ours = Grant.sign(new GrantTerms(peer.shortDid(), nodeShort, 1L << 30, 1_000_000, 60, 0, now + 3600),
                peer.secrets.nostr().bytes(), now);
        send(peer.grants.offer(ours, Optional.empty(), now));
        return this;
    }

    void send(String text) {
        peer.send(text);
    }

    /** From the next frame on, lie this way once. */
    synchronized void lie(Lie how) {
        this.lie = how;
    }

    /** Forgets the lie: back to the state the node last verified, honest from now on. */
    synchronized void repent() {
        if (honest != null) {
            state = honest;
            honest = null;
        }
        lie = Lie.NONE;
    }

    String omitted() {
        return omitted;
    }

    String lyingReceipt() {
        return lyingReceipt;
    }

    int frames() {
        return frames;
    }

    int custodyRequests() {
        return custodyRequests;
    }

    synchronized long treeSize() {
        return state.range.size();
    }

    synchronized Optional<String> headId() {
        return Optional.ofNullable(state.head).map(EventId::hex);
    }

    private void receive(String text) {
        try {
            if (text.startsWith("[\"" + EventFrame.EVENTS + "\"")) {
                frame(text);
            } else if (text.startsWith("[\"MESH-CUSTODY\"")) {
                custody(MeshPeer.json(text).get(1));
            } else if (text.startsWith("[\"" + EventFrame.DIDCOMM + "\"")) {
                didcomm(text);
            } else {
                others.add(text);
            }
        } catch (Exception e) {
            others.add("test peer failed on " + text.substring(0, Math.min(200, text.length())) + ": " + e);
        }
    }

    private void didcomm(String text) throws Exception {
        GrantMessages.Received m = peer.grants.read(text);
        if (m.type().equals(GrantMessages.OFFER) || m.type().equals(GrantMessages.REVISE)) {
            long now = System.currentTimeMillis() / 1000;
            peer.send(peer.grants.accept(m.grant(now).event().id().hex(), m.thread() == null ? m.id() : m.thread(), now));
        } else {
            others.add(text);
        }
    }

    /** MESH-CUSTODY: every receipt after the sender's head (all of them when it is not in the chain), then the head. */
    private synchronized void custody(JsonNode asked) {
        custodyRequests++;
        String head = asked.path("head").isTextual() ? asked.get("head").asText() : null;
        List<String> chain = state.chain;
        int from = 0;
        if (head != null) {
            for (int i = 0; i < chain.size(); i++) {
                if (MeshPeer.json(chain.get(i)).get(2).get("id").asText().equals(head)) {
                    from = i + 1;
                }
            }
        }
        for (int i = from; i < chain.size(); i++) {
            ArrayNode m = (ArrayNode) MeshPeer.json(chain.get(i));
            ((ObjectNode) m.get(1)).put("catch_up", true);
            send(m.toString());
        }
        ObjectNode h = NostrClient.JSON.createObjectNode();
        h.put("size", state.range.size());
        if (state.head == null) {
            h.putNull("head");
            h.putNull("seq");
        } else {
            h.put("head", state.head.hex());
            h.put("seq", state.seq);
        }
        h.put("more", false);
        send("[\"MESH-CUSTODY-HEAD\"," + h + "]");
    }

    private synchronized void frame(String text) throws Exception {
        JsonNode header;
        List<String> events;
        long seq;
        try (EventFrame.Reader r = EventFrame.header(text, 100_000)) {
            seq = r.seq();
            header = MeshPeer.json(r.headerJson());
            events = r.events(100_000);
        }
        headers.add(header);
        frames++;
        Lie now = lie;
        if (now != Lie.NONE) {
            honest = state.copy();
            lie = Lie.NONE;
        }
        State s = state;
        List<byte[]> appended = new ArrayList<>();
        ArrayNode appendedIds = NostrClient.JSON.createArrayNode();
        long bytes = s.bytes;
        boolean omit = now == Lie.OMIT;
        for (String e : events) {
            String id = MeshPeer.json(e).get("id").asText();
            forwarded.add(id);
            if (s.ids.contains(id)) {
                continue;
            }
            if (omit) {
                omit = false;
                omitted = id;
                continue; // receipted, yet neither appended nor rejected
            }
            s.ids.add(id);
            byte[] leaf = Merkle.leafHash(EventId.ofHex(id));
            appended.add(leaf);
            appendedIds.add(id);
            bytes += Utf8.length(e);
        }
        long oldSize = s.range.size();
        List<byte[]> consistency;
        CompactRange next;
        byte[] root;
        long size;
        if (now == Lie.FORK && !s.leaves.isEmpty()) {
            // rewrite the first leaf and sign the old size again, chained to the last receipt: two checkpoints of one
            // size with different roots, which the peer's own signatures show to anyone (custody.md §4)
            List<byte[]> forged = new ArrayList<>(s.leaves);
            forged.set(0, Merkle.leafHash(EventId.ofHex("ff".repeat(32))));
            root = Merkle.root(forged);
            size = oldSize;
            consistency = List.of();
            next = s.range.appendAll(appended);
        } else {
            consistency = oldSize == 0 || appended.isEmpty() ? List.of() : s.range.consistencyProof(appended);
            next = s.range.appendAll(appended);
            root = next.root();
            size = next.size();
        }
        s.leaves.addAll(appended);
        PubKey sender = peer.link.peer().orElseThrow().nostr().orElseThrow();
        Receipt receipt = Receipt.sign(peer.secrets.nostr().bytes(), System.currentTimeMillis() / 1000, sender, s.head,
                seq, size, root, bytes, List.of());
        ArrayNode proof = NostrClient.JSON.createArrayNode();
        for (byte[] h : consistency) {
            proof.add(Hex.encode(h));
        }
        String message = "[\"MESH-RECEIPT\",{\"seq\":" + seq + "}," + receipt.event().json() + "," + proof + ","
                + appendedIds + "]";
        s.chain.add(message);
        if (now != Lie.NONE) {
            lyingReceipt = receipt.id().hex();
        }
        state = new State(next, s.leaves, s.ids, bytes, receipt.id(), seq, s.chain);
        send(message);
    }

    /** Waits until {@code condition} holds, 30 s at most. */
    static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            MeshnodeProcess.sleep(20);
        }
        throw new AssertionError("not within 30 s: " + what);
    }

    @Override
    public void close() {
        peer.close();
    }
}
