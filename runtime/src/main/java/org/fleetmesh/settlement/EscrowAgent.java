package org.fleetmesh.settlement;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

import org.fleetmesh.spi.settlement.Escrow;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.Invoice;
import org.fleetmesh.spi.settlement.InvoiceState;
import org.fleetmesh.spi.settlement.LedgerException;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.spi.settlement.SettlementException;
import org.fleetmesh.spi.settlement.SettlementRail;
import org.jboss.logging.Logger;

/**
 * The payee's side of a preimage escrow, driving a {@link SettlementRail} from an {@link EscrowBook}:
 * every step is persisted in the ledger first, then performed on the rail, then confirmed
 * ({@link EscrowBook#effectDone}). The rail's reports (hold invoice ACCEPTED, CANCELED, expired) are
 * fed back into the book as they arrive. After a crash, {@link #resume} finishes what the ledger
 * says was started on this agent's rail. A node with several rails has one agent per rail, and
 * {@link #resumeAll} hands each escrow to the agent of the rail it was sealed on.
 *
 * <pre>
 *   open(hash)    SEALED -> INVOICED   holdInvoice(hash)   watch(hash)
 *   (rail)        ACCEPTED             -> PAID             listener told
 *   release(k)    PAID -> KEY_RELEASED settle(k)           payer learns k
 *   refund(hash)  PAID|INVOICED -> REFUNDED  cancel(hash)  payer's HTLCs fail back
 *   (rail)        CANCELED/expired     -> REFUNDED / EXPIRED
 * </pre>
 */
public final class EscrowAgent {
    private static final Logger LOG = Logger.getLogger(EscrowAgent.class);

    private final EscrowBook book;
    private final SettlementRail rail;
    private final Duration invoiceExpiry;
    private final Consumer<Escrow> onChange;

    /**
     * @param onChange told (on the rail's thread) once per step the rail's reports moved the escrow to
     *                 (a repeated report moves nothing and is not told); e.g. "PAID: run the job and release the key"
     */
    public EscrowAgent(EscrowBook book, SettlementRail rail, Duration invoiceExpiry, Consumer<Escrow> onChange) {
        this.book = Objects.requireNonNull(book, "book");
        this.rail = Objects.requireNonNull(rail, "rail");
        this.invoiceExpiry = Objects.requireNonNull(invoiceExpiry, "invoiceExpiry");
        this.onChange = Objects.requireNonNull(onChange, "onChange");
    }

    /**
     * Seals an escrow on {@code hash} for {@code amountMsat} owed by {@code peerDid}, issues the hold
     * invoice and watches it. Throws what the rail throws; the ledger then shows INVOICED without the
     * effect confirmed, and {@link #resume} retries.
     */
    public Invoice open(PaymentHash hash, String peerDid, long amountMsat, String memo) {
        book.seal(hash, peerDid, rail.id(), amountMsat);
        book.invoiced(hash);
        Invoice invoice = rail.holdInvoice(hash, amountMsat, memo, invoiceExpiry);
        book.effectDone(hash);
        watch(hash);
        return invoice;
    }

    /** Releases the key: records KEY_RELEASED (with the rail's fee), then settles with {@code key}. */
    public void release(Preimage key, long feeMsat) {
        PaymentHash hash = key.hash();
        book.keyReleased(hash, feeMsat);
        rail.settle(key);
        book.effectDone(hash);
    }

    /** Gives the escrow up: records REFUNDED, then cancels the invoice (the payer's funds return). */
    public void refund(PaymentHash hash) {
        book.refunded(hash);
        rail.cancel(hash);
        book.effectDone(hash);
    }

    private void watch(PaymentHash hash) {
        rail.watch(hash, state -> observed(hash, state));
    }

    private void observed(PaymentHash hash, InvoiceState state) {
        observed(hash, state, false);
    }

    /**
     * {@code retried}: a report kept after its recording failed. The failed attempt may have been recorded all the
     * same (the commit went through, its answer was lost; or the escrow moved and only the confirmation failed), so a
     * retried report the ledger now finds already applied is told all the same: the listener acts on the escrow's
     * state as it is, and telling it twice does nothing the second time.
     */
    private void observed(PaymentHash hash, InvoiceState state, boolean retried) {
        boolean recorded = false;
        try {
            org.fleetmesh.spi.settlement.LedgerStore.Outcome o = book.observe(hash, state);
            recorded = true;
            unrecorded.remove(hash, state);
            if (o == org.fleetmesh.spi.settlement.LedgerStore.Outcome.APPLIED || retried) {
                tell(hash);
            }
        } catch (LedgerException e) {
            if (e.reason() == LedgerException.Reason.STORE_FAILED || e.reason() == LedgerException.Reason.CONFLICT) {
                // the ledger's store failed (a database restarting) or a write met another: the rail reports a state
                // once, so it is kept and recorded by retryUnrecorded; lost, an accepted payment would wait unseen
                // until its invoice expired
                keep(hash, state);
                LOG.warnf("escrow %s: rail reported %s, the ledger could not record it now (%s); tried again", hash,
                        state, e.getMessage());
            } else {
                unrecorded.remove(hash, state);
                LOG.errorf("escrow %s: rail reported %s, the ledger refused it: %s", hash, state, e.getMessage());
            }
        } catch (RuntimeException e) {
            if (!recorded) {
                keep(hash, state);
            }
            LOG.errorf(e, "escrow %s: handling %s failed", hash, state);
        }
    }

