package org.fleetmesh.delivery;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.identity.SecretKey;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.Utf8;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.Refusal;
import org.fleetmesh.peering.link.Carrier;
import org.fleetmesh.peering.link.EventFrame;
import org.fleetmesh.peering.link.EventLink;
import org.fleetmesh.peering.link.Intake;
import org.fleetmesh.peering.link.LinkPolicy;
import org.fleetmesh.peering.link.MemoryLinkLedger;
import org.fleetmesh.peering.link.PeerAccount;
import org.fleetmesh.relay.Ingest;
import org.fleetmesh.spi.storage.SaveOutcome;

/**
 * Nodes wired to each other in memory for the delivery tests: each node has a sequenced store, a memory custody and
 * link ledger, an intake that verifies and stores on its own writer thread, and a {@link Delivery}; a link is two
 * ordered channels (one thread each, like a link's event loop) that hand each message to the other end's carrier as
 * {@code EventLink} would. A channel can be held, can drop or rewrite messages (a lying peer), and can be cut.
 */
final class Mesh implements AutoCloseable {
    static final long T0 = 1_767_225_600_000L;
    static final byte[] AUTHOR = fill(0x51);
    final AtomicLong millis = new AtomicLong(T0);
    final List<Node> nodes = new ArrayList<>();
    final List<Link> links = new ArrayList<>();
    private final List<ThreadPoolExecutor> executors = new CopyOnWriteArrayList<>();
    private int created;

    static byte[] fill(int b) {
        byte[] x = new byte[32];
        Arrays.fill(x, (byte) b);
        return x;
    }

    ThreadPoolExecutor executor(String name, int threads) {
        ThreadPoolExecutor e = new ThreadPoolExecutor(threads, threads, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(),
                r -> {
                    Thread t = new Thread(r, name);
                    t.setDaemon(true);
                    return t;
                });
        executors.add(e);
        return e;
    }

    Node node(String name, Delivery.Settings settings) {
        int n = 0x20 + 3 * created++;
        Node node = new Node(name, NodeSecrets.of(new SecretKey(fill(n)), new SecretKey(fill(n + 1)),
                new SecretKey(fill(n + 2))), settings);
        nodes.add(node);
        return node;
    }

    /**
     * {@code old} restored from a backup of its keys on an empty data dir: its delivery closed, a new node with the
     * same keys (so the same DID) and an empty store and ledgers.
     */
    Node restored(Node old) {
        old.delivery.close();
        Node node = new Node(old.name + "-restored", old.secrets, old.settings);
        nodes.add(node);
        return node;
    }

    /**
     * {@code old} after {@code keys rotate}: its delivery closed, a node with new keys (so a new DID) on the same store
     * and ledgers.
     */
    Node rotated(Node old) {
        old.delivery.close();
        int n = 0x20 + 3 * created++;
        Node node = new Node(old.name + "-rotated", NodeSecrets.of(new SecretKey(fill(n)), new SecretKey(fill(n + 1)),
                new SecretKey(fill(n + 2))), old.settings, old.store, old.ledger, old.links);
        nodes.add(node);
        return node;
    }

    static Delivery.Settings settings(List<Filter> federate) {
        Delivery.Settings d = Delivery.Settings.DEFAULT;
        return new Delivery.Settings(true, 4, d.frameBytes(), 4, d.maxHops(), d.maxSkew(), d.maxFilters(), federate,
                java.util.Map.of());
    }

    /** An event of the test author, kind {@code kind}, distinct by {@code n}. */
    Event event(int kind, int n) {
        return Events.sign(AUTHOR, T0 / 1000 + n, kind, List.of(), "note " + n);
    }

    /** One meshnode. */
    final class Node {
        final String name;
        final NodeSecrets secrets;
        final String did;
        final SequencedStore store;
        final MemoryCustodyLedger ledger;
        /** The ledger the node's delivery uses: {@link #ledger}, failing while {@code flaky.down} is set. */
        final FlakyLedger flaky;
        final MemoryLinkLedger links;
        final ThreadPoolExecutor io;
        final ThreadPoolExecutor writer;
        Delivery.Settings settings;
        volatile Delivery delivery;
        /** When set, ingest completes only once the future is done (frames complete together). */
        volatile CompletableFuture<Void> ingestGate;
        /** Every batch the intake got from a peer. */
        final List<List<Event>> fromPeer = new CopyOnWriteArrayList<>();
        /** Ids refused transiently once each ({@code rate-limited:}), to test resending. */
        final java.util.Set<String> refuseOnce = java.util.concurrent.ConcurrentHashMap.newKeySet();

