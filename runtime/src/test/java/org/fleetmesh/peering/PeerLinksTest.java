package org.fleetmesh.peering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.fleetmesh.identity.DidKey;
import org.junit.jupiter.api.Test;

/** The link manager over in-memory links: dialling, one link per pair, redial, quarantine, heartbeats. */
class PeerLinksTest {
    private final Nodes.TestClock clock = new Nodes.TestClock(Nodes.T0);
    private final Net net = new Net();

    /** Messages and timers wait until the test lets them run, so two dials can be in flight at once. */
    final class Net {
        final Deque<Runnable> messages = new ArrayDeque<>();
        final Deque<Runnable> timers = new ArrayDeque<>();
        final Map<URI, Node> at = new HashMap<>();
        long nanos;

        void settle() {
            for (int i = 0; i < 10_000; i++) {
                Runnable next = messages.pollFirst();
                if (next == null) {
                    next = timers.pollFirst();
                }
                if (next == null) {
                    return;
                }
                next.run();
            }
            throw new AssertionError("the network did not settle");
        }

        /** Delivers messages only: timers (redials, heartbeats) stay queued. */
        void deliver() {
            Runnable next;
            while ((next = messages.pollFirst()) != null) {
                next.run();
            }
        }
    }

    /** One end of an in-memory WebSocket; a close closes both ends once. */
    final class Wire implements MeshLink.Socket {
        MeshLink self;
        Wire other;
        boolean closed;
        final List<String> sent = new ArrayList<>();

        @Override
        public void send(String text) {
            if (closed) {
                return;
            }
            sent.add(text);
            Wire o = other;
            net.messages.add(() -> {
                if (!o.closed) {
                    o.self.receive(text);
                }
            });
        }

        @Override
        public void close(int code, String reason) {
            if (closed) {
                return;
            }
            closed = true; // this end sends nothing more; what it sent before arrives first, as over TCP
            net.messages.add(() -> {
                other.closed = true;
                self.closed();
                other.self.closed();
            });
        }
    }

    final class Node {
        final MeshSigner signer;
        final URI url;
        final PeerLinks links;
        final List<MeshLink> all = new ArrayList<>();
        final Map<String, Instant> quarantine = new HashMap<>();
        boolean down;

