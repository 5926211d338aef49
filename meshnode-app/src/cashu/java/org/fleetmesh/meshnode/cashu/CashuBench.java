package org.fleetmesh.meshnode.cashu;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fleetmesh.meshnode.bench.Args;

import org.bouncycastle.math.ec.ECPoint;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.settlement.cashu.crypto.Bdhke;
import org.fleetmesh.settlement.cashu.crypto.Dleq;
import org.fleetmesh.settlement.cashu.crypto.Secp256k1;
import org.fleetmesh.settlement.cashu.mint.HttpMintClient;
import org.fleetmesh.settlement.cashu.mint.MintApi;
import org.fleetmesh.settlement.cashu.mint.MintQuote;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.nut.ProofDleq;
import org.fleetmesh.settlement.cashu.store.MemoryCashuStore;
import org.fleetmesh.settlement.cashu.token.Token;
import org.fleetmesh.settlement.cashu.token.Tokens;
import org.fleetmesh.settlement.cashu.wallet.Wallet;

/**
 * Single-thread throughput of the Cashu wallet's primitives (NUT-00 BDHKE, NUT-12 DLEQ, tokens V3/V4), each next to
 * BIP-340 verification measured in the same run; with {@code --mint URL}, the swap round trip through {@link Wallet}
 * against that mint, with the share of each operation spent outside the mint's HTTP calls (our client side).
 *
 * <p>Usage: {@code bench cashu [--seconds 1] [--rounds 5] [--mint URL] [--swaps 300] [--warmup-swaps 50]}.
 */
public final class CashuBench {
    private static volatile Object sink;
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Operands rotate through a pool so no call sees the previous call's inputs. */
    private static final int POOL = 256;

    private CashuBench() {
    }

    public static void main(String[] args) throws Exception {
        Args a = new Args(args);
        double seconds = Double.parseDouble(a.get("--seconds", "1"));
        int rounds = a.getInt("--rounds", 5);
        String mint = a.get("--mint", null);

        Map<String, Double> rates = new LinkedHashMap<>();
        primitives(seconds, rounds, rates);
        double base = rates.get("bip340-verify");
        System.out.println();
        System.out.printf("%-44s %14s %10s%n", "operation (single thread, median of " + rounds + ")", "ops/s", "x BIP-340");
        for (var e : rates.entrySet()) {
            System.out.printf("%-44s %,14.0f %10.3f%n", e.getKey(), e.getValue(), e.getValue() / base);
        }
        StringBuilder json = new StringBuilder("{\"schnorr_native\":").append(Schnorr.isNative());
        for (var e : rates.entrySet()) {
            json.append(",\"").append(e.getKey()).append("\":").append(Math.round(e.getValue()));
        }
        if (mint != null) {
            swaps(mint, a.getInt("--swaps", 300), a.getInt("--warmup-swaps", 50), json);
        }
        System.out.println(json.append('}'));
    }

    // ---- primitives ----

