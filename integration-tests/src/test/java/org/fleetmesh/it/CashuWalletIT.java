package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.nut.ProofDleq;
import org.fleetmesh.settlement.cashu.token.Token;
import org.fleetmesh.settlement.cashu.token.Tokens;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code ./meshnode cashu ...} (the node's own Cashu wallet) against the simulated mint ({@link CashuMintSim}, on
 * {@code @cashu/crypto}) and cashu-ts as the independent wallet ({@link CashuTsWallet}): tokens both ways, decoding, a forged
 * DLEQ, input fees, melting with change, recovery after a mint that committed and never answered, NUT-09/13 restore,
 * NUT-14 HTLCs both ways. Every CLI run is a JVM with the data dir's embedded PostgreSQL; each test has its own data dir.
 */
class CashuWalletIT {
    private static final SecureRandom RANDOM = new SecureRandom();
    /** NUT-13's test mnemonic: the restore test's wallets derive the same secrets from it. */
    private static final String MNEMONIC = "half depart obvious quality work element tank gorilla view sugar picture humble";

    private static Path work;
    private static Path app;
    private static CashuMintSim mint;
    /** A second mint, whose keyset charges 1000 ppk per input (1 sat a proof); the melt test pays one of its invoices. */
    private static CashuMintSim feeMint;
    private static final List<Path> dataDirs = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        work = MeshnodeProcess.newDataDir("cashu-wallet");
        app = copyOfTheBuild();
        // load the token codec now: a jar re-installed by a concurrent build later cannot take classes from under us
        Tokens.decode(Tokens.encodeV3(Tokens.decode(Tokens.encodeV4(sampleToken("http://127.0.0.1:1")))));
        mint = CashuMintSim.start(work.resolve("mint.json"));
        feeMint = CashuMintSim.start(work.resolve("fee-mint.json"), "--fee-ppk", "1000");
    }

    /**
     * The packaged node, copied: the launcher then neither rebuilds from a checkout others are editing nor sees a build
     * someone replaces while this test runs.
     */
    private static Path copyOfTheBuild() throws IOException {
        Path src = Path.of(System.getProperty("meshnode.app.dir", "../meshnode-app/target/quarkus-app")).toAbsolutePath();
        assertTrue(Files.isRegularFile(src.resolve("quarkus-run.jar")), "no packaged node at " + src);
        Path dst = work.resolve("app");
        try (Stream<Path> files = Files.walk(src)) {
            for (Path f : files.toList()) {
                Path to = dst.resolve(src.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return dst;
    }

    @BeforeEach
    void mintIsUp() throws Exception {
        if (!mint.isAlive()) { // a failed crash test may have left it down
            mint.restart();
        }
    }

    @AfterAll
    static void stop() throws Exception {
        for (CashuMintSim m : new CashuMintSim[] { mint, feeMint }) {
            if (m != null) {
                m.close();
            }
        }
        for (Path d : dataDirs) {
            MeshnodeProcess.stopLeftoverPostmasters(d);
        }
        if (work != null) {
            MeshnodeProcess.deleteDataDir(work);
        }
    }

    // ---- 1. tokens between our wallet and cashu-ts ----

    @Test
    void ourTokenIsReceivedByCashuTs() throws Exception {
        Path ours = dataDir("send");
        JsonNode minted = json(ok(cli(ours, "mint", "100")));
        assertEquals(100, minted.path("minted").asLong(), minted.toString());
        assertEquals(100, minted.path("balance").asLong(), minted.toString());

        String token = ok(cli(ours, "send", "37")).stdout().strip();
        assertTrue(token.startsWith("cashuB"), token);
        CashuTsWallet bob = tsWallet("bob");
        assertEquals(37, bob.receive(mint.url(), token).path("amount").asLong());
        assertEquals(37, bob.balance().path("balance").asLong());

        JsonNode after = balance(ours);
        assertEquals(63, after.path("balance").asLong(), after.toString());
        // bob redeemed it: the balance asks the mint (NUT-07) and no longer counts it as sent (it said 37 before)
        assertEquals(0, after.path("sent").asLong(), after.toString());
    }

    @Test
    void cashuTsTokenIsCreditedOnceAndItsSecondReceiveRefused() throws Exception {
        Path ours = dataDir("receive");
        CashuTsWallet alice = tsWallet("alice");
        alice.mint(mint.url(), 64);
        String token = alice.send(mint.url(), 21).path("token").asText();

        JsonNode received = json(ok(cli(ours, "receive", token)));
        assertEquals(21, received.path("received").asLong(), received.toString());
        assertEquals(21, received.path("balance").asLong(), received.toString());

        Launcher.Run again = cli(ours, "receive", token);
        assertEquals(1, again.exit(), again.stdout() + again.stderr());
        assertTrue(again.stderr().contains("meshnode: cashu: this wallet already has proofs of this token"), again.stderr());
        assertEquals(21, balance(ours).path("balance").asLong());
    }

    @Test
    void tokenCashuTsAlreadySpentIsRefusedWithTheMintsReason() throws Exception {
        Path ours = dataDir("spent");
        CashuTsWallet alice = tsWallet("alice");
        alice.mint(mint.url(), 64);
        String token = alice.send(mint.url(), 5).path("token").asText();
        tsWallet("bob").receive(mint.url(), token);

        Launcher.Run refused = cli(ours, "receive", token);
        assertEquals(1, refused.exit(), refused.stdout() + refused.stderr());
        assertTrue(refused.stderr().contains("mint refused the swap: Token already spent. (code 11001)"), refused.stderr());
        JsonNode b = balance(ours);
        assertEquals(0, b.path("balance").asLong(), b.toString());
        assertEquals(0, b.path("pending").asLong(), b.toString());
        assertEquals(0, b.path("held").asLong(), b.toString());
    }

    // ---- 2. token decode ----

    @Test
    void tokenDecodeShowsWhatCashuTsDecodesForV4V3AndCashuTsTokens() throws Exception {
        Path ours = dataDir("decode");
        ok(cli(ours, "mint", "64"));
        String v4 = ok(cli(ours, "send", "10", "--memo", "for the fleet")).stdout().strip();
        String v3 = Tokens.encodeV3(Tokens.decode(v4)); // the same token, V3 encoded
        String sentV3 = ok(cli(ours, "send", "6", "--v3")).stdout().strip();
        CashuTsWallet alice = tsWallet("alice");
        alice.mint(mint.url(), 16);
        String theirs = alice.send(mint.url(), 7).path("token").asText();

        JsonNode d4 = decode(v4);
        assertEquals(List.of("mint", "unit", "amount", "memo", "proofs"), fields(d4));
        assertEquals(List.of("id", "amount", "secret", "C"), fields(d4.path("proofs").get(0)));
        assertEquals(10, d4.path("amount").asLong(), d4.toString());
        assertEquals("for the fleet", d4.path("memo").asText(), d4.toString());
        assertSameAsCashuTs(d4, v4);
        assertTrue(v3.startsWith("cashuA"), v3);
        assertEquals(d4, decode(v3));
        assertSameAsCashuTs(decode(v3), v3);

        assertTrue(sentV3.startsWith("cashuA"), sentV3);
        JsonNode d3 = decode(sentV3);
        assertEquals(6, d3.path("amount").asLong(), d3.toString());
        assertSameAsCashuTs(d3, sentV3);

        JsonNode dts = decode(theirs);
        assertEquals(7, dts.path("amount").asLong(), dts.toString());
        assertSameAsCashuTs(dts, theirs);
    }

    @Test
    void tokenDecodeRefusesGarbageATruncatedTokenAndABadPrefix() throws Exception {
        String v4 = Tokens.encodeV4(sampleToken(mint.url()));
        assertEquals(8, decode(v4).path("amount").asLong()); // the well-formed token decodes

        refusedDecode("cashuB" + "!!not base64!!", "invalid token: bad base64");
        // cut at a whole base64 quantum, so that the CBOR is what is short
        refusedDecode(v4.substring(0, 6 + (v4.length() - 6) / 8 * 4), "invalid token: truncated");
        refusedDecode("cashuC" + v4.substring(6), "invalid token: unknown prefix");
    }

    // ---- 3. a forged DLEQ ----

    @Test
    void tokenWithAForgedDleqIsRefusedAndTheGenuineOneIsNot() throws Exception {
        Path sender = dataDir("dleq-sender");
        Path receiver = dataDir("dleq-receiver");
        ok(cli(sender, "mint", "16"));
        String genuine = ok(cli(sender, "send", "16")).stdout().strip();
        Token t = Tokens.decode(genuine);
        Proof p = t.proofs().get(0);
        assertTrue(p.dleq() != null && p.dleq().r() != null, "our token carries the DLEQ with r: " + p);
        byte[] e = Hex.decode(p.dleq().e(), 32);
        e[7] ^= 0x01;
        List<Proof> proofs = new ArrayList<>(t.proofs());
        proofs.set(0, new Proof(p.amount(), p.id(), p.secret(), p.c(),
                new ProofDleq(Hex.encode(e), p.dleq().s(), p.dleq().r()), p.witness()));
        String forged = Tokens.encodeV4(new Token(t.mint(), t.unit(), t.memo(), proofs));

        Launcher.Run refused = cli(receiver, "receive", forged);
        assertEquals(1, refused.exit(), refused.stdout() + refused.stderr());
        assertTrue(refused.stderr().contains("invalid DLEQ proof (NUT-12)"), refused.stderr());

        // nothing was credited for the forgery (else 32), and the genuine token, the same but for e, is good
        JsonNode received = json(ok(cli(receiver, "receive", genuine)));
        assertEquals(16, received.path("received").asLong(), received.toString());
        assertEquals(16, received.path("balance").asLong(), received.toString());
    }

    // ---- 4. input fees (NUT-02) ----

    @Test
    void inputFeesAreChargedExactlyBothWays() throws Exception {
        Path ours = dataDir("fees");
        String url = feeMint.url();
        assertEquals(1000, feeMint.get("/v1/keysets").path("keysets").get(0).path("input_fee_ppk").asLong());
        assertEquals(64, json(ok(cli(ours, "mint", "64", "--mint", url))).path("balance").asLong());

        // one 64 input: fee ceil(1000/1000) = 1; 10 sent as 8 + 2, 53 kept
        Launcher.Run sent = ok(cli(ours, "send", "10", "--mint", url));
        String token = sent.stdout().strip();
        assertTrue(sent.stderr().contains("sent 10 sat; balance 53"), sent.stderr());
        assertEquals(2, decode(token).path("proofs").size());
        // cashu-ts pays 1 per input it swaps: 10 - 2
        CashuTsWallet bob = tsWallet("bob");
        assertEquals(8, bob.receive(url, token).path("amount").asLong());

        CashuTsWallet alice = tsWallet("alice");
        alice.mint(url, 64);
        String theirs = alice.send(url, 10).path("token").asText();
        assertEquals(53, alice.balance().path("balance").asLong()); // its own swap of the 64 cost 1
        int inputs = decode(theirs).path("proofs").size();
        JsonNode received = json(ok(cli(ours, "receive", theirs, "--mint", url)));
        assertEquals(10 - inputs, received.path("received").asLong(), received.toString());
        assertEquals(53 + 10 - inputs, received.path("balance").asLong(), received.toString());
    }

    // ---- 5. melt (NUT-05, NUT-08 change) ----

    @Test
    void meltPaysAnInvoiceAndTakesBackTheChange() throws Exception {
        Path ours = dataDir("melt");
        ok(cli(ours, "mint", "64"));
        // an invoice of the other mint: to ours an external payment (fee reserve 2, Lightning fee 0)
        String invoice = feeMint.post("/v1/mint/quote/bolt11", "{\"amount\":20,\"unit\":\"sat\"}").path("request").asText();

        JsonNode melt = json(ok(cli(ours, "melt", invoice)));
        assertEquals("PAID", melt.path("state").asText(), melt.toString());
        assertEquals(20, melt.path("amount").asLong(), melt.toString());
        // the 64 input: 20 paid, the unused 44 (fee reserve included) back in NUT-08 blank outputs
        assertEquals(44, melt.path("change").asLong(), melt.toString());
        assertEquals(20, melt.path("spent").asLong(), melt.toString());
        assertEquals(44, melt.path("balance").asLong(), melt.toString());
        JsonNode paid = null;
        for (JsonNode p : mint.paid()) {
            if (p.path("request").asText().equals(invoice)) {
                paid = p;
            }
        }
        assertTrue(paid != null, "the mint paid no such invoice: " + mint.paid());
        assertEquals(paid.path("preimage").asText(), melt.path("preimage").asText());
    }

    // ---- 6. crash safety: the mint commits and never answers ----

    @Test
    void sendCutOffByTheMintIsRecoveredExactly() throws Exception {
        Path ours = dataDir("crash-send");
        ok(cli(ours, "mint", "64")); // one proof, so a send of 10 needs a swap
        mint.hangNext("/v1/swap");
        Launcher.Run cut = cli(ours, Map.of("FLEETMESH_CASHU_CALL_TIMEOUT", "3s"), "send", "10");
        assertEquals(1, cut.exit(), cut.stdout() + cut.stderr());
        assertTrue(cut.stderr().contains("no answer to the swap"), cut.stderr());
        assertEquals("", cut.stdout());
        crashAndRestartTheMint();

        JsonNode pending = json(ok(cli(ours, "pending")));
        assertRecovered(pending, "swap ", "done by the mint; 6 of 6 outputs restored");
        // the 64 is spent; the 10 (never handed out) and the 54 of change are ours again
        JsonNode b = balance(ours);
        assertEquals(64, b.path("balance").asLong(), b.toString());
        assertEquals(0, b.path("pending").asLong(), b.toString());
        assertEquals(0, b.path("sent").asLong(), b.toString());
    }

    @Test
    void receiveCutOffByTheMintIsRecoveredExactly() throws Exception {
        Path ours = dataDir("crash-receive");
        CashuTsWallet alice = tsWallet("alice");
        alice.mint(mint.url(), 32);
        String token = alice.send(mint.url(), 21).path("token").asText();
        mint.hangNext("/v1/swap");
        Launcher.Run cut = cli(ours, Map.of("FLEETMESH_CASHU_CALL_TIMEOUT", "3s"), "receive", token);
        assertEquals(1, cut.exit(), cut.stdout() + cut.stderr());
        assertTrue(cut.stderr().contains("no answer to the swap"), cut.stderr());
        crashAndRestartTheMint();

        JsonNode pending = json(ok(cli(ours, "pending")));
        assertRecovered(pending, "swap ", "done by the mint; 3 of 3 outputs restored");
        JsonNode b = balance(ours);
        assertEquals(21, b.path("balance").asLong(), b.toString());
        assertEquals(0, b.path("pending").asLong(), b.toString());
        for (JsonNode s : alice.check(mint.url(), token).path("states")) {
            assertEquals("SPENT", s.path("state").asText());
        }
    }

    @Test
    void mintCutOffByTheMintIsRecoveredExactly() throws Exception {
        Path ours = dataDir("crash-mint");
        mint.hangNext("/v1/mint/bolt11");
        Launcher.Run cut = cli(ours, Map.of("FLEETMESH_CASHU_CALL_TIMEOUT", "3s"), "mint", "48");
        assertEquals(1, cut.exit(), cut.stdout() + cut.stderr());
        assertTrue(cut.stdout().startsWith("lnbcrt"), cut.stdout()); // the invoice came before the cut
        assertTrue(cut.stderr().contains("no answer to the mint request"), cut.stderr());
        crashAndRestartTheMint();

        JsonNode pending = json(ok(cli(ours, "pending")));
        assertRecovered(pending, "mint ", "done by the mint; 2 proofs restored");
        assertEquals(0, pending.path("open_mint_quotes").size(), pending.toString());
        JsonNode b = balance(ours);
        assertEquals(48, b.path("balance").asLong(), b.toString());
        assertEquals(0, b.path("pending").asLong(), b.toString());
    }

    // ---- 7. restore (NUT-09, NUT-13) ----

    @Test
    void aFreshWalletWithTheSameMnemonicRestoresExactlyTheUnspentAmount() throws Exception {
        Map<String, String> seed = Map.of("FLEETMESH_CASHU_MNEMONIC", MNEMONIC);
        Path first = dataDir("restore-first");
        ok(cli(first, seed, "mint", "50")); // 32 + 16 + 2
        String token = ok(cli(first, seed, "send", "20")).stdout().strip(); // swaps the 32: 16 + 4 sent, 8 + 4 kept
        assertEquals(20, tsWallet("bob").receive(mint.url(), token).path("amount").asLong());

        Path second = dataDir("restore-second");
        JsonNode restored = json(ok(cli(second, seed, "restore")));
        // signed: 32, 16, 2 and 16, 4, 8, 4; unspent: 16, 2, 8, 4
        assertEquals(7, restored.path("signed").asLong(), restored.toString());
        assertEquals(4, restored.path("restored").asLong(), restored.toString());
        assertEquals(30, restored.path("amount").asLong(), restored.toString());
        assertEquals(30, restored.path("balance").asLong(), restored.toString());

        // the counters moved past what the mint signed: new outputs are not "already signed"
        JsonNode minted = json(ok(cli(second, seed, "mint", "10")));
        assertEquals(40, minted.path("balance").asLong(), minted.toString());
    }

    // ---- 8. NUT-14 HTLCs both ways ----

    @Test
    void cashuTsHtlcToOurKeyIsClaimedWithThePreimageOnly() throws Exception {
        Path ours = dataDir("htlc-claim");
        String key = json(ok(cli(ours, "key"))).path("key").asText();
        assertTrue(key.matches("0[23][0-9a-f]{64}"), key);
        String preimage = random32();
        CashuTsWallet alice = tsWallet("alice");
        alice.mint(mint.url(), 64);
        String token = alice.lockHtlc(mint.url(), 8, sha256(preimage), key, now() + 3600, pub(random32()))
                .path("token").asText();

        Launcher.Run wrong = cli(ours, "claim", token, "--preimage", random32());
        assertEquals(1, wrong.exit(), wrong.stdout() + wrong.stderr());
        assertTrue(wrong.stderr().contains("not an HTLC on this preimage's hash"), wrong.stderr());

        JsonNode claimed = json(ok(cli(ours, "claim", token, "--preimage", preimage)));
        assertEquals(8, claimed.path("claimed").asLong(), claimed.toString());
        assertEquals(8, claimed.path("balance").asLong(), claimed.toString());
        for (JsonNode s : alice.check(mint.url(), token).path("states")) {
            assertEquals("SPENT", s.path("state").asText());
            assertEquals(preimage, NostrClient.tree(s.path("witness").asText()).path("preimage").asText());
        }
    }

    @Test
    void ourHtlcIsClaimedByCashuTsAndTheWitnessShowsThePreimage() throws Exception {
        Path ours = dataDir("htlc-lock");
        ok(cli(ours, "mint", "16"));
        String preimage = random32();
        String bobKey = random32();
        String token = ok(cli(ours, "lock", "4", "--hash", sha256(preimage), "--to", pub(bobKey), "--locktime",
                Long.toString(now() + 3600))).stdout().strip();

        CashuTsWallet bob = tsWallet("bob");
        assertEquals(4, bob.claimHtlc(mint.url(), token, preimage, bobKey).path("amount").asLong());
        JsonNode states = bob.check(mint.url(), token).path("states");
        assertFalse(states.isEmpty());
        for (JsonNode s : states) {
            assertEquals("SPENT", s.path("state").asText());
            assertEquals(preimage, NostrClient.tree(s.path("witness").asText()).path("preimage").asText());
        }
    }

    @Test
    void ourExpiredHtlcIsRefundedToUs() throws Exception {
        Path ours = dataDir("htlc-refund");
        ok(cli(ours, "mint", "16"));
        long locktime = now() + 2;
        ok(cli(ours, "lock", "4", "--hash", sha256(random32()), "--to", pub(random32()), "--locktime",
                Long.toString(locktime)));
        while (now() <= locktime) { // past it, by the mint's clock as well as ours
            Thread.sleep(200);
        }
        JsonNode refunded = json(ok(cli(ours, "refund")));
        assertEquals(4, refunded.path("refunded").asLong(), refunded.toString());
        assertEquals(16, refunded.path("balance").asLong(), refunded.toString());
    }

    // ---- helpers ----

    /**
     * A well-formed token of one 8 sat proof: secret and C from NUT-00's example, the DLEQ from NUT-12's test vector
     * (another proof's; only the shape matters here).
     */
    private static Token sampleToken(String mintUrl) {
        return new Token(mintUrl, "sat", null, List.of(new Proof(8, "00ad268c4d1f5826",
                "407915bc212be61a77e3e6d2aeb4c727980bda51cd06a6afc29e2861768a7837",
                "02bc9097997d81afb2cc7346b5e4345a9346bd2a506eb7958598a72f0cf85163ea",
                new ProofDleq("b31e58ac6527f34975ffab13e70a48b6d2b0d35abc4b03f0151f09ee1a9763d4",
                        "8fbae004c59e754d71df67e392b6ae4e29293113ddc2ec86592a0431d16306d8",
                        "a6d13fcd7a18442e6076f5e1e7c887ad5de40a019824bdfa9fe740d302e8d861"), null)));
    }

    private static Path dataDir(String name) throws IOException {
        Path d = Files.createDirectories(work.resolve(name));
        synchronized (dataDirs) {
            dataDirs.add(d);
        }
        return d;
    }

    private static CashuTsWallet tsWallet(String name) throws Exception {
        return new CashuTsWallet(work.resolve("ts-" + name + "-" + Long.toHexString(RANDOM.nextLong()) + ".json"));
    }

    private static Launcher.Run cli(Path dataDir, String... args) throws Exception {
        return cli(dataDir, Map.of(), args);
    }

    /** {@code ./meshnode cashu <args>} on {@code dataDir}, the first mint configured, this test's copy of the build. */
    private static Launcher.Run cli(Path dataDir, Map<String, String> env, String... args) throws Exception {
        Map<String, String> all = new HashMap<>(env);
        all.put("MESHNODE_APP", app.toString());
        // each run is a short JVM: C1 only and the serial collector halve its CPU time on a busy machine
        all.put("JAVA_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
        all.put("FLEETMESH_CASHU_MINT_URL", mint.url());
        String[] cmd = new String[args.length + 1];
        cmd[0] = "cashu";
        System.arraycopy(args, 0, cmd, 1, args.length);
        return Launcher.run(dataDir, all, null, cmd);
    }

    private static Launcher.Run ok(Launcher.Run r) {
        assertEquals(0, r.exit(), "exit " + r.exit() + "\nstdout:\n" + r.stdout() + "\nstderr:\n" + r.stderr());
        return r;
    }

    /** The JSON a command printed (after the bolt11 line of a {@code mint}). */
    private static JsonNode json(Launcher.Run r) {
        int at = r.stdout().indexOf('{');
        assertTrue(at >= 0, "no JSON on stdout:\n" + r.stdout() + "\nstderr:\n" + r.stderr());
        return NostrClient.tree(r.stdout().substring(at));
    }

    private static JsonNode balance(Path dataDir) throws Exception {
        return json(ok(cli(dataDir, "balance")));
    }

    private static JsonNode decode(String token) throws Exception {
        return json(ok(cli(work, "token", "decode", token)));
    }

    private static void refusedDecode(String token, String reason) throws Exception {
        Launcher.Run r = cli(work, "token", "decode", token);
        assertEquals(1, r.exit(), r.stdout() + r.stderr());
        assertEquals("", r.stdout());
        assertEquals("meshnode: cashu: " + reason, r.stderr().strip());
    }

    /** Our decoding of {@code token} shows what cashu-ts's getDecodedToken makes of it, proof by proof. */
    private static void assertSameAsCashuTs(JsonNode ours, String token) throws Exception {
        List<String> ids = new ArrayList<>();
        for (CashuMintSim m : new CashuMintSim[] { mint, feeMint }) {
            m.get("/v1/keysets").path("keysets").forEach(k -> ids.add(k.path("id").asText()));
        }
        NodeJs.Run r = NodeJs.run(CashuMintSim.install(), 60, "node", "--input-type=module", "-e", """
                import { getDecodedToken } from '@cashu/cashu-ts';
                const [token, ids] = process.argv.slice(1);
                const d = getDecodedToken(token, JSON.parse(ids));
                const num = (x) => Number(typeof x === 'object' && x !== null && 'toNumber' in x ? x.toNumber() : x);
                process.stdout.write(JSON.stringify({ mint: d.mint, unit: d.unit ?? null, memo: d.memo ?? null,
                  proofs: d.proofs.map((p) => ({ id: p.id, amount: num(p.amount), secret: p.secret, C: p.C })) }));
                """, token, toJsonArray(ids));
        assertEquals(0, r.exit(), r.stdout() + r.stderr());
        JsonNode theirs = NostrClient.tree(r.stdout());
        assertEquals(theirs.path("mint").asText(), ours.path("mint").asText());
        assertEquals(theirs.path("unit").asText("sat"), ours.path("unit").asText("sat"));
        assertEquals(theirs.path("memo"), ours.path("memo"));
        assertEquals(theirs.path("proofs").size(), ours.path("proofs").size(), theirs + "\n" + ours);
        long sum = 0;
        for (int i = 0; i < theirs.path("proofs").size(); i++) {
            JsonNode t = theirs.path("proofs").get(i);
            JsonNode o = ours.path("proofs").get(i);
            // cashu-ts resolves a V4 short keyset id to the full one; our decode shows the id as the token has it
            assertTrue(t.path("id").asText().startsWith(o.path("id").asText()), t + " vs " + o);
            assertEquals(t.path("amount").asLong(), o.path("amount").asLong(), t + " vs " + o);
            assertEquals(t.path("secret").asText(), o.path("secret").asText());
            assertEquals(t.path("C").asText(), o.path("C").asText());
            sum += o.path("amount").asLong();
        }
        assertEquals(sum, ours.path("amount").asLong(), ours.toString());
    }

    private static List<String> fields(JsonNode n) {
        List<String> names = new ArrayList<>();
        n.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static String toJsonArray(List<String> ids) {
        StringBuilder b = new StringBuilder("[");
        for (String id : ids) {
            b.append(b.length() > 1 ? "," : "").append('"').append(id).append('"');
        }
        return b.append(']').toString();
    }

    /** SIGKILL the mint while it holds the request it committed, and start it again on its state. */
    private static void crashAndRestartTheMint() throws Exception {
        try {
            assertEquals(1, mint.hung(), "the mint holds the request it never answered");
        } finally {
            // even when the check fails, so the next test does not start on a mint holding a request
            mint.kill();
            mint.restart();
        }
    }

    private static void assertRecovered(JsonNode pending, String kind, String outcome) {
        JsonNode lines = pending.path("recovery");
        assertEquals(1, lines.size(), pending.toString());
        String line = lines.get(0).asText();
        assertTrue(line.startsWith(kind) && line.endsWith(": " + outcome), line);
        assertTrue(pending.path("complete").asBoolean(), pending.toString());
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    private static String random32() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return Hex.encode(b);
    }

    private static String sha256(String hex) throws Exception {
        return Hex.encode(MessageDigest.getInstance("SHA-256").digest(Hex.decode(hex, 32)));
    }

    // NUT-11 compares keys by x; BIP-340 keys are x-only, so "02" + x is the key
    private static String pub(String secretHex) {
        return "02" + Hex.encode(Schnorr.publicKey(Hex.decode(secretHex, 32)));
    }
}
