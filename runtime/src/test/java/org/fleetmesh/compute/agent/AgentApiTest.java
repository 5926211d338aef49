package org.fleetmesh.compute.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;

import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.identity.SecretKey;
import org.fleetmesh.identity.capability.CapabilityIssuer;
import org.fleetmesh.identity.capability.CapabilityVerifier;
import org.fleetmesh.identity.capability.Right;
import org.fleetmesh.identity.capability.Rights;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AgentApiTest {
    static final Instant NOW = Instant.parse("2026-05-01T12:00:00Z");
    static final NodeSecrets SECRETS = NodeSecrets.of(key("01".repeat(32)), key("02".repeat(32)), key("03".repeat(32)));
    static final NodeSecrets OTHER = NodeSecrets.of(key("04".repeat(32)), key("05".repeat(32)), key("06".repeat(32)));
    static final NodeDidDocument NODE = doc(SECRETS);
    static final NodeDidDocument TRUSTED = doc(OTHER);

    FakeMarket market;
    AgentApi api;
    String module;

    static SecretKey key(String hex) {
        return new SecretKey(HexFormat.of().parseHex(hex));
    }

    static NodeDidDocument doc(NodeSecrets s) {
        return NodeDidDocument.of(s.publicKeys(), NodeEndpoints.of("ws://n.example/", "ws://n.example/mesh",
                "http://n.example/didcomm"));
    }

    static String bearer(NodeSecrets s, Rights rights) {
        return "Bearer " + CapabilityIssuer.forNode(s, doc(s)).issue("agent", rights, NOW.plusSeconds(3600));
    }

    static String compute(long fuel) {
        return bearer(SECRETS, Rights.computeRun(fuel));
    }

    @BeforeEach
    void setUp() throws Exception {
        market = new FakeMarket();
        api = api(3);
        module = market.putBlob(new byte[] {0, 'a', 's', 'm', 1, 0, 0, 0});
    }

    AgentApi api(int active) {
        AgentGuard guard = new AgentGuard(List.of(CapabilityVerifier.forNode(NODE), CapabilityVerifier.forNode(TRUSTED)),
                Clock.fixed(NOW, ZoneOffset.UTC));
        return new AgentApi(market, guard, new AgentApi.Limits(active, 100, 50, 16));
    }

    String body(long fuel) {
        return "{\"worker\":\"local\",\"module\":\"" + module + "\",\"fuel_limit\":" + fuel + ",\"args\":[\"x\"]}";
    }

    @Test
    void withoutTokenIs401WithAReason() {
        AgentApi.Answer a = api.offers(null);
        assertEquals(401, a.status());
        assertTrue(a.body().path("error").asText().contains("compute:run"), a.body().toString());
        assertEquals(401, api.offers("Basic abc").status());
        assertEquals(401, api.offers("Bearer not-a-token").status());
    }

    /** A token revoked at the node (its revoked-token file) is refused revoked from the next check on, attenuations too. */
    @Test
    void aRevokedTokenIs401FromTheNextCheck() {
        java.util.concurrent.atomic.AtomicReference<org.fleetmesh.identity.capability.RevocationList> revoked =
                new java.util.concurrent.atomic.AtomicReference<>(org.fleetmesh.identity.capability.RevocationList.empty());
        AgentApi guarded = new AgentApi(market, new AgentGuard(List.of(CapabilityVerifier.forNode(NODE)), revoked::get,
                Clock.fixed(NOW, ZoneOffset.UTC)), new AgentApi.Limits(3, 100, 50, 16));
        String token = compute(1000);
        String other = compute(1000);
        assertEquals(200, guarded.offers(token).status());
        revoked.set(org.fleetmesh.identity.capability.RevocationList.empty()
                .with(org.fleetmesh.identity.capability.Capability.tokenId(token.substring(7))));
        AgentApi.Answer a = guarded.offers(token);
        assertEquals(401, a.status());
        assertTrue(a.body().path("error").asText().startsWith("unauthorized: "), a.body().toString());
        assertTrue(a.body().path("error").asText().contains("revoked"), a.body().toString());
        assertEquals(200, guarded.offers(other).status(), "another token of the same node is not");
    }

    @Test
    void tokenOfAnotherNodeIs401() {
        NodeSecrets stranger = NodeSecrets.of(key("07".repeat(32)), key("08".repeat(32)), key("09".repeat(32)));
        AgentApi.Answer a = api.offers(bearer(stranger, Rights.computeRun(10)));
        assertEquals(401, a.status());
        assertTrue(a.body().path("error").asText().startsWith("unauthorized: bad-signature"), a.body().toString());
    }

    @Test
    void tokenWithoutComputeRunIs403() {
        AgentApi.Answer a = api.offers(bearer(SECRETS, Rights.of(Right.ADMIN_READ)));
        assertEquals(403, a.status());
        assertTrue(a.body().path("error").asText().contains("right-not-granted"), a.body().toString());
    }

    @Test
    void tokenOfATrustedDidIsAllowed() {
        assertEquals(200, api.offers(bearer(OTHER, Rights.computeRun(10))).status());
    }

    @Test
    void fuelOverTheTokensLimitIs403AndNothingIsSubmitted() {
        AgentApi.Answer a = api.submit(compute(1000), body(1001));
        assertEquals(403, a.status());
        assertTrue(a.body().path("error").asText().contains("fuel-over-limit"), a.body().toString());
        assertTrue(market.submitted.isEmpty());
        assertEquals(201, api.submit(compute(1000), body(1000)).status());
    }

    @Test
    void submitReadsTopLevelMembersWithDefaults() {
        AgentApi.Answer a = api.submit(compute(1000), body(500));
        assertEquals(201, a.status(), a.body().toString());
        JobSpec s = market.submitted.get(0).spec();
        assertEquals(module, s.module());
        assertEquals(JobSpec.sha256(new byte[0]), s.input(), "no input: the empty stdin");
        assertTrue(market.blobs.containsKey(s.input()), "the empty input is stored");
        assertEquals(List.of("x"), s.args());
        assertEquals(16, s.memoryPages());
        assertEquals(0, s.time());
        assertEquals("0".repeat(64), s.seed());
        assertEquals("", market.submitted.get(0).rail(), "no rail named: the market picks one the worker takes");
        assertEquals(false, market.submitted.get(0).autoPay());
    }

    @Test
    void submitReadsAJobObject() {
        JobSpec spec = new JobSpec(module, module, List.of(), 99, 2, 1700000000, "ab".repeat(32));
        String b = "{\"worker\":\"any\",\"job\":" + spec.canonicalJson() + ",\"max_price_msat\":5000,\"auto_pay\":true}";
        assertEquals(201, api.submit(compute(1000), b).status());
        assertEquals(spec, market.submitted.get(0).spec());
        assertEquals(5000, market.submitted.get(0).maxPriceMsat());
        assertTrue(market.submitted.get(0).autoPay());
    }

    @Test
    void badSubmissionsAre400WithTheMember() {
        String t = compute(1000);
        assertEquals(400, api.submit(t, "not json").status());
        assertEquals(400, api.submit(t, "[1]").status());
        AgentApi.Answer noWorker = api.submit(t, "{\"module\":\"" + module + "\",\"fuel_limit\":1}");
        assertTrue(noWorker.body().path("error").asText().contains("worker"), noWorker.body().toString());
        AgentApi.Answer badModule = api.submit(t, "{\"worker\":\"local\",\"module\":\"xyz\",\"fuel_limit\":1}");
        assertEquals(400, badModule.status());
        assertTrue(badModule.body().path("error").asText().contains("module"), badModule.body().toString());
        AgentApi.Answer price = api.submit(t, "{\"worker\":\"local\",\"module\":\"" + module
                + "\",\"fuel_limit\":1,\"max_price_msat\":-1}");
        assertTrue(price.body().path("error").asText().contains("max_price_msat"), price.body().toString());
        AgentApi.Answer above = api.submit(t, "{\"worker\":\"local\",\"module\":\"" + module
                + "\",\"fuel_limit\":1,\"max_price_msat\":2100000000000000001}");
        assertEquals(400, above.status());
        assertTrue(above.body().path("error").asText().contains("21 million bitcoin"), above.body().toString());
        AgentApi.Answer twice = api.submit(t, "{\"worker\":\"local\",\"module\":\"" + module
                + "\",\"fuel_limit\":1,\"max_price_msat\":1,\"max_price_msat\":999999}");
        assertEquals(400, twice.status());
        assertTrue(twice.body().path("error").asText().contains("named twice: \"max_price_msat\""),
                twice.body().toString());
        assertTrue(market.submitted.isEmpty());
    }

    @Test
    void marketRefusalKeepsItsStatus() {
        AgentApi.Answer a = api.submit(compute(1000), body(1).replace("\"local\"", "\"nobody\""));
        assertEquals(400, a.status());
        market.maxBlob = 4;
        assertEquals(413, api.putBlob(compute(1), new byte[5]).status());
    }

    @Test
    void activeJobsPerTokenAreBoundedAndEndedJobsFreeTheirPlace() {
        String t = compute(1000);
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            AgentApi.Answer a = api.submit(t, body(1));
            assertEquals(201, a.status());
            ids.add(a.body().path("id").asText());
        }
        AgentApi.Answer busy = api.submit(t, body(1));
        assertEquals(429, busy.status());
        assertTrue(busy.body().path("error").asText().startsWith("busy:"), busy.body().toString());
        assertEquals(3, market.submitted.size());
        // another token has its own bound
        assertEquals(201, api.submit(compute(1000), body(1)).status());
        market.fail(ids.get(0), "trap: unreachable");
        assertEquals(201, api.submit(t, body(1)).status());
    }

    @Test
    @org.junit.jupiter.api.Timeout(30)
    void aSubmissionUnderWayHoldsNoOneElseUpAndItsPlaceCounts() throws Exception {
        String t = compute(1000);
        String done = api.submit(t, body(1)).body().path("id").asText();
        java.util.concurrent.CountDownLatch inSubmit = new java.util.concurrent.CountDownLatch(2);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        market.onSubmit = () -> {
            inSubmit.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        List<AgentApi.Answer> answers = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        List<Thread> threads = new java.util.ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Thread th = new Thread(() -> answers.add(api.submit(t, body(1))));
            th.start();
            threads.add(th);
        }
        inSubmit.await();
        // two submissions are in the market: the token's third place is the last one
        assertEquals(200, api.job(t, done).status(), "reads go on while submissions are under way");
        assertEquals(1, api.jobs(t).body().path("jobs").size());
        market.onSubmit = () -> {
        };
        assertEquals(429, api.submit(t, body(1)).status(), "1 running + 2 under way = 3, the bound");
        release.countDown();
        for (Thread th : threads) {
            th.join();
        }
        assertEquals(List.of(201, 201), answers.stream().map(AgentApi.Answer::status).toList());
        assertEquals(3, market.submitted.size());
    }

    @Test
    void jobsAreVisibleOnlyToTheTokenThatSubmittedThem() {
        String mine = compute(1000);
        String other = compute(1000);
        String id = api.submit(mine, body(1)).body().path("id").asText();
        assertEquals(200, api.job(mine, id).status());
        assertEquals(id, api.job(mine, id).body().path("id").asText());
        assertEquals(404, api.job(other, id).status());
        assertEquals(404, api.result(other, id).status());
        assertEquals(404, api.pay(other, id).status());
        assertEquals(1, api.jobs(mine).body().path("jobs").size());
        assertEquals(0, api.jobs(other).body().path("jobs").size());
    }

    @Test
    void aRestartedNodeStillShowsEachTokenItsOwnJobsAndCountsTheUnendedOnes() {
        String mine = compute(1000);
        String other = compute(1000);
        String done = api.submit(mine, body(1)).body().path("id").asText();
        market.finish(done, "out", 1);
        String running = api.submit(mine, body(1)).body().path("id").asText();
        String theirs = api.submit(other, body(1)).body().path("id").asText();
        assertEquals(3, market.owners.size(), "each job's owner is kept with it");
        // the node restarts: a new API over the same market (the owners live in the market's store)
        AgentApi again = api(2);
        assertEquals(200, again.job(mine, done).status());
        assertEquals(200, again.result(mine, done).status());
        assertEquals(200, again.job(mine, running).status());
        assertEquals(404, again.job(other, done).status());
        assertEquals(404, again.job(mine, theirs).status());
        assertEquals(200, again.job(other, theirs).status());
        assertEquals(2, again.jobs(mine).body().path("jobs").size());
        assertEquals(201, again.submit(mine, body(1)).status(), "one unended before: one more fits under 2");
        assertEquals(429, again.submit(mine, body(1)).status(), "the unended job from before the restart counts");
    }

    @Test
    void resultIs409UntilDoneThen200And410WhenFailed() {
        String t = compute(1000);
        String id = api.submit(t, body(1)).body().path("id").asText();
        assertEquals(409, api.result(t, id).status());
        market.finish(id, "hello", 42);
        AgentApi.Answer r = api.result(t, id);
        assertEquals(200, r.status());
        assertEquals("aGVsbG8=", r.body().path("stdout").asText());
        assertEquals(42, r.body().path("fuel_used").asLong());
        String id2 = api.submit(t, body(1)).body().path("id").asText();
        market.fail(id2, "fuel exhausted");
        AgentApi.Answer gone = api.result(t, id2);
        assertEquals(410, gone.status());
        assertTrue(gone.body().path("error").asText().contains("fuel exhausted"), gone.body().toString());
    }

    @Test
    void payPassesToTheMarketOnce() {
        String t = compute(1000);
        String id = api.submit(t, body(1)).body().path("id").asText();
        assertEquals(409, api.pay(t, id).status(), "nothing to pay before the sealed result");
        market.seal(id, 1000, "lnbcrt10n1...");
        assertEquals(200, api.pay(t, id).status());
        assertEquals(409, api.pay(t, id).status(), "paying twice is refused by the market");
        assertEquals(List.of(id), market.paid);
    }

    @Test
    void putBlobAnswersItsHash() {
        AgentApi.Answer a = api.putBlob(compute(1), "abc".getBytes());
        assertEquals(200, a.status());
        assertEquals(JobSpec.sha256("abc".getBytes()), a.body().path("sha256").asText());
    }

    @Test
    void rememberedJobsAreBounded() {
        AgentApi small = new AgentApi(market, new AgentGuard(List.of(CapabilityVerifier.forNode(NODE)),
                Clock.fixed(NOW, ZoneOffset.UTC)), new AgentApi.Limits(100, 2, 50, 16));
        String t = compute(1000);
        String first = small.submit(t, body(1)).body().path("id").asText();
        small.submit(t, body(1));
        small.submit(t, body(1));
        assertEquals(404, small.job(t, first).status(), "the oldest owner is forgotten");
        assertEquals(2, small.jobs(t).body().path("jobs").size());
    }

    @Test
    void everyErrorIsLedByAWordAsTheSpecSays() {
        assertEquals("not found: module ab is not in the blob store",
                AgentApi.Answer.error(404, "module ab is not in the blob store").body().path("error").asText());
        assertEquals("conflict: job x is done, it has no invoice to pay",
                AgentApi.Answer.error(409, "job x is done, it has no invoice to pay").body().path("error").asText());
        assertEquals("unprocessable: no linked peer offers compute",
                AgentApi.Answer.error(422, "no linked peer offers compute").body().path("error").asText());
        assertEquals("not found: no offer from did:peer:4zQm (is it linked and selling?)",
                AgentApi.Answer.error(404, "no offer from did:peer:4zQm (is it linked and selling?)").body()
                        .path("error").asText());
        assertEquals("busy: 8 jobs", AgentApi.Answer.error(429, "busy: 8 jobs").body().path("error").asText());
        assertEquals("too large: a blob", AgentApi.Answer.error(413, "too large: a blob").body().path("error").asText());
    }
}
