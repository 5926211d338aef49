package org.fleetmesh.standing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fleetmesh.delivery.log.CompactRange;
import org.fleetmesh.delivery.log.CustodyReset;
import org.fleetmesh.delivery.log.Merkle;
import org.fleetmesh.delivery.log.Receipt;
import org.fleetmesh.delivery.log.ReceiptCheck;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.identity.SecretKey;
import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.Item;
import org.fleetmesh.negentropy.SortedVector;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.grant.Grant;
import org.fleetmesh.peering.grant.GrantTerms;
import org.fleetmesh.shards.Claim;
import org.fleetmesh.shards.ClaimException;
import org.fleetmesh.shards.ClaimMismatch;
import org.fleetmesh.shards.Shard;
import org.fleetmesh.shards.ShardFigures;
import org.fleetmesh.shards.Withholding;
import org.fleetmesh.spi.peers.Evidence;

/**
 * Two nodes with fixed keys, an observer and a subject, and real evidence of each type about the subject, made the
 * way the mechanisms that find it make it (custody checks, sampling, the S3 record).
 */
final class TestFindings {
    static final NodeEndpoints ENDPOINTS = NodeEndpoints.of("ws://127.0.0.1:1/", "ws://127.0.0.1:1/mesh",
            "http://127.0.0.1:1/didcomm");
    static final NodeSecrets OBSERVER = secrets(0x11);
    static final NodeSecrets SUBJECT = secrets(0x21);
    static final NodeSecrets THIRD = secrets(0x31);
    static final String OBSERVER_DID = did(OBSERVER);
    static final String SUBJECT_DID = did(SUBJECT);
    static final String THIRD_DID = did(THIRD);
    static final PubKey OBSERVER_KEY = key(OBSERVER);
    static final PubKey SUBJECT_KEY = key(SUBJECT);
    static final PubKey THIRD_KEY = key(THIRD);
    static final long AT = 1_767_225_600L; // 2026-01-01T00:00:00Z
    static final byte[] ZERO_AUX = new byte[32];
    static final byte[] AUTHOR = fill(0x41);
    static final long GRACE = 300;

    private TestFindings() {
    }

    static byte[] fill(int b) {
        byte[] k = new byte[32];
        Arrays.fill(k, (byte) b);
        return k;
    }

    static NodeSecrets secrets(int b) {
        return NodeSecrets.of(new SecretKey(fill(b)), new SecretKey(fill(b + 1)), new SecretKey(fill(b + 2)));
    }

    static String did(NodeSecrets s) {
        return NodeDidDocument.of(s.publicKeys(), ENDPOINTS).did();
    }

    static PubKey key(NodeSecrets s) {
        return new PubKey(org.fleetmesh.nostr.Schnorr.publicKey(s.nostr().bytes()));
    }

    static EventId id(int i) {
        return new EventId(Events.sha256(("event " + i).getBytes(StandardCharsets.UTF_8)));
    }

    private static List<byte[]> leaves(List<EventId> ids) {
        return ids.stream().map(Merkle::leafHash).toList();
    }

    private static ReceiptCheck.Frame frame(long seq, int... numbers) {
        List<ReceiptCheck.FrameEvent> evs = new ArrayList<>();
        for (int n : numbers) {
            evs.add(new ReceiptCheck.FrameEvent(id(n), 200 + n, 0));
        }
        String header = "{\"seq\":" + seq + ",\"count\":" + evs.size() + "}";
        return new ReceiptCheck.Frame(seq, header, evs);
    }

    /** The subject's first honest receipt (events 0, 1, 2), then a second one whose tree is smaller: a fork. */
    static String custodyFork() {
        byte[] receiver = SUBJECT.nostr().bytes();
        List<EventId> first = List.of(id(0), id(1), id(2));
        CompactRange range = CompactRange.empty().appendAll(leaves(first));
        Receipt r1 = Receipt.sign(receiver, AT, OBSERVER_KEY, null, 1, 3, range.root(), 603, List.of(), ZERO_AUX);
        ReceiptCheck.Mirror m1 = new ReceiptCheck.Mirror(SUBJECT_KEY, OBSERVER_KEY, PeerIdentity.shortForm(SUBJECT_DID),
                r1, range);
        byte[] smaller = Merkle.root(leaves(first.subList(0, 2)));
        Receipt lie = Receipt.sign(receiver, AT + 1, OBSERVER_KEY, r1.id(), 2, 2, smaller, 610, List.of(), ZERO_AUX);
        ReceiptCheck.Result r = ReceiptCheck.check(m1, frame(2, 3, 4), Set.of(), lie.event(), List.of(), List.of(),
                (AT + 2) * 1000);
        if (!(r instanceof ReceiptCheck.Breach b)) {
            throw new IllegalStateException("the lie passed: " + r);
        }
        return b.evidence();
    }

    /** The subject's receipt of size 3, then its reset of that chain. */
    static String custodyReset() {
        byte[] receiver = SUBJECT.nostr().bytes();
        CompactRange range = CompactRange.empty().appendAll(leaves(List.of(id(0), id(1), id(2))));
        Receipt r1 = Receipt.sign(receiver, AT, OBSERVER_KEY, null, 1, 3, range.root(), 603, List.of(), ZERO_AUX);
        Event reset = CustodyReset.sign(receiver, AT + 10, OBSERVER_KEY, r1.id(), ZERO_AUX);
        return CustodyReset.evidence(PeerIdentity.shortForm(SUBJECT_DID), SUBJECT_KEY, OBSERVER_KEY, r1, reset, null,
                (AT + 11) * 1000);
    }

    private static final Shard SHARD = new Shard("notes", new Filter(null, null, Set.of(1), Map.of(), null, null, null),
            Shard.Mode.ASSERTED);

