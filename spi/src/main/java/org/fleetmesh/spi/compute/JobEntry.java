package org.fleetmesh.spi.compute;

import java.util.Objects;
import java.util.Optional;

/**
 * One compute/1.0 job as a {@link JobBook} keeps it (docs/spec/compute.md, "Job states"): which side this node is on,
 * the peer, the job, its state, the money and the escrow's lock, the key when this node knows it (the worker from the
 * start, the buyer once paid; the worker needs it to settle after a crash), the sealed result, the worker-signed job
 * record, the decrypted result, and what went wrong. Strings are the protocol's own encodings (JSON, hex, base64).
 *
 * @param id          the request digest (hex)
 * @param role        which side of the job this node is on
 * @param peer        the other side's DID (short form); {@code "local"} for a job run here
 * @param request     the request body as sent (JSON), which names the job
 * @param state       the state's word ({@code requested}, {@code fetching}, ...)
 * @param priceMsat   the price the worker asks (0 until sealed)
 * @param rail        the rail id ({@code ln}); empty for a free job
 * @param invoice     the payment request; empty when none
 * @param paymentHash SHA-256(k), hex; empty until sealed
 * @param key         k, hex; empty when this node does not know it
 * @param sealed      the sealed message's body (JSON); empty until sealed
 * @param result      the decrypted result (JobResult JSON); empty until done
 * @param error       why it ended badly; empty otherwise
 * @param reexecution {@code match}, {@code mismatch} or empty (not re-executed)
 * @param version     1 on the first save; each save of a newer state adds one
 */
public record JobEntry(String id, Role role, String peer, String request, String state, long priceMsat, String rail,
        String invoice, String paymentHash, String key, String sealed, String result, String error, String reexecution,
        long createdAt, long updatedAt, long version) {

    public enum Role { BUYER, WORKER }

    public JobEntry {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(peer, "peer");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(state, "state");
        rail = rail == null ? "" : rail;
        invoice = invoice == null ? "" : invoice;
        paymentHash = paymentHash == null ? "" : paymentHash;
        key = key == null ? "" : key;
        sealed = sealed == null ? "" : sealed;
        result = result == null ? "" : result;
        error = error == null ? "" : error;
        reexecution = reexecution == null ? "" : reexecution;
    }

    public static JobEntry fresh(String id, Role role, String peer, String request, String state, long nowSeconds) {
        return new JobEntry(id, role, peer, request, state, 0, "", "", "", "", "", "", "", "", nowSeconds, nowSeconds,
                1);
    }

    public Optional<String> keyHex() {
        return key.isEmpty() ? Optional.empty() : Optional.of(key);
    }

    /** The next version of this entry, in {@code state}, at {@code nowSeconds}. */
    public JobEntry moved(String to, long nowSeconds) {
        return new JobEntry(id, role, peer, request, to, priceMsat, rail, invoice, paymentHash, key, sealed, result,
                error, reexecution, createdAt, nowSeconds, version + 1);
    }

    public JobEntry withPrice(long msat, String railId, String invoiceText, String hash) {
        return new JobEntry(id, role, peer, request, state, msat, railId, invoiceText, hash, key, sealed, result, error,
                reexecution, createdAt, updatedAt, version);
    }

    public JobEntry withKey(String keyHex) {
        return new JobEntry(id, role, peer, request, state, priceMsat, rail, invoice, paymentHash, keyHex, sealed,
                result, error, reexecution, createdAt, updatedAt, version);
    }

    public JobEntry withSealed(String sealedJson) {
        return new JobEntry(id, role, peer, request, state, priceMsat, rail, invoice, paymentHash, key, sealedJson,
                result, error, reexecution, createdAt, updatedAt, version);
    }

    public JobEntry withResult(String resultJson) {
        return new JobEntry(id, role, peer, request, state, priceMsat, rail, invoice, paymentHash, key, sealed,
                resultJson, error, reexecution, createdAt, updatedAt, version);
    }

    public JobEntry withError(String why) {
        return new JobEntry(id, role, peer, request, state, priceMsat, rail, invoice, paymentHash, key, sealed, result,
                why, reexecution, createdAt, updatedAt, version);
    }

    public JobEntry withReexecution(String outcome) {
        return new JobEntry(id, role, peer, request, state, priceMsat, rail, invoice, paymentHash, key, sealed, result,
                error, outcome, createdAt, updatedAt, version);
    }
}
