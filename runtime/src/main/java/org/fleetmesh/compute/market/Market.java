package org.fleetmesh.compute.market;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;

/**
 * The compute market as this node's own software uses it (the agent API and the NIP-90 bridge): offers heard from
 * peers, a content-addressed store of modules and inputs, jobs this node buys, their state, payment and results.
 * docs/spec/compute.md says what each state means. Implementations are thread-safe.
 */
public interface Market {

    /** The offers (kind 30810) of linked peers and this node's own, newest first. */
    List<Map<String, Object>> offers();

    /**
     * Stores a module or an input and returns its SHA-256 hex. Throws {@link MarketException} (413) when it is larger
     * than the node takes, or (507) when the store is full.
     */
    String putBlob(byte[] bytes) throws MarketException;

    Optional<byte[]> blob(String sha256Hex);

    /** Buys a job: see {@link Submission}. Returns its view at once (the job runs on); throws with a 4xx reason. */
    Map<String, Object> submit(Submission s) throws MarketException;

    /** A job's view: {@code {"id","worker","state",...}} (compute.md, "Agent API"). */
    Optional<Map<String, Object>> job(String id);

    List<Map<String, Object>> jobs(int limit);

    /** Pays the job's invoice now (for a submission with {@code autoPay} false). */
    Map<String, Object> pay(String id) throws MarketException;

    /** The decrypted, checked result, once the key is released. */
    Optional<JobResult> result(String id);

    /**
     * A job to buy. {@code worker}: a peer's DID (either form), or {@code "any"} (the cheapest acceptable offer), or
     * {@code "local"} (run here, nothing paid). {@code rail}: the rail id to pay with, or {@code ""} for the first of
     * this node's rails (preferred first) that the worker's offer lists. {@code token}: a capability token (base64url)
     * this node passes to the worker, when it buys on behalf of its root DID. {@code owner}: who submitted it (the agent
     * API's token id), kept with the job and never sent, or {@code ""}.
     */
    record Submission(String worker, JobSpec spec, long maxPriceMsat, String rail, boolean autoPay,
            Optional<String> token, String owner) {
        /** A submission with no owner kept with the job. */
        public Submission(String worker, JobSpec spec, long maxPriceMsat, String rail, boolean autoPay,
                Optional<String> token) {
            this(worker, spec, maxPriceMsat, rail, autoPay, token, "");
        }
    }

    /** A bought job's owner as its submission named it, kept with the job (so that it survives a restart). */
    record Owned(String id, String owner, boolean ended) {
    }

    /** The owners of the newest {@code limit} bought jobs that have one, newest first. */
    default List<Owned> owned(int limit) {
        return List.of();
    }

    /** A refusal with the HTTP status an endpoint answers and a reason. */
    final class MarketException extends Exception {
        private final int status;

        public MarketException(int status, String reason) {
            super(reason);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }
}