    private static List<Event> notes(int n) {
        List<Event> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Events.sign(AUTHOR, AT - 3600 + i, 1, List.of(), "note " + i));
        }
        return out;
    }

    private static List<Item> items(List<Event> events) {
        return events.stream().map(e -> new Item(e.createdAt(), Id.of(e.id().toBytes()))).sorted().toList();
    }

    private static ShardFigures figures(List<Item> items) {
        SortedVector.Builder b = SortedVector.builder();
        items.forEach(b::insert);
        return ShardFigures.of(b.seal());
    }

    /** The subject asserts a shard of ten notes and serves nine: the withheld one, asked for by id. */
    static String withholding() {
        try {
            List<Event> all = notes(10);
            Claim claim = Claim.read(Claim.sign(SHARD, figures(items(all.subList(1, 10))), AT, SUBJECT.nostr().bytes()));
            List<EventId> asked = List.of(all.get(1).id(), all.get(2).id(), all.get(0).id());
            String req = Withholding.request("k3x9", asked);
            return new Withholding(SUBJECT_DID, OBSERVER_DID, claim, all.get(0), req, Set.copyOf(asked.subList(0, 2)),
                    true, GRACE, AT + 60).json();
        } catch (ClaimException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The subject claims count 11 of a set whose root it claims: it serves that set, of 10. */
    static String claimMismatch() {
        try {
            List<Item> served = items(notes(10));
            ShardFigures real = figures(served);
            ShardFigures claimed = new ShardFigures(11, real.fingerprint(), real.root());
            Claim claim = Claim.read(Claim.sign(SHARD, claimed, AT, SUBJECT.nostr().bytes()));
            String request = "[" + org.fleetmesh.shards.ShardFilter.canonicalJson(SHARD.filter()) + "]";
            return new ClaimMismatch(SUBJECT_DID, OBSERVER_DID, claim, request, served, AT + 60).json();
        } catch (ClaimException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The subject claims the fingerprint and count of a set of ten notes, with another root. */
    static String claimMismatchByFingerprint() {
        try {
            List<Item> served = items(notes(10));
            ShardFigures real = figures(served);
            byte[] otherRoot = real.root().clone();
            otherRoot[0] ^= 1;
            ShardFigures claimed = new ShardFigures(10, real.fingerprint(), otherRoot);
            Claim claim = Claim.read(Claim.sign(SHARD, claimed, AT, SUBJECT.nostr().bytes()));
            String request = "[" + org.fleetmesh.shards.ShardFilter.canonicalJson(SHARD.filter()) + "]";
            return new ClaimMismatch(SUBJECT_DID, OBSERVER_DID, claim, request, served, AT + 60).json();
        } catch (ClaimException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The grant the observer gave the subject: both named by their short forms, as EventLinks writes them. */
    static Grant grant() {
        return Grant.sign(new GrantTerms(PeerIdentity.shortForm(OBSERVER_DID), PeerIdentity.shortForm(SUBJECT_DID), 1 << 20, 100, 60, 1,
                AT + 86_400), OBSERVER.nostr().bytes(), AT - 600, ZERO_AUX);
    }

    /** The S3 record EventLinks writes when the subject's violations pass the threshold. */
    static Evidence budgetRecord() {
        Grant g = grant();
        String detail = "{\"refused_frames\":20,\"refused_bytes\":81920,\"refused_events\":400,\"used_bytes\":1048576,"
                + "\"used_events\":100,\"grant_bytes\":1048576,\"grant_events\":100,\"window\":60,\"tier\":1,"
                + "\"violations_total\":16,\"threshold\":16,\"tolerance\":0}";
        return new Evidence(7, PeerIdentity.shortForm(SUBJECT_DID), "S3", "quarantined: 16 violations in 60 s", 16,
                AT * 1000, AT * 1000 + 30_000, AT * 1000 + 3_630_000, g.event().id().hex(), g.event().json(), detail);
    }

    static String hash(String s) {
        return org.fleetmesh.nostr.Hex.encode(Events.sha256(s.getBytes(StandardCharsets.UTF_8)));
    }

    /** A job statement signed by {@code secret}: module, input, output (and fuel when not null). */
    static Event statement(byte[] secret, long createdAt, String output, String fuel) {
        List<List<String>> tags = new ArrayList<>(List.of(List.of("module", hash("module")), List.of("input", hash("input")),
                List.of("output", hash(output))));
        if (fuel != null) {
            tags.add(List.of("fuel", fuel));
        }
        return Events.sign(secret, createdAt, 30811, tags, "");
    }

    static String computeEquivocation() {
        byte[] s = SUBJECT.nostr().bytes();
        return FindingEvidence.computeEquivocation(statement(s, AT, "result a", "1200"),
                statement(s, AT + 5, "result b", "1200"));
    }

    /** A finding by the observer about the subject. */
    static Event finding(Severity severity, Scope scope, String rule, String evidence) {
        return Finding.sign(OBSERVER_DID, SUBJECT_KEY, SUBJECT_DID, severity, scope, rule, evidence, AT + 100,
                OBSERVER.nostr().bytes(), ZERO_AUX);
    }

    /** The finding the evidence's draft makes: severity, scope and rule as its type says. */
    static Event finding(String evidence) {
        Draft d = FindingEvidence.draft(evidence);
        return finding(d.severity(), d.scope(), d.rule(), evidence);
    }

    /** Signs an event with arbitrary tags and content as the observer (for malformed findings). */
    static Event raw(List<List<String>> tags, String content) {
        return Events.sign(OBSERVER.nostr().bytes(), AT + 100, Finding.KIND, tags, content);
    }
}
