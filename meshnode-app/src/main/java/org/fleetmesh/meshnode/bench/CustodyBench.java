package org.fleetmesh.meshnode.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.fleetmesh.delivery.log.CompactRange;
import org.fleetmesh.delivery.log.CustodyProof;
import org.fleetmesh.delivery.log.Merkle;
import org.fleetmesh.delivery.log.Receipt;
import org.fleetmesh.delivery.log.ReceiptCheck;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;

/**
 * Single-thread rates of the custody log (docs/spec/custody.md): the sender's full check of a receipt for a frame of
 * {@code --frame} events (signature, form, prev, consistency proof, counts, root), and the offline verification of
 * custody proofs in a tree of {@code --leaves} leaves, next to the BIP-340 verification rate of the same run.
 */
public final class CustodyBench {
    private static volatile Object sink;

    private record Step(ReceiptCheck.Mirror mirror, ReceiptCheck.Frame frame, Event receipt, List<byte[]> consistency,
            List<EventId> appended) {
    }

    public static void main(String[] args) throws Exception {
        Args a = new Args(args, "--seconds", "--frame", "--leaves");
        double seconds = a.getDouble("--seconds", 3);
        int frameEvents = a.getInt("--frame", 100);
        int leaves = a.getInt("--leaves", 100_000);
        if (frameEvents < 1 || leaves < 1) {
            throw new IllegalArgumentException("--frame and --leaves are at least 1");
        }
        Random random = new Random(1);
        byte[] receiverSecret = Schnorr.newSecretKey();
        PubKey receiver = new PubKey(Schnorr.publicKey(receiverSecret));
        PubKey sender = new PubKey(Schnorr.publicKey(Schnorr.newSecretKey()));

        // a chain of 64 receipts, one per frame, each checked against the mirror before it
        List<Step> steps = new ArrayList<>();
        ReceiptCheck.Mirror mirror = ReceiptCheck.Mirror.start(receiver, sender, "did:peer:4zQmBench");
        CompactRange range = CompactRange.empty();
        long bytes = 0;
        int next = 0;
        for (int f = 0; f < 64; f++) {
            List<ReceiptCheck.FrameEvent> events = new ArrayList<>();
            List<EventId> appended = new ArrayList<>();
            List<byte[]> hashes = new ArrayList<>();
            for (int i = 0; i < frameEvents; i++) {
                EventId id = id(next++);
                int size = 200 + random.nextInt(800);
                events.add(new ReceiptCheck.FrameEvent(id, size, 0));
                appended.add(id);
                hashes.add(Merkle.leafHash(id));
                bytes += size;
            }
            List<byte[]> consistency = range.consistencyProof(hashes);
            range = range.appendAll(hashes);
            Receipt r = Receipt.sign(receiverSecret, 1_767_225_600L + f, sender, mirror.head() == null ? null : mirror.head().id(),
                    f + 1, range.size(), range.root(), bytes, List.of());
            ReceiptCheck.Frame frame = new ReceiptCheck.Frame(f + 1, "{\"seq\":" + (f + 1) + "}", events);
            Step s = new Step(mirror, frame, r.event(), consistency, appended);
            ReceiptCheck.Result result = ReceiptCheck.check(mirror, frame, Set.of(), r.event(), consistency, appended, 0);
            if (!(result instanceof ReceiptCheck.Ok ok)) {
                throw new IllegalStateException("the bench's own receipt does not check: " + result);
            }
            steps.add(s);
            mirror = mirror.next(ok);
        }

        // a tree of --leaves leaves, its head receipt, and proofs of 1024 random leaves
        List<byte[]> leafHashes = new ArrayList<>(leaves);
        List<EventId> ids = new ArrayList<>(leaves);
        for (int i = 0; i < leaves; i++) {
            EventId id = id(1_000_000_000 + i);
            ids.add(id);
            leafHashes.add(Merkle.leafHash(id));
        }
        Merkle.Subtrees tree = Merkle.ofLeaves(leafHashes);
        Receipt head = Receipt.sign(receiverSecret, 1_767_225_600L, sender, null, 1, leaves, Merkle.root(leafHashes), 0, List.of());
        List<CustodyProof> proofs = new ArrayList<>();
        List<String> proofJson = new ArrayList<>();
        for (int i = 0; i < 1024; i++) {
            int index = random.nextInt(leaves);
            CustodyProof p = CustodyProof.prove(ids.get(index), index, head, tree);
            if (p.verify() != null) {
                throw new IllegalStateException("the bench's own proof does not verify: " + p.verify());
            }
            proofs.add(p);
            proofJson.add(p.json());
        }

        Event ev = Events.sign(receiverSecret, 1_700_000_000L, 1, List.of(), "baseline");
        double verify = CryptoBench.rate("bip340-verify", seconds,
                () -> sink = Schnorr.verify(ev.sig().unsafeBytes(), ev.id().unsafeBytes(), ev.pubkey().unsafeBytes()));
        int[] k = { 0 };
        double receipts = CryptoBench.rate("receipt-check (" + frameEvents + "-event frame)", seconds, () -> {
            Step s = steps.get(k[0]++ & 63);
            sink = ReceiptCheck.check(s.mirror(), s.frame(), Set.of(), s.receipt(), s.consistency(), s.appended(), 0);
        });
        double proofRate = CryptoBench.rate("custody-proof-verify (" + leaves + " leaves)", seconds,
                () -> sink = proofs.get(k[0]++ & 1023).verify());
        double proofJsonRate = CryptoBench.rate("custody-proof parse+verify", seconds,
                () -> sink = CustodyProof.parse(proofJson.get(k[0]++ & 1023)).verify());
        System.out.printf("{\"bip340_verify_per_s\":%.0f,\"frame_events\":%d,\"receipts_verified_per_s\":%.0f,"
                + "\"receipt_ratio\":%.3f,\"tree_leaves\":%d,\"custody_proofs_verified_per_s\":%.0f,"
                + "\"custody_proofs_parsed_and_verified_per_s\":%.0f,\"proof_ratio\":%.3f}%n", verify, frameEvents, receipts,
                receipts / verify, leaves, proofRate, proofJsonRate, proofRate / verify);
    }

    private static EventId id(int i) {
        return new EventId(Events.sha256(("bench event " + i).getBytes(StandardCharsets.UTF_8)));
    }
}