    private static void primitives(double seconds, int rounds, Map<String, Double> rates) throws Exception {
        byte[] sk = Schnorr.newSecretKey();
        Event ev = Events.sign(sk, 1_700_000_000L, 1, List.of(), "baseline");
        byte[] sig = ev.sig().unsafeBytes(), id = ev.id().unsafeBytes(), pk = ev.pubkey().unsafeBytes();
        rates.put("bip340-verify", rate("bip340-verify" + (Schnorr.isNative() ? " (JNI)" : " (portable)"), seconds,
                rounds, i -> sink = Schnorr.verify(sig, id, pk)));
        rates.put("bip340-verify-portable",
                rate("bip340-verify (BouncyCastle)", seconds, rounds, i -> sink = Schnorr.verifyPortable(sig, id, pk)));

        BigInteger k = Secp256k1.randomScalar();
        ECPoint mintKey = Secp256k1.mulG(k);
        byte[][] secrets = new byte[POOL][];
        BigInteger[] r = new BigInteger[POOL];
        ECPoint[] blinded = new ECPoint[POOL], blindSig = new ECPoint[POOL], c = new ECPoint[POOL];
        Dleq.Proof[] dleq = new Dleq.Proof[POOL];
        for (int i = 0; i < POOL; i++) {
            secrets[i] = secret().getBytes(StandardCharsets.UTF_8);
            r[i] = Secp256k1.randomScalar();
            blinded[i] = Bdhke.blind(secrets[i], r[i]);
            blindSig[i] = Bdhke.sign(blinded[i], k);
            c[i] = Bdhke.unblind(blindSig[i], r[i], mintKey);
            dleq[i] = Dleq.create(k, blinded[i]);
            if (!Bdhke.verify(secrets[i], c[i], k) || !Dleq.verifyUnblinded(mintKey, secrets[i], c[i], r[i], dleq[i])) {
                throw new IllegalStateException("BDHKE/DLEQ self-check failed");
            }
        }
        rates.put("bdhke-round", rate("bdhke round (blind+sign+unblind+verify)", seconds, rounds, i -> {
            ECPoint b = Bdhke.blind(secrets[i], r[i]);
            ECPoint cc = Bdhke.unblind(Bdhke.sign(b, k), r[i], mintKey);
            if (!Bdhke.verify(secrets[i], cc, k)) {
                throw new IllegalStateException("BDHKE round failed");
            }
        }));
        rates.put("hash-to-curve", rate("hash_to_curve", seconds, rounds, i -> sink = Bdhke.hashToCurve(secrets[i])));
        rates.put("bdhke-blind", rate("blind (wallet)", seconds, rounds, i -> sink = Bdhke.blind(secrets[i], r[i])));
        rates.put("bdhke-sign", rate("sign (mint)", seconds, rounds, i -> sink = Bdhke.sign(blinded[i], k)));
        rates.put("bdhke-unblind", rate("unblind (wallet)", seconds, rounds,
                i -> sink = Bdhke.unblind(blindSig[i], r[i], mintKey)));
        rates.put("bdhke-verify", rate("verify (mint)", seconds, rounds, i -> sink = Bdhke.verify(secrets[i], c[i], k)));
        rates.put("dleq-create", rate("dleq create (mint)", seconds, rounds, i -> sink = Dleq.create(k, blinded[i])));
        rates.put("dleq-verify-alice", rate("dleq verify, Alice (B_, C_)", seconds, rounds,
                i -> sink = Dleq.verifyBlinded(mintKey, blinded[i], blindSig[i], dleq[i])));
        rates.put("dleq-verify-carol", rate("dleq verify, Carol (secret, C, r)", seconds, rounds,
                i -> sink = Dleq.verifyUnblinded(mintKey, secrets[i], c[i], r[i], dleq[i])));

        // a token of 8 proofs with DLEQ (e, s, r), keyset id v2 (33 bytes) as current mints issue
        String keysetId = "01" + Hex.encode(bytes(32));
        List<Proof> proofs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            proofs.add(new Proof(1L << i, keysetId, new String(secrets[i], StandardCharsets.UTF_8), Secp256k1.hex(c[i]),
                    new ProofDleq(dleq[i].eHex(), dleq[i].sHex(), Hex.encode(Secp256k1.bytes32(r[i]))), null));
        }
        Token token = new Token("https://mint.example.com", "sat", null, proofs);
        String v4 = Tokens.encodeV4(token), v3 = Tokens.encodeV3(token);
        if (!Tokens.decode(v4).proofs().equals(proofs) || !Tokens.decode(v3).proofs().equals(proofs)) {
            throw new IllegalStateException("token round trip changed the proofs");
        }
        System.err.printf("token of 8 proofs with DLEQ: V4 %d chars, V3 %d chars%n", v4.length(), v3.length());
        rates.put("token-v4-encode", rate("token V4 encode (8 proofs, DLEQ)", seconds, rounds, i -> sink = Tokens.encodeV4(token)));
        rates.put("token-v4-decode", rate("token V4 decode (8 proofs, DLEQ)", seconds, rounds, i -> sink = Tokens.decode(v4)));
        rates.put("token-v3-encode", rate("token V3 encode (8 proofs, DLEQ)", seconds, rounds, i -> sink = Tokens.encodeV3(token)));
        rates.put("token-v3-decode", rate("token V3 decode (8 proofs, DLEQ)", seconds, rounds, i -> sink = Tokens.decode(v3)));
        // the baseline again at the end: how much the (shared) machine drifted within the run
        rates.put("bip340-verify-end", rate("bip340-verify, again at the end", seconds, rounds,
                i -> sink = Schnorr.verify(sig, id, pk)));
    }

    @FunctionalInterface
    interface Op {
        void run(int i) throws Exception;
    }

    /** Warm-up, then {@code rounds} timed rounds of {@code seconds}; the median rate. */
    static double rate(String name, double seconds, int rounds, Op op) throws Exception {
        int i = 0;
        long warmEnd = System.nanoTime() + (long) (Math.max(seconds, 0.5) * 1e9);
        while (System.nanoTime() < warmEnd) {
            op.run(i++ & (POOL - 1));
        }
        double[] r = new double[rounds];
        for (int round = 0; round < rounds; round++) {
            long n = 0;
            long start = System.nanoTime(), end = start + (long) (seconds * 1e9), now;
            do {
                for (int j = 0; j < 16; j++) {
                    op.run(i++ & (POOL - 1));
                }
                n += 16;
                now = System.nanoTime();
            } while (now < end);
            r[round] = n / ((now - start) / 1e9);
        }
        Arrays.sort(r);
        double median = r[rounds / 2];
        System.err.printf("%-44s %,12.0f /s  (rounds %,.0f .. %,.0f)%n", name, median, r[0], r[rounds - 1]);
        return median;
    }

    // ---- the swap round trip against a mint ----

    /** Nanoseconds spent inside MintApi calls (HTTP to the mint and its answer parsed), and how many swaps. */
    static final class Timed implements InvocationHandler {
        final MintApi target;
        long nanos;
        long swaps;

        Timed(MintApi target) {
            this.target = target;
        }

        @Override
        public Object invoke(Object proxy, java.lang.reflect.Method m, Object[] args) throws Throwable {
            long t = System.nanoTime();
            try {
                return m.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            } finally {
                nanos += System.nanoTime() - t;
                if (m.getName().equals("swap")) {
                    swaps++;
                }
            }
        }
    }

    private static void swaps(String mintUrl, int n, int warm, StringBuilder json) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build(); // as the rail builds it
        Timed timedA = new Timed(new HttpMintClient(URI.create(mintUrl), Duration.ofSeconds(30), http));
        Timed timedB = new Timed(new HttpMintClient(URI.create(mintUrl), Duration.ofSeconds(30), http));
        Wallet alice = wallet(mintUrl, timedA);
        Wallet bob = wallet(mintUrl, timedB);
        // Alice holds only 2-sat proofs, so each send of 1 is a swap (1 input -> 1 sent + 1 change)
        long t0 = System.nanoTime();
        for (int i = 0; i < n + warm; i++) {
            MintQuote q = alice.minting().quote(2);
            alice.minting().await(q.quote(), Duration.ofSeconds(10), Duration.ofMillis(5));
        }
        System.err.printf("funded: %d quotes of 2 sat in %.1f s (quote + mint each)%n", n + warm,
                (System.nanoTime() - t0) / 1e9);

        // the HTTP floor: a round trip to the mint that does no crypto (GET /v1/keysets, parsed)
        long[] floor = new long[n];
        for (int i = -warm; i < n; i++) {
            long t = System.nanoTime();
            sink = alice.mint().keysets();
            if (i >= 0) {
                floor[i] = System.nanoTime() - t;
            }
        }
        System.err.printf("GET /v1/keysets: p50 %.2f ms%n", pct(floor, 50));

        long[] send = new long[n], recv = new long[2 * n], sendHttp = new long[n], recvHttp = new long[2 * n];
        long swapsBefore = 0, loopStart = 0;
        for (int i = -warm; i < n; i++) {
            if (i == 0) {
                swapsBefore = timedA.swaps + timedB.swaps;
                loopStart = System.nanoTime();
            }
            // send 1: a swap, the token encoded as it would leave the node
            long h = timedA.nanos, t = System.nanoTime();
            String token = Tokens.encodeV4(alice.swaps().send(1, null));
            long dt = System.nanoTime() - t, dh = timedA.nanos - h;
            if (i >= 0) {
                send[i] = dt;
                sendHttp[i] = dh;
            }
            receive(bob, timedB, token, i >= 0 ? recv : null, recvHttp, 2 * Math.max(i, 0));
            // Alice's change of 1 goes the same way (an exact send, no swap), so her next send swaps again
            long swapsNow = timedA.swaps;
            String change = Tokens.encodeV4(alice.swaps().send(1, null));
            if (timedA.swaps != swapsNow) {
                throw new IllegalStateException("the change was not sent as it is");
            }
            receive(bob, timedB, change, i >= 0 ? recv : null, recvHttp, 2 * Math.max(i, 0) + 1);
        }
        double wall = (System.nanoTime() - loopStart) / 1e9;
        long swaps = timedA.swaps + timedB.swaps - swapsBefore;
        if (swaps != 3L * n) {
            throw new IllegalStateException("expected " + 3 * n + " swaps, counted " + swaps);
        }
        if (bob.balance() != 2L * (n + warm)) {
            throw new IllegalStateException("Bob holds " + bob.balance() + ", expected " + 2 * (n + warm));
        }
        double sendClient = 1 - (double) sum(sendHttp) / sum(send);
        double recvClient = 1 - (double) sum(recvHttp) / sum(recv);
        double swapsPerS = swaps / wall;
        System.out.println();
        System.out.printf("swap round trip against %s, %d rounds (1 send swap + 2 receive swaps each), single thread%n",
                mintUrl, n);
        System.out.printf("  swaps/s %.1f   rounds/s %.1f%n", swapsPerS, n / wall);
        System.out.printf("  send 1 (swap 1 -> 2, V4 encode):    p50 %.2f ms  p99 %.2f ms  client side %.0f%%%n",
                pct(send, 50), pct(send, 99), 100 * sendClient);
        System.out.printf("  receive (V4 decode, swap 1 -> 1):   p50 %.2f ms  p99 %.2f ms  client side %.0f%%%n",
                pct(recv, 50), pct(recv, 99), 100 * recvClient);
        System.out.printf("  HTTP floor (GET /v1/keysets, no crypto at the mint): p50 %.2f ms%n", pct(floor, 50));
        System.out.printf("  client side per op: send %.2f ms, receive %.2f ms (mean, outside the MintApi calls)%n",
                (sum(send) - sum(sendHttp)) / 1e6 / n, (sum(recv) - sum(recvHttp)) / 1e6 / (2 * n));
        json.append(String.format(",\"swaps_per_s\":%.1f,\"send_p50_ms\":%.2f,\"send_p99_ms\":%.2f,\"receive_p50_ms\":%.2f,"
                + "\"receive_p99_ms\":%.2f,\"send_client_share\":%.3f,\"receive_client_share\":%.3f,"
                + "\"send_client_ms\":%.3f,\"receive_client_ms\":%.3f,\"http_floor_p50_ms\":%.2f", swapsPerS, pct(send, 50), pct(send, 99),
                pct(recv, 50), pct(recv, 99), sendClient, recvClient, (sum(send) - sum(sendHttp)) / 1e6 / n,
                (sum(recv) - sum(recvHttp)) / 1e6 / (2 * n), pct(floor, 50)));
    }

    private static void receive(Wallet w, Timed timed, String token, long[] lat, long[] http, int at) throws Exception {
        long h = timed.nanos, t = System.nanoTime();
        long got = w.swaps().receive(Tokens.decode(token));
        long dt = System.nanoTime() - t, dh = timed.nanos - h;
        if (got != 1) {
            throw new IllegalStateException("received " + got + ", expected 1");
        }
        if (lat != null) {
            lat[at] = dt;
            http[at] = dh;
        }
    }

    private static Wallet wallet(String mintUrl, Timed timed) {
        MintApi api = (MintApi) Proxy.newProxyInstance(MintApi.class.getClassLoader(), new Class<?>[] { MintApi.class },
                timed);
        return new Wallet(org.fleetmesh.settlement.cashu.wallet.Mints.normalize(mintUrl), "sat", api, new MemoryCashuStore(), bytes(64), Clock.systemUTC(),
                Wallet.Options.defaults());
    }

    private static long sum(long[] a) {
        long s = 0;
        for (long x : a) {
            s += x;
        }
        return s;
    }

    /** Nearest-rank percentile, in ms. */
    private static double pct(long[] a, int p) {
        long[] s = a.clone();
        Arrays.sort(s);
        int idx = (int) Math.ceil(p / 100.0 * s.length) - 1;
        return s[Math.max(0, Math.min(s.length - 1, idx))] / 1e6;
    }

    private static String secret() {
        return Hex.encode(bytes(32));
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }
}
