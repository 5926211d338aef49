package org.fleetmesh.compute.agent;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.compute.market.Market;

/**
 * A market that keeps jobs in memory and moves them only when a test says so: {@link #seal}, {@link #finish},
 * {@link #fail}. Public for the NIP-90 tests.
 */
public final class FakeMarket implements Market {
    public final Map<String, byte[]> blobs = new ConcurrentHashMap<>();
    public final Map<String, Map<String, Object>> views = new LinkedHashMap<>();
    public final Map<String, JobResult> results = new ConcurrentHashMap<>();
    public final List<Submission> submitted = new ArrayList<>();
    public final List<String> paid = new ArrayList<>();
    public int maxBlob = 1 << 20;
    public List<Map<String, Object>> offers = List.of(Map.of("kind", 30810, "tags", List.of(List.of("d", "default"))));

    @Override
    public List<Map<String, Object>> offers() {
        return offers;
    }

    @Override
    public String putBlob(byte[] bytes) throws MarketException {
        if (bytes.length > maxBlob) {
            throw new MarketException(413, "too large: " + bytes.length + " bytes, at most " + maxBlob);
        }
        String h = JobSpec.sha256(bytes);
        blobs.put(h, bytes.clone());
        return h;
    }

    @Override
    public Optional<byte[]> blob(String sha256Hex) {
        return Optional.ofNullable(blobs.get(sha256Hex));
    }

    /** Runs at the start of each submit, outside the market's lock (a test blocks it to hold a submit open). */
    public volatile Runnable onSubmit = () -> {
    };

    @Override
    public Map<String, Object> submit(Submission s) throws MarketException {
        onSubmit.run();
        return record(s);
    }

    private synchronized Map<String, Object> record(Submission s) throws MarketException {
        if (!s.worker().equals("local") && !s.worker().equals("any") && !s.worker().startsWith("did:")) {
            throw new MarketException(400, "invalid: worker");
        }
        submitted.add(s);
        String id = JobSpec.sha256((s.spec().canonicalJson() + submitted.size()).getBytes(StandardCharsets.UTF_8));
        if (s.owner() != null && !s.owner().isEmpty()) {
            owners.put(id, s.owner());
        }
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("id", id);
        v.put("worker", s.worker());
        v.put("state", "running");
        v.put("job", s.spec().canonicalJson());
        v.put("price_msat", 0L);
        v.put("invoice", null);
        views.put(id, v);
        return new LinkedHashMap<>(v);
    }

    /** job id → the owner its submission named (kept with the job, as the market's store keeps it). */
    public final Map<String, String> owners = new LinkedHashMap<>();

    @Override
    public synchronized List<Owned> owned(int limit) {
        List<Owned> out = new ArrayList<>();
        List<String> ids = new ArrayList<>(owners.keySet());
        for (int i = ids.size() - 1; i >= 0 && out.size() < limit; i--) {
            String id = ids.get(i);
            String state = String.valueOf(views.get(id).get("state"));
            out.add(new Owned(id, owners.get(id), AgentApi.ENDED.contains(state)));
        }
        return out;
    }

    @Override
    public synchronized Optional<Map<String, Object>> job(String id) {
        Map<String, Object> v = views.get(id);
        return v == null ? Optional.empty() : Optional.of(new LinkedHashMap<>(v));
    }

    @Override
    public synchronized List<Map<String, Object>> jobs(int limit) {
        List<Map<String, Object>> l = new ArrayList<>(views.values());
        java.util.Collections.reverse(l);
        return l.subList(0, Math.min(limit, l.size()));
    }

    @Override
    public synchronized Map<String, Object> pay(String id) throws MarketException {
        Map<String, Object> v = views.get(id);
        if (v == null) {
            throw new MarketException(404, "not found");
        }
        if (!"sealed".equals(v.get("state"))) {
            throw new MarketException(409, "not payable: " + v.get("state"));
        }
        paid.add(id);
        v.put("state", "paying");
        return new LinkedHashMap<>(v);
    }

    @Override
    public Optional<JobResult> result(String id) {
        return Optional.ofNullable(results.get(id));
    }

    public synchronized void seal(String id, long priceMsat, String invoice) {
        views.get(id).put("state", "sealed");
        views.get(id).put("price_msat", priceMsat);
        views.get(id).put("invoice", invoice);
    }

    public synchronized void finish(String id, String stdout, long fuel) {
        byte[] out = stdout.getBytes(StandardCharsets.UTF_8);
        Submission s = submitted.stream().filter(x -> true).reduce((a, b) -> b).orElseThrow();
        results.put(id, new JobResult(0, out, new byte[0], fuel, s.spec().module(), s.spec().input(), JobSpec.sha256(out)));
        views.get(id).put("state", "done");
    }

    public synchronized void fail(String id, String error) {
        views.get(id).put("state", "failed");
        views.get(id).put("error", error);
    }
}