        Node(String name, NodeSecrets secrets, Delivery.Settings settings) {
            this(name, secrets, settings, new SequencedStore(), new MemoryCustodyLedger(), new MemoryLinkLedger());
        }

        Node(String name, NodeSecrets secrets, Delivery.Settings settings, SequencedStore store,
                MemoryCustodyLedger ledger, MemoryLinkLedger links) {
            this.store = store;
            this.ledger = ledger;
            this.flaky = new FlakyLedger(ledger);
            this.links = links;
            this.name = name;
            this.secrets = secrets;
            this.did = NodeDidDocument.of(secrets.publicKeys(), NodeEndpoints.of("ws://" + name + ".example/",
                    "ws://" + name + ".example/mesh", "http://" + name + ".example/didcomm")).did();
            this.io = executor(name + "-io", 2);
            this.writer = executor(name + "-writer", 1);
            this.settings = settings;
            start();
        }

        /** A fresh Delivery over the same store and ledgers: a restart. */
        void start() {
            delivery = new Delivery(settings, secrets, did, store, intake, flaky, links, io, millis::get);
        }

        void restart() {
            delivery.close();
            start();
        }

        String shortDid() {
            return PeerIdentity.shortForm(did);
        }

        PeerIdentity identity() {
            return new PeerIdentity(did, secrets.publicKeys().transport(), Optional.of(secrets.publicKeys().nostr()));
        }

        /** Publishes events at this node (as a client would): stored, then the forwarders wake. */
        void publish(Event... events) {
            store.save(List.of(events));
            delivery.committed();
        }

        final Intake intake = new Intake() {
            @Override
            public CompletionStage<List<Ingest.Outcome>> fromPeer(List<Event> events, String did) {
                fromPeer.add(events);
                CompletableFuture<Void> gate = ingestGate;
                CompletableFuture<List<Ingest.Outcome>> out = new CompletableFuture<>();
                Runnable work = () -> writer.execute(() -> {
                    List<Ingest.Outcome> outcomes = new ArrayList<>();
                    List<Event> ok = new ArrayList<>();
                    for (Event e : events) {
                        String bad = Events.verify(e);
                        if (bad != null) {
                            outcomes.add(new Ingest.Outcome(e.id(), Ingest.Status.REFUSED, bad));
                        } else if (refuseOnce.remove(e.id().hex())) {
                            outcomes.add(new Ingest.Outcome(e.id(), Ingest.Status.REFUSED,
                                    "rate-limited: the relay is busy writing"));
                        } else {
                            outcomes.add(null);
                            ok.add(e);
                        }
                    }
                    List<SaveOutcome> saved = store.save(ok);
                    int j = 0;
                    for (int i = 0; i < outcomes.size(); i++) {
                        if (outcomes.get(i) == null) {
                            SaveOutcome s = saved.get(j++);
                            outcomes.set(i, new Ingest.Outcome(events.get(i).id(), s == SaveOutcome.STORED
                                    ? Ingest.Status.ACCEPTED : Ingest.Status.DUPLICATE, s == SaveOutcome.STORED ? ""
                                            : "duplicate: already have this event"));
                        }
                    }
                    delivery.committed();
                    out.complete(outcomes);
                });
                if (gate == null) {
                    work.run();
                } else {
                    gate.thenRun(work);
                }
                return out;
            }

            @Override
            public CompletionStage<List<Ingest.Outcome>> own(Event event) {
                store.save(List.of(event));
                return CompletableFuture.completedFuture(List.of(new Ingest.Outcome(event.id(),
                        Ingest.Status.ACCEPTED, "")));
            }
        };

        PeerAccount account(Node peer) {
            return new PeerAccount(peer.shortDid(), Optional.empty(), LinkPolicy.DEFAULT, System::nanoTime, millis::get);
        }
    }

    /** One direction of a link: an ordered channel to the far end's carrier. */
    final class Channel implements EventLink.Wire {
        final Node from;
        final Node to;
        final ThreadPoolExecutor thread;
        volatile Carrier target;
        /** When set, messages go to the far end's whole link session (an EventLink) instead of its carrier. */
        volatile java.util.function.Consumer<String> session;
        volatile boolean cut;
        /** Rewrites (or drops, by returning null) each message before it leaves. */
        volatile Function<String, String> tamper = Function.identity();
        final List<String> sent = new CopyOnWriteArrayList<>();
        final List<String> errors = new CopyOnWriteArrayList<>();
        private final List<String> held = new ArrayList<>();
        private boolean holding = true;