    /** Tells the listener the escrow's new state; a read of it that fails is told again by retryUnrecorded. */
    private void tell(PaymentHash hash) {
        Escrow e;
        try {
            e = book.escrow(hash);
        } catch (RuntimeException ex) {
            if (untold.size() < MAX_UNRECORDED) {
                untold.add(hash);
            }
            LOG.warnf("escrow %s moved, but it could not be read to tell its listener (%s); told later", hash,
                    ex.toString());
            return;
        }
        try {
            onChange.accept(e);
            untold.remove(hash);
        } catch (RuntimeException ex) {
            if (untold.size() < MAX_UNRECORDED) {
                untold.add(hash); // the listener failed (its own store, say): told again by retryUnrecorded
            }
            throw ex;
        }
    }

    /** Escrows whose move the listener was not told (their read failed). */
    private final java.util.Set<PaymentHash> untold = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private void keep(PaymentHash hash, InvoiceState state) {
        if (state == InvoiceState.OPEN) {
            return; // records nothing
        }
        if (unrecorded.size() < MAX_UNRECORDED || unrecorded.containsKey(hash)) {
            // a later report wins over an earlier one kept before it (never a final one over by a non-final one)
            unrecorded.merge(hash, state, (was, now) -> was.isFinal() && !now.isFinal() ? was : now);
        }
    }

    /** Rail reports the ledger could not record yet: the last one per escrow (at most {@link #MAX_UNRECORDED}). */
    private final Map<PaymentHash, InvoiceState> unrecorded = new java.util.concurrent.ConcurrentHashMap<>();
    static final int MAX_UNRECORDED = 4096;

    /**
     * Records again the rail's reports the ledger could not record when they came (its store failing); a report the
     * ledger now takes moves the escrow and tells the listener, as it would have then. Returns how many were tried.
     */
    public int retryUnrecorded() {
        int n = 0;
        for (Map.Entry<PaymentHash, InvoiceState> e : List.copyOf(unrecorded.entrySet())) {
            n++;
            observed(e.getKey(), e.getValue(), true);
        }
        for (PaymentHash h : List.copyOf(untold)) {
            n++;
            try {
                tell(h);
            } catch (RuntimeException ex) {
                LOG.errorf(ex, "escrow %s: its listener failed", h);
            }
        }
        return n;
    }

    /** What {@link #resume} did for one escrow, or why it could not. */
    public record Resumed(PaymentHash hash, EscrowState state, String action, Optional<String> error) {
    }

    /** The id of the rail this agent drives. */
    public String railId() {
        return rail.id();
    }

    /**
     * Finishes every step the ledger recorded but the rail may not have performed (after a crash or
     * a rail outage), for the escrows on this agent's rail (the others are left alone): issues missing
     * invoices (an existing one counts as issued), re-watches open ones, settles released keys (looked
     * up with {@code keys}), cancels refunds. PAID escrows are reported as {@code "decide"}: the caller
     * releases or refunds them.
     */
    public List<Resumed> resume(Function<PaymentHash, Optional<Preimage>> keys) {
        List<Resumed> out = new ArrayList<>();
        for (FollowUp f : book.resumeIncomplete()) {
            if (f.escrow().rail().equals(rail.id())) {
                out.add(resume(f, keys));
            }
        }
        return out;
    }

    /**
     * {@link #resume} over several rails: each escrow is finished by the agent of its own rail ({@code agents}, keyed
     * by rail id), never on another; an escrow whose rail has no agent here is reported with an error and left as the
     * ledger has it (a later start with that rail configured finishes it).
     */
    public static List<Resumed> resumeAll(EscrowBook book, Map<String, EscrowAgent> agents,
            Function<PaymentHash, Optional<Preimage>> keys) {
        List<Resumed> out = new ArrayList<>();
        for (FollowUp f : book.resumeIncomplete()) {
            Escrow e = f.escrow();
            EscrowAgent a = agents.get(e.rail());
            if (a == null) {
                out.add(new Resumed(e.paymentHash(), e.state(), action(f), Optional.of("its rail \"" + e.rail()
                        + "\" is not configured on this node; the escrow waits for it")));
            } else {
                out.add(a.resume(f, keys));
            }
        }
        return out;
    }

    private static String action(FollowUp f) {
        return f.action() == FollowUp.Action.RELEASE_OR_REFUND ? "decide"
                : f.action().name().toLowerCase(java.util.Locale.ROOT);
    }

    private Resumed resume(FollowUp f, Function<PaymentHash, Optional<Preimage>> keys) {
        Escrow e = f.escrow();
        PaymentHash hash = e.paymentHash();
        String action = action(f);
        try {
            switch (f.action()) {
                case INVOICE -> {
                    book.invoiced(hash);
                    issue(e);
                }
                case CREATE_INVOICE -> issue(e);
                case WATCH -> watch(hash);
                case RELEASE_OR_REFUND -> {
                    // the caller decides
                }
                case SETTLE -> {
                    Preimage k = keys.apply(hash).orElseThrow(() -> new IllegalStateException(
                            "the key for " + hash + " is not available; it cannot be released"));
                    rail.settle(k);
                    book.effectDone(hash);
                }
                case CANCEL -> {
                    rail.cancel(hash);
                    book.effectDone(hash);
                }
            }
            return new Resumed(hash, e.state(), action, Optional.empty());
        } catch (RuntimeException ex) {
            return new Resumed(hash, e.state(), action, Optional.of(String.valueOf(ex.getMessage())));
        }
    }

    private void issue(Escrow e) {
        try {
            rail.holdInvoice(e.paymentHash(), e.amountMsat(), "fleetmesh escrow", invoiceExpiry);
        } catch (SettlementException ex) {
            if (ex.reason() != SettlementException.Reason.DUPLICATE_PAYMENT_HASH) {
                throw ex;
            }
            // issued before the crash; the watch reports its state
        }
        book.effectDone(e.paymentHash());
        watch(e.paymentHash());
    }
}
