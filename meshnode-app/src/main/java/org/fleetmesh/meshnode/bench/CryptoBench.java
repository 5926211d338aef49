package org.fleetmesh.meshnode.bench;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.util.Random;

import org.fleetmesh.identity.DidPeer2;
import org.fleetmesh.identity.SecretKey;
import org.fleetmesh.identity.capability.CapabilityIssuer;
import org.fleetmesh.identity.capability.CapabilityRequest;
import org.fleetmesh.identity.capability.CapabilityVerifier;
import org.fleetmesh.identity.capability.Rights;
import org.fleetmesh.identity.didcomm.DidDocumentKeys;
import org.fleetmesh.identity.didcomm.Didcomm;
import org.fleetmesh.identity.didcomm.PlaintextMessage;
import org.fleetmesh.identity.didcomm.SecretResolver;
import org.fleetmesh.identity.didcomm.X25519Secret;
import org.fleetmesh.identity.didcomm.Ed25519Secret;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.nostr.nip44.ConversationKey;
import org.fleetmesh.nostr.nip44.Nip44;

/**
 * Single-thread throughput of the identity primitives, each next to the BIP-340 verification
 * rate measured in the same run (the baseline every relay pays per event).
 */
public final class CryptoBench {
    private static volatile Object sink;

    @FunctionalInterface
    interface Op {
        void run() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        Args a = new Args(args, "--seconds");
        double seconds = a.getDouble("--seconds", 3);
        SecureRandom random = new SecureRandom();

        byte[] sk = Schnorr.newSecretKey();
        Event ev = Events.sign(sk, 1_700_000_000L, 1, List.of(), "baseline");
        double verify = rate("bip340-verify", seconds,
                () -> sink = Schnorr.verify(ev.sig().unsafeBytes(), ev.id().unsafeBytes(), ev.pubkey().unsafeBytes()));

        byte[] bob = Schnorr.newSecretKey();
        ConversationKey ck = ConversationKey.of(sk, new PubKey(Schnorr.publicKey(bob)));
        String kib = IngestBench.randomText(new Random(1), 1024);
        double nip44 = rate("nip44-encrypt+decrypt-1KiB", seconds, () -> sink = Nip44.decrypt(Nip44.encrypt(kib, ck), ck));

        X25519Secret aliceX = X25519Secret.generate(random);
        X25519Secret bobX = X25519Secret.generate(random);
        Ed25519Secret aliceSign = Ed25519Secret.generate(random);
        Ed25519Secret bobSign = Ed25519Secret.generate(random);
        String alice = DidPeer2.create(List.of(new DidPeer2.PurposedKey(DidPeer2.Purpose.AUTHENTICATION, aliceSign.publicKey()),
                new DidPeer2.PurposedKey(DidPeer2.Purpose.KEY_AGREEMENT, aliceX.publicKey())), List.of());
        String bobDid = DidPeer2.create(List.of(new DidPeer2.PurposedKey(DidPeer2.Purpose.AUTHENTICATION, bobSign.publicKey()),
                new DidPeer2.PurposedKey(DidPeer2.Purpose.KEY_AGREEMENT, bobX.publicKey())), List.of());
        Didcomm didcomm = Didcomm.using(DidDocumentKeys.offline());
        SecretResolver bobSecrets = SecretResolver.of(java.util.Map.of(bobDid + "#key-2", bobX));
        PlaintextMessage msg = PlaintextMessage.builder("bench-1", "https://fleetmesh.org/bench/1.0/ping")
                .from(alice).to(bobDid).build();
        double didcommCold = rate("didcomm-authcrypt (resolve DIDs)", seconds,
                () -> sink = didcomm.unpack(didcomm.packAuthcrypt(msg, alice + "#key-2", aliceX, bobDid), bobSecrets));
        // a node keeps its peers' DID documents; resolving a did:peer each time is the cold case above
        org.fleetmesh.identity.DidResolver resolver = org.fleetmesh.identity.DidResolver.offline();
        Didcomm known = Didcomm.using(DidDocumentKeys.offline().knowing(resolver.resolve(alice)).knowing(resolver.resolve(bobDid)));
        double didcommRate = rate("didcomm-authcrypt (known DIDs)", seconds,
                () -> sink = known.unpack(known.packAuthcrypt(msg, alice + "#key-2", aliceX, bobDid), bobSecrets));