        Channel(Node from, Node to) {
            this.from = from;
            this.to = to;
            this.thread = executor(from.name + "->" + to.name, 1);
        }

        @Override
        public void send(String text) {
            if (cut) {
                return;
            }
            String t = tamper.apply(text);
            if (t == null) {
                return;
            }
            sent.add(t);
            synchronized (this) {
                if (holding) {
                    held.add(t);
                    return;
                }
                thread.execute(() -> deliver(t));
            }
        }

        synchronized void hold() {
            holding = true;
        }

        void release() {
            // under the lock: a message sent while the held ones are handed over must not overtake them
            synchronized (this) {
                holding = false;
                for (String t : held) {
                    thread.execute(() -> deliver(t));
                }
                held.clear();
            }
        }

        private void deliver(String text) {
            java.util.function.Consumer<String> to = session;
            if (!cut && to != null) {
                if (text.startsWith("[\"MESH-ERR\"")) {
                    errors.add(text);
                }
                to.accept(text);
                return;
            }
            Carrier c = target;
            if (cut || c == null) {
                return;
            }
            try (EventFrame.Reader r = EventFrame.header(text, 1000)) {
                if (r.isEvents()) {
                    List<String> events = r.events(1000);
                    c.frame(r.seq(), r.headerJson(), events, Utf8.length(text));
                } else if (r.type().equals("MESH-ERR")) {
                    errors.add(text);
                } else if (!c.receive(r.type(), text)) {
                    errors.add("unsupported " + text);
                }
            } catch (EventFrame.Unreadable e) {
                errors.add("unreadable " + e.getMessage());
            }
        }

        @Override
        public void end(Refusal refusal) {
            errors.add("end " + refusal.reason());
        }

        @Override
        public PeerIdentity peer() {
            return to.identity();
        }

        /** Messages of {@code type} this end sent. */
        List<String> sent(String type) {
            return sent.stream().filter(s -> s.startsWith("[\"" + type + "\"")).toList();
        }
    }

    /** A link between two nodes: a carrier on each end. */
    final class Link {
        final Node a;
        final Node b;
        final Channel ab;
        final Channel ba;
        Carrier atA;
        Carrier atB;

        Link(Node a, Node b) {
            this.a = a;
            this.b = b;
            this.ab = new Channel(a, b);
            this.ba = new Channel(b, a);
        }

        /** Cuts the link: nothing more crosses; both carriers hear it closed, after what they were handling. */
        void cut() {
            ab.cut = true;
            ba.cut = true;
            CompletableFuture<Void> x = CompletableFuture.runAsync(() -> atA.closed(), ba.thread);
            CompletableFuture<Void> y = CompletableFuture.runAsync(() -> atB.closed(), ab.thread);
            x.join();
            y.join();
        }
    }

    /** Opens a link: both carriers open, then the channels flow. */
    Link link(Node a, Node b) {
        return link(a, b, Function.identity());
    }

    /** Opens a link whose messages from {@code b} to {@code a} pass through {@code tamperBA} from the first one. */
    Link link(Node a, Node b, Function<String, String> tamperBA) {
        Link l = new Link(a, b);
        l.ba.tamper = tamperBA;
        l.atA = a.delivery.open(l.ab, a.account(b));
        l.atB = b.delivery.open(l.ba, b.account(a));
        l.ba.target = l.atA;
        l.ab.target = l.atB;
        links.add(l);
        l.ab.release();
        l.ba.release();
        return l;
    }

    /** Waits for {@code condition} (the work runs on other threads); fails with {@code what} after 20 s. */
    static void await(BooleanSupplier condition, String what) {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                fail("timed out waiting until " + what);
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }

    /** Waits until every thread of the mesh is idle twice in a row: everything sent so far has been handled. */
    void quiesce() {
        int quiet = 0;
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (quiet < 3) {
            boolean idle = executors.stream().allMatch(e -> e.getActiveCount() == 0 && e.getQueue().isEmpty());
            quiet = idle ? quiet + 1 : 0;
            if (System.nanoTime() > end) {
                fail("the mesh did not settle");
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        for (Node n : nodes) {
            n.delivery.close();
        }
        executors.forEach(ThreadPoolExecutor::shutdownNow);
    }
}
