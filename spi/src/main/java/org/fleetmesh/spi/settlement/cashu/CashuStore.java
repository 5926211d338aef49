package org.fleetmesh.spi.settlement.cashu;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Where the Cashu wallet keeps what it must never lose: its proofs, the operations it has under way with a mint
 * (so that a crash in the middle of a swap, mint or melt is resolved on restart), its NUT-13 counters and the
 * keysets it has seen. Every write is durable when the call returns. Implementations are thread-safe; the calls
 * that change several rows do so atomically.
 *
 * <p>The wallet's rule (docs/spec/settlement-cashu.md): a proof about to leave is {@link ProofState#PENDING}
 * under an operation <em>before</em> the request leaves; the outcome is written in one {@link #complete} call.
 */
public interface CashuStore {

    /** Where a proof stands, as this wallet knows it. */
    enum ProofState {
        /** Ours and spendable. */
        UNSPENT,
        /** Given to a mint request whose outcome is not yet known (see {@link StoredProof#opId()}). */
        PENDING,
        /** Spent at the mint (by us, or by whoever we gave it to). */
        SPENT,
        /** Handed out in a token or a payment; kept until the mint says it is spent, so it is never forgotten. */
        SENT,
        /** Received locked to a spending condition (NUT-10) that we must still satisfy, e.g. an HTLC on a hash. */
        HELD
    }

    /**
     * One proof (NUT-00), with its NUT-12 DLEQ as JSON when the mint gave one, and the lock it serves: the payment
     * hash (hex) of an HTLC it is locked to or locks, else null.
     */
    record StoredProof(String mint, String keysetId, long amount, String secret, String c, String dleqJson,
            ProofState state, String opId, String lock, long createdAt) {
        public StoredProof {
            if (mint == null || keysetId == null || secret == null || c == null || state == null) {
                throw new IllegalArgumentException("mint, keysetId, secret, c and state are required");
            }
            if (amount <= 0) {
                throw new IllegalArgumentException("a proof's amount is positive");
            }
        }

        public StoredProof withState(ProofState s, String op) {
            return new StoredProof(mint, keysetId, amount, secret, c, dleqJson, s, op, lock, createdAt);
        }
    }

    /**
     * An operation with a mint (swap, mint, melt, receive, send, htlc-in, htlc-out, ...): its kind, an optional key
     * unique within the kind (a quote id, a payment hash), its state (the wallet's own words) and a JSON payload with
     * what recovery needs (the outputs' secrets and blinding factors, the quote, the amounts).
     */
    record Op(String id, String kind, String key, String mint, String state, String payload, long createdAt,
            long updatedAt) {
        public Op {
            if (id == null || kind == null || mint == null || state == null || payload == null) {
                throw new IllegalArgumentException("id, kind, mint, state and payload are required");
            }
        }

        public Op with(String newState, String newPayload, long now) {
            return new Op(id, kind, key, mint, newState, newPayload, createdAt, now);
        }
    }

    /** A keyset of a mint as last fetched (NUT-01/02), keys as the mint's JSON object {amount: pubkey}. */
    record KeysetRow(String mint, String id, String unit, boolean active, long inputFeePpk, String keysJson) {
    }

    /** Adds proofs; a proof whose secret is already stored is left as it is. */
    void addProofs(Collection<StoredProof> proofs);

    /** The proofs of {@code mint} in {@code state}, oldest first. */
    List<StoredProof> proofs(String mint, ProofState state);

    /** The proofs with these secrets (any state), in no particular order. */
    List<StoredProof> proofsBySecret(Collection<String> secrets);

    /** The proofs marked with this operation. */
    List<StoredProof> proofsOfOp(String opId);

    /** The proofs serving this lock (payment hash hex). */
    List<StoredProof> proofsOfLock(String lock);

    /**
     * Marks every proof of {@code secrets} PENDING under {@code opId}, atomically, if every one is UNSPENT; returns
     * false and changes nothing otherwise (another operation took one first).
     */
    default boolean reserve(Collection<String> secrets, String opId) {
        return reserve(secrets, ProofState.UNSPENT, opId);
    }

    /**
     * {@link #reserve(Collection, String)} from another state {@code from} (not PENDING): HELD proofs being redeemed,
     * SENT proofs being refunded, which two operations must not both take either.
     */
    boolean reserve(Collection<String> secrets, ProofState from, String opId);

    /** Moves proofs to {@code state}, keeping or setting {@code opId} (null keeps the current one). */
    void setState(Collection<String> secrets, ProofState state, String opId);

    /**
     * The outcome of an operation, atomically: {@code inputs} move to {@code inputsTo}, {@code outputs} are added
     * (existing secrets left alone) and the operation is saved as {@code op}.
     */
    void complete(Op op, Collection<String> inputs, ProofState inputsTo, Collection<StoredProof> outputs);

    /** Inserts or replaces an operation (by id). A second op with the same (kind, non-null key) is refused. */
    void saveOp(Op op);

    Optional<Op> op(String id);

    Optional<Op> opByKey(String kind, String key);

    /** Operations in one of {@code states}, oldest first. */
    List<Op> opsInStates(Collection<String> states);

    /** Reserves {@code n} consecutive NUT-13 counter values of a keyset and returns the first (0 for a new keyset). */
    long reserveCounters(String keysetId, int n);

    /** The next counter value of a keyset that {@link #reserveCounters} would hand out. */
    long counter(String keysetId);

    /** Moves a keyset's counter forward to at least {@code next} (after a NUT-09 restore). */
    void advanceCounter(String keysetId, long next);

    void saveKeyset(KeysetRow keyset);

    List<KeysetRow> keysets(String mint);
}