        byte[] root = new byte[32];
        random.nextBytes(root);
        CapabilityIssuer issuer = new CapabilityIssuer(new SecretKey(root), "did:example:node");
        String token = issuer.issue("did:example:worker", Rights.computeRun(1_000_000), Instant.now().plusSeconds(3600));
        CapabilityVerifier verifier = CapabilityVerifier.of(issuer.rootKey());
        double tokens = rate("capability-token-verify", seconds,
                () -> sink = verifier.authorize(token, CapabilityRequest.compute(400, Instant.now())));

        // a key hand-over as a link's reader checks it: JWS parse, the prior did:peer:4 long form resolved, Ed25519
        org.fleetmesh.identity.NodeSecrets oldKeys = org.fleetmesh.identity.NodeSecrets.of(new SecretKey(fill(0x11)),
                new SecretKey(fill(0x12)), new SecretKey(fill(0x13)));
        org.fleetmesh.identity.NodeSecrets newKeys = org.fleetmesh.identity.NodeSecrets.of(new SecretKey(fill(0x21)),
                new SecretKey(fill(0x22)), new SecretKey(fill(0x23)));
        org.fleetmesh.identity.NodeEndpoints at = org.fleetmesh.identity.NodeEndpoints.forRelay(java.util.Optional.empty(), 7777);
        String oldDid = org.fleetmesh.identity.NodeDidDocument.of(oldKeys.publicKeys(), at).did();
        String handover = org.fleetmesh.identity.KeyHandover.sign(oldDid, oldDid + "#key-1", oldKeys.transport(),
                org.fleetmesh.identity.NodeDidDocument.of(newKeys.publicKeys(), at).did(), 1_767_225_600L).jwt();
        double handovers = rate("key-handover-verify (from_prior JWT, did:peer:4 long forms)", seconds,
                () -> sink = org.fleetmesh.identity.KeyHandover.verify(handover, 1_767_225_600L, 0));

        // the Lightning adapter's BOLT-11 decoder, when this build has it (docs/OPERATING.md, "Choosing adapters")
        java.util.Optional<java.util.concurrent.Callable<Object>> bolt11Op = org.fleetmesh.meshnode.AdapterCommand.find("bolt11")
                .flatMap(org.fleetmesh.meshnode.AdapterCommand::cryptoBenchOp);
        if (bolt11Op.isPresent()) {
            java.util.concurrent.Callable<Object> op = bolt11Op.get();
            double bolt11 = rate("bolt11-decode (BOLT #11 donation example)", seconds, () -> sink = op.call());
            System.out.printf("{\"bolt11_decode_per_s\":%.0f,\"bolt11_ratio\":%.2f,", bolt11, bolt11 / verify);
        } else {
            System.out.print("{\"bolt11_decode_per_s\":null,\"bolt11_ratio\":null,");
        }
        System.out.printf("\"bip340_verify_per_s\":%.0f,\"nip44_1kib_pairs_per_s\":%.0f,\"nip44_ratio\":%.2f,"
                + "\"didcomm_authcrypt_pairs_per_s\":%.0f,\"didcomm_ratio\":%.3f,\"didcomm_cold_pairs_per_s\":%.0f,\"token_verify_per_s\":%.0f,"
                + "\"token_ratio\":%.3f,\"handover_verify_per_s\":%.0f,\"handover_ratio\":%.3f}%n", verify, nip44,
                nip44 / verify, didcommRate, didcommRate / verify, didcommCold, tokens, tokens / verify, handovers,
                handovers / verify);
    }

    private static byte[] fill(int b) {
        byte[] k = new byte[32];
        java.util.Arrays.fill(k, (byte) b);
        return k;
    }

    static double rate(String name, double seconds, Op op) throws Exception {
        long warmEnd = System.nanoTime() + (long) (seconds * 0.5e9);
        while (System.nanoTime() < warmEnd) {
            op.run();
        }
        long n = 0;
        long start = System.nanoTime(), end = start + (long) (seconds * 1e9);
        long now;
        do {
            for (int i = 0; i < 16; i++) {
                op.run();
            }
            n += 16;
            now = System.nanoTime();
        } while (now < end);
        double r = n / ((now - start) / 1e9);
        System.err.printf("%-32s %,12.0f /s%n", name, r);
        return r;
    }
}