        Node(MeshSigner signer, String url) {
            this.signer = signer;
            this.url = URI.create(url);
            net.at.put(this.url, this);
            PeerLinks.Settings settings = new PeerLinks.Settings(Duration.ofSeconds(5), Duration.ofSeconds(15),
                    new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1)), Duration.ofSeconds(10));
            links = new PeerLinks(signer.transportKey(), settings, this::dial, (delay, task) -> net.timers.add(task),
                    link -> text -> {
                    }, key -> Optional.ofNullable(quarantine.get(key)), key -> LinkTraffic.NONE, clock,
                    () -> net.nanos, () -> 0.5);
        }

        CompletableFuture<MeshLink> dial(PeerAddress peer, LinkSessions sessions) {
            Node target = net.at.get(peer.url());
            if (target == null || target.down) {
                return CompletableFuture.failedFuture(new java.net.ConnectException("refused: " + peer.url()));
            }
            Wire out = new Wire();
            Wire in = new Wire();
            out.other = in;
            in.other = out;
            MeshLink initiator = new MeshLink(MeshHandshake.initiator(signer, HandshakeSettings.DEFAULTS, new SeenProofs(),
                    peer.handshakeExpectation(), clock, new java.util.Random(1)), out, MeshLink.Offload.INLINE,
                    () -> net.nanos, sessions);
            MeshLink responder = new MeshLink(MeshHandshake.responder(target.signer, HandshakeSettings.DEFAULTS,
                    new SeenProofs(), clock, new java.util.Random(2)), in, MeshLink.Offload.INLINE, () -> net.nanos,
                    target.links.accepted());
            out.self = initiator;
            in.self = responder;
            all.add(initiator);
            target.all.add(responder);
            initiator.open();
            net.messages.add(responder::open);
            return initiator.authenticated().toCompletableFuture().thenApply(p -> initiator);
        }

        PeerLinks.View view(Node other) {
            String key = PeerIdentity.shortForm(other.signer.did());
            return links.view().stream().filter(v -> v.peerKey().equals(key)).findFirst()
                    .orElseThrow(() -> new AssertionError("no entry for " + key + " in " + links.view()));
        }

    }

    private MeshLink.Socket socketOf(MeshLink link) {
        try {
            java.lang.reflect.Field f = MeshLink.class.getDeclaredField("socket");
            f.setAccessible(true);
            return (MeshLink.Socket) f.get(link);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private Node a() {
        return new Node(Nodes.A, "ws://a.example/");
    }

    private Node b() {
        return new Node(Nodes.B, "ws://b.example/");
    }

    private static PeerAddress at(Node n) {
        return new PeerAddress(n.signer.did(), n.url);
    }

    @Test
    void aDeclaredPeerIsDialledAndBothSidesSeeOneUpLink() {
        Node a = a();
        Node b = b();
        a.links.declare(at(b));
        net.settle();
        assertEquals(PeerLinks.State.UP, a.view(b).state());
        assertEquals(PeerLinks.State.UP, b.view(a).state());
        assertEquals(1, a.view(b).links());
        assertEquals(Optional.of(Role.INITIATOR), a.view(b).role());
        assertEquals(Optional.of(Role.RESPONDER), b.view(a).role());
        assertTrue(a.view(b).declared());
        assertFalse(b.view(a).declared(), "b did not declare a: it only accepted its link");
        assertTrue(a.view(b).rttMillis().isPresent(), "the first heartbeat is answered at once");
    }

    @Test
    void whenBothDialAtOnceTheyKeepTheSameOneLinkTheOneTheLowerTransportKeyDialled() {
        Node a = a();
        Node b = b();
        a.links.declare(at(b));
        b.links.declare(at(a));
        // both dials leave before either handshake completes
        Runnable dialA = net.timers.pollFirst();
        Runnable dialB = net.timers.pollFirst();
        dialA.run();
        dialB.run();
        net.deliver();
        assertEquals(2, a.all.stream().filter(l -> l.peer().isPresent()).count(), "two links authenticated");
        net.settle();
        assertEquals(1, a.view(b).links());
        assertEquals(1, b.view(a).links());
        boolean aLower = java.util.Arrays.compareUnsigned(Nodes.A.transportKey().keyBytes(),
                Nodes.B.transportKey().keyBytes()) < 0;
        Role expectedAtA = aLower ? Role.INITIATOR : Role.RESPONDER;
        assertEquals(Optional.of(expectedAtA), a.view(b).role());
        assertEquals(Optional.of(expectedAtA == Role.INITIATOR ? Role.RESPONDER : Role.INITIATOR), b.view(a).role(),
                "both sides kept the same link");
        assertTrue(a.view(b).duplicates() > 0 && b.view(a).duplicates() > 0, "each side closed the other link");
        assertEquals(PeerLinks.State.UP, a.view(b).state());
        assertEquals(PeerLinks.State.UP, b.view(a).state());
    }

    @Test
    void theTieBreakPrefersTheLowerInitiatorKeyAndOfOneInitiatorTheNewerLink() {
        var low = Nodes.A.transportKey().keyBytes()[0] <= Nodes.B.transportKey().keyBytes()[0] ? Nodes.A : Nodes.B;
        var high = low == Nodes.A ? Nodes.B : Nodes.A;
        assertTrue(PeerLinks.prefers(low.transportKey(), high.transportKey()));
        assertFalse(PeerLinks.prefers(high.transportKey(), low.transportKey()));
        assertTrue(PeerLinks.prefers(high.transportKey(), high.transportKey()), "same initiator: the newer link wins");
    }

    /** B after {@code keys rotate}: new keys, the hand-over from B's DID, at B's URL. */
    private Node rotatedB() {
        MeshSigner plain = MeshSigner.forNode(Nodes.secrets(0x14, 0x15, 0x16), Nodes.B_AT);
        org.fleetmesh.identity.KeyHandover h = org.fleetmesh.identity.KeyHandover.sign(Nodes.B.did(),
                Nodes.B.did() + "#key-1", Nodes.B_KEYS.transport(), plain.did(), Nodes.T0 - 10);
        return new Node(plain.withHandover(h), "ws://b.example/");
    }

    @Test
    void aDeclaredPeerThatRotatedItsKeysIsFollowedAndItsOldDidRetired() {
        Node a = a();
        Node b = b();
        List<PeerLinks.Rotation> rotations = new ArrayList<>();
        a.links.onRotation(rotations::add);
        a.links.declare(at(b));
        net.settle();
        assertEquals(PeerLinks.State.UP, a.view(b).state());
        // b stops; the rotated b comes up at the same URL; a redials the URL it declared
        b.down = true;
        a.all.get(0).close();
        Node b2 = rotatedB();
        net.settle();
        PeerLinks.View v = a.view(b2);
        assertEquals(PeerLinks.State.UP, v.state());
        assertTrue(v.declared(), "declared under the new DID");
        assertEquals(Optional.of(b2.url), v.url());
        assertEquals(PeerIdentity.shortForm(b2.signer.did()), v.key());
        assertTrue(a.links.view().stream().noneMatch(x -> x.key().equals(PeerIdentity.shortForm(Nodes.B.did()))),
                "no entry under the old DID: " + a.links.view());
        assertEquals(1, rotations.size());
        assertEquals(PeerIdentity.shortForm(Nodes.B.did()), rotations.get(0).oldKey());
        assertEquals(PeerIdentity.shortForm(b2.signer.did()), rotations.get(0).address().key());
        assertEquals(Optional.of(PeerIdentity.shortForm(b2.signer.did())),
                a.links.successor(PeerIdentity.shortForm(Nodes.B.did())));

        // whoever still holds b's old keys is ended after the handshake, with the reason
        Node thief = new Node(Nodes.B, "ws://thief.example/");
        net.timers.clear();
        thief.links.declare(at(a));
        net.timers.pollLast().run(); // one dial (its redials would loop: timers run at once here)
        net.deliver();
        PeerLinks.View atThief = thief.view(a);
        assertTrue(atThief.state() != PeerLinks.State.UP, atThief.toString());
        assertTrue(atThief.lastError().orElse("").startsWith("ended by the peer: invalid: "
                + PeerIdentity.shortForm(Nodes.B.did()) + " handed its keys over to "), atThief.toString());
        assertEquals(1, rotations.size(), "the thief changed nothing");
    }

    @Test
    void aRotatedPeerThatLinksInIsRekeyedAtTheResponderToo() {
        Node a = a();
        Node b = b();
        List<PeerLinks.Rotation> rotations = new ArrayList<>();
        a.links.onRotation(rotations::add);
        b.down = true; // a's dials of the old b fail
        a.links.declare(at(b));
        net.timers.pollFirst().run();
        net.deliver();
        Node b2 = rotatedB();
        b2.down = true; // only b2's own dial reaches a: the responder path
        b2.links.declare(at(a));
        net.timers.pollLast().run();
        net.deliver();
        assertEquals(1, rotations.size(), a.links.view().toString());
        PeerLinks.View v = a.view(b2);
        assertEquals(PeerLinks.State.UP, v.state());
        assertTrue(v.declared());
        assertEquals(Optional.of(b.url), v.url(), "the declared URL is kept");
    }

    @Test
    void aHandOverFromAnUndeclaredDidChangesNothing() {
        Node a = a();
        List<PeerLinks.Rotation> rotations = new ArrayList<>();
        a.links.onRotation(rotations::add);
        Node b2 = rotatedB();
        b2.links.declare(at(a));
        net.settle();
        assertEquals(PeerLinks.State.UP, a.view(b2).state());
        assertFalse(a.view(b2).declared(), "a stranger still");
        assertTrue(rotations.isEmpty());
        assertEquals(Optional.empty(), a.links.successor(PeerIdentity.shortForm(Nodes.B.did())));
    }

    @Test
    void aClosedLinkIsRedialledWithoutOperatorAction() {
        Node a = a();
        Node b = b();
        a.links.declare(at(b));
        net.settle();
        MeshLink first = a.all.get(0);
        first.close();
        net.deliver();
        assertEquals(PeerLinks.State.DOWN, a.view(b).state());
        net.settle(); // the redial timer runs
        assertEquals(PeerLinks.State.UP, a.view(b).state());
        assertEquals(2, a.all.size(), "a dialled again");
    }

    @Test
    void aPeerThatIsDownIsRedialledUntilItIsBack() {
        Node a = a();
        Node b = b();
        b.down = true;
        a.links.declare(at(b));
        for (int i = 0; i < 3; i++) {
            net.timers.pollFirst().run(); // each failure schedules the next dial
            net.deliver();
        }
        PeerLinks.View v = a.links.view().get(0);
        assertEquals(PeerLinks.State.DOWN, v.state());
        assertTrue(v.lastError().orElseThrow().contains("refused"), v.lastError().toString());
        b.down = false;
        net.settle();
        assertEquals(PeerLinks.State.UP, a.view(b).state());
    }

    @Test
    void aPeerDeclaredByDidKeyIsMatchedByTheKeyThatSignedItsProof() {
        Node a = a();
        Node b = b();
        a.links.declare(new PeerAddress(DidKey.of(Nodes.B.transportKey()), b.url));
        net.settle();
        PeerLinks.View v = a.links.view().get(0);
        assertEquals(PeerLinks.State.UP, v.state());
        assertEquals(DidKey.of(Nodes.B.transportKey()), v.key());
        assertEquals(PeerIdentity.shortForm(Nodes.B.did()), v.peerKey());
    }

    @Test
    void aPeerThatProvesAnotherDidThanTheDeclaredOneIsRefused() {
        Node a = a();
        Node c = new Node(Nodes.C, "ws://c.example/");
        // declared as B's did:key, but C answers at that URL: the handshake passes, the declaration does not
        a.links.declare(new PeerAddress(DidKey.of(Nodes.B.transportKey()), c.url));
        net.timers.pollFirst().run();
        net.deliver();
        PeerLinks.View v = a.links.view().get(0);
        assertEquals(PeerLinks.State.DOWN, v.state());
        assertTrue(c.links.view().isEmpty() || c.links.view().get(0).links() == 0,
                "the refused link is gone at c too: " + c.links.view());
        MeshLink link = a.all.get(0);
        Wire w = (Wire) socketOf(link);
        assertTrue(w.sent.stream().anyMatch(s -> s.startsWith("[\"MESH-ERR\",\"invalid: this node dialled did:key:")),
                w.sent.toString());
    }

    @Test
    void aQuarantinedPeerIsNotDialledAndItsLinkIsEnded() {
        Node a = a();
        Node b = b();
        String bKey = PeerIdentity.shortForm(Nodes.B.did());
        a.quarantine.put(bKey, clock.instant().plusSeconds(60));
        b.links.declare(at(a)); // b dials a: a ends it at once
        net.timers.pollFirst().run();
        net.deliver();
        MeshLink fromB = b.all.get(0);
        Wire w = (Wire) socketOf(fromB);
        assertTrue(w.closed);
        a.links.declare(at(b));
        assertEquals(PeerLinks.State.QUARANTINED, a.view(b).state());
        // a's own dial waits for the quarantine to end, while b keeps trying and is ended each time
        for (int i = 0; i < 5 && !net.timers.isEmpty(); i++) {
            net.timers.pollFirst().run();
            net.deliver();
        }
        assertEquals(0, a.all.stream().filter(l -> l.role() == Role.INITIATOR).count(),
                "a did not dial the quarantined peer");
        assertTrue(b.all.size() > 1, "b was refused and redialled");
        assertTrue(b.all.stream().allMatch(l -> ((Wire) socketOf(l)).closed), "every link from b was ended");
    }

    @Test
    void undeclaredPeersAreForgottenWhenTheirLinkCloses() {
        Node a = a();
        Node b = b();
        b.links.declare(at(a));
        net.settle();
        assertEquals(1, a.links.view().size());
        b.links.forget(PeerIdentity.shortForm(Nodes.A.did()));
        net.deliver();
        assertTrue(a.links.view().isEmpty(), a.links.view().toString());
    }

    @Test
    void aDialThatCompletesAfterItsPeerWasForgottenIsEndedAndLeavesNoEntry() {
        Node a = a();
        Node b = b();
        b.links.declare(at(a));
        net.timers.pollFirst().run(); // the dial starts; its handshake messages wait
        assertEquals(1, b.all.size(), "b dialled a");
        assertTrue(b.links.forget(PeerIdentity.shortForm(Nodes.A.did())));
        net.settle(); // the handshake completes after the peer was forgotten
        assertTrue(b.links.view().isEmpty(), "no undeclared entry left behind: " + b.links.view());
        assertTrue(a.links.view().isEmpty(), "a's side of the link was ended too: " + a.links.view());
        assertTrue(((Wire) socketOf(b.all.get(0))).closed, "the late link was ended");
    }

    @Test
    void aLinkWithoutPongsForTheTimeoutIsEndedLateAndRedialled() {
        Node a = a();
        Node b = b();
        a.links.declare(at(b));
        net.settle();
        MeshLink link = a.all.get(0);
        Wire toB = (Wire) socketOf(link);
        // b stops answering: nothing a sends reaches it any more
        toB.other = new Wire();
        toB.other.self = link;
        toB.other.other = toB;
        Wire dead = toB.other;
        dead.closed = true;
        net.nanos += Duration.ofSeconds(16).toNanos();
        a.links.tick();
        assertTrue(toB.sent.stream().anyMatch(s -> s.startsWith("[\"MESH-ERR\",\"late: no MESH-PONG for")),
                toB.sent.toString());
        net.settle();
        // b never saw the close: it holds a stale link, which a's redial (same initiator, newer) replaces
        assertEquals(PeerLinks.State.UP, a.view(b).state());
        assertEquals(2, a.all.stream().filter(l -> l.role() == Role.INITIATOR).count());
        assertEquals(1, b.view(a).links(), "b keeps only the new link");
    }
}
