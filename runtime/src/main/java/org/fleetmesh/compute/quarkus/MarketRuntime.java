package org.fleetmesh.compute.quarkus;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.fleetmesh.compute.JobFailure;
import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.compute.market.BlobStore;
import org.fleetmesh.compute.market.Execution;
import org.fleetmesh.compute.market.JobState;
import org.fleetmesh.compute.market.JobView;
import org.fleetmesh.compute.market.Market;
import org.fleetmesh.compute.market.Request;
import org.fleetmesh.compute.market.ResultJson;
import org.fleetmesh.spi.compute.JobBook;
import org.fleetmesh.spi.compute.JobEntry;
import org.jboss.logging.Logger;

/**
 * The node's compute market (docs/spec/compute.md): the {@link Market} the agent API and the NIP-90 bridge use. Jobs
 * for {@code "local"} run here on the node's sandbox, nothing paid.
 */
@ApplicationScoped
public class MarketRuntime implements Market {
    private static final Logger LOG = Logger.getLogger(MarketRuntime.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    @Inject
    MarketConfig config;

    @Inject
    JobBook book;

    @Inject
    Instance<Execution> execution;

    private volatile BlobStore blobs;

    BlobStore blobs() {
        BlobStore b = blobs;
        if (b == null) {
            synchronized (this) {
                if (blobs == null) {
                    blobs = new BlobStore(config.maxModuleBytes(), config.blobStoreBytes(), config.blobTtl().toMillis(),
                            System::currentTimeMillis);
                }
                b = blobs;
            }
        }
        return b;
    }

    @Override
    public List<Map<String, Object>> offers() {
        return new ArrayList<>();
    }

    @Override
    public String putBlob(byte[] bytes) throws MarketException {
        try {
            return blobs().put(bytes);
        } catch (BlobStore.Refused e) {
            throw new MarketException(e.tooLarge() ? 413 : 507, e.getMessage());
        }
    }

    @Override
    public Optional<byte[]> blob(String sha256Hex) {
        return blobs().get(sha256Hex);
    }

    @Override
    public Map<String, Object> submit(Submission s) throws MarketException {
        if (s.worker().equals("local")) {
            return local(s);
        }
        throw new MarketException(501, "buying from peers is not wired yet");
    }

    private Map<String, Object> local(Submission s) throws MarketException {
        if (execution.isUnsatisfied()) {
            throw new MarketException(503, "this node has no sandbox to run jobs");
        }
        JobSpec spec = s.spec();
        byte[] module = blobs().get(spec.module())
                .orElseThrow(() -> new MarketException(404, "module " + spec.module() + " is not in the blob store"));
        byte[] input = blobs().get(spec.input())
                .orElseThrow(() -> new MarketException(404, "input " + spec.input() + " is not in the blob store"));
        Request q = new Request(spec, s.maxPriceMsat(), "", nonce(), "local", s.token());
        long now = System.currentTimeMillis() / 1000;
        JobEntry e = JobEntry.fresh(q.digest(), JobEntry.Role.BUYER, "local", q.body().toString(),
                JobState.RUNNING.word(), now);
        book.save(e);
        JobEntry end;
        try {
            JobResult r = execution.get().run(module, input, spec);
            end = e.moved(JobState.DONE.word(), System.currentTimeMillis() / 1000)
                    .withResult(ResultJson.write(r));
        } catch (JobFailure f) {
            end = e.moved(JobState.FAILED.word(), System.currentTimeMillis() / 1000).withError(f.getMessage());
        } catch (RuntimeException ex) {
            LOG.errorf(ex, "local job %s failed", e.id());
            end = e.moved(JobState.FAILED.word(), System.currentTimeMillis() / 1000)
                    .withError("error: " + ex.getMessage());
        }
        book.save(end);
        return JobView.of(end);
    }

    private static String nonce() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    @Override
    public Optional<Map<String, Object>> job(String id) {
        return book.find(JobEntry.Role.BUYER, id).map(JobView::of);
    }

    @Override
    public List<Map<String, Object>> jobs(int limit) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (JobEntry e : book.recent(JobEntry.Role.BUYER, Math.max(0, Math.min(limit, 1000)))) {
            out.add(JobView.of(e));
        }
        return out;
    }

    @Override
    public Map<String, Object> pay(String id) throws MarketException {
        JobEntry e = book.find(JobEntry.Role.BUYER, id).orElseThrow(() -> new MarketException(404, "no job " + id));
        throw new MarketException(409, "job " + id + " is " + e.state() + ", it has no invoice to pay");
    }

    @Override
    public Optional<JobResult> result(String id) {
        return book.find(JobEntry.Role.BUYER, id).filter(e -> !e.result().isEmpty())
                .map(e -> ResultJson.read(e.result()));
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
