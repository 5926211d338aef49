package org.fleetmesh.settlement;

import static org.fleetmesh.spi.settlement.EscrowState.EXPIRED;
import static org.fleetmesh.spi.settlement.EscrowState.INVOICED;
import static org.fleetmesh.spi.settlement.EscrowState.KEY_RELEASED;
import static org.fleetmesh.spi.settlement.EscrowState.PAID;
import static org.fleetmesh.spi.settlement.EscrowState.REFUNDED;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.fleetmesh.spi.settlement.Escrow;
import org.fleetmesh.spi.settlement.EscrowRules;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.EscrowStep;
import org.fleetmesh.spi.settlement.InvoiceState;
import org.fleetmesh.spi.settlement.LedgerException;
import org.fleetmesh.spi.settlement.LedgerStore;
import org.fleetmesh.spi.settlement.LedgerStore.Outcome;
import org.fleetmesh.spi.settlement.PaymentHash;

/**
 * The compute-escrow state machine, independent of the rail:
 * SEALED → INVOICED → PAID → KEY_RELEASED / REFUNDED / EXPIRED, by {@link EscrowRules}.
 *
 * <p>Write-ahead: each method persists the step and its postings, and only then may the caller
 * perform the side effect on the rail (issue, settle, cancel), and confirm it with
 * {@link #effectDone}. A crash in between leaves the ledger consistent, and
 * {@link #resumeIncomplete()} names what is left to do. Repeating a step already taken is a
 * {@link Outcome#REPLAYED} no-op; a step the machine does not allow throws
 * {@link LedgerException.Reason#ILLEGAL_TRANSITION}.
 */
public final class EscrowBook {

    private final LedgerStore store;
    private final Clock clock;

    public EscrowBook(LedgerStore store, Clock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Opens an escrow for a sealed result. Replayed if already sealed with the same terms; CONFLICT if with others. */
    public Outcome seal(PaymentHash hash, String peerDid, String rail, long amountMsat) {
        EscrowStep seal = EscrowRules.seal(hash, peerDid, rail, amountMsat, clock.instant());
        var existing = store.escrow(hash);
        if (existing.isPresent()) {
            Escrow e = existing.get();
            if (e.peer().equals(peerDid) && e.rail().equals(rail) && e.amountMsat() == amountMsat) {
                return Outcome.REPLAYED;
            }
            throw new LedgerException(LedgerException.Reason.CONFLICT,
                    "escrow " + hash + " is already sealed with other terms");
        }
        return store.apply(seal);
    }

    /** The invoice on the payment hash is about to be issued: the peer owes the amount, we owe the key. */
    public Outcome invoiced(PaymentHash hash) {
        return step(hash, INVOICED, 0);
    }

    /** The payment is locked in on the rail (hold invoice ACCEPTED, HTLC token received). */
    public Outcome paid(PaymentHash hash) {
        return step(hash, PAID, 0);
    }

    /** The key is about to be released (settle with k); {@code feeMsat} is what the rail keeps of the amount. */
    public Outcome keyReleased(PaymentHash hash, long feeMsat) {
        return step(hash, KEY_RELEASED, feeMsat);
    }

    /** The escrow is given up: the invoice is about to be canceled and any locked payment returns to the payer. */
    public Outcome refunded(PaymentHash hash) {
        return step(hash, REFUNDED, 0);
    }

    /** The invoice or HTLC locktime ran out. */
    public Outcome expired(PaymentHash hash) {
        return step(hash, EXPIRED, 0);
    }

    /** Confirms the side effect of the escrow's current step; false if the escrow moved on meanwhile. */
    public boolean effectDone(PaymentHash hash) {
        Escrow e = escrow(hash);
        return e.effectDone() || store.markEffectDone(hash, e.state());
    }

    /**
     * Feeds a state reported by the rail's watch: ACCEPTED → PAID; CANCELED → REFUNDED, EXPIRED →
     * EXPIRED (both with the cancel confirmed, the rail having done it); SETTLED confirms a key release.
     * Returns the outcome, or REPLAYED when the report changes nothing.
     */
    public Outcome observe(PaymentHash hash, InvoiceState reported) {
        Escrow e = escrow(hash);
        return switch (reported) {
            case OPEN -> Outcome.REPLAYED;
            case ACCEPTED -> paid(hash);
            case SETTLED -> {
                if (e.state() != KEY_RELEASED) {
                    throw new LedgerException(LedgerException.Reason.ILLEGAL_TRANSITION,
                            "rail reports escrow " + hash + " settled, but the ledger has it " + e.state());
                }
                yield effectDone(hash) && !e.effectDone() ? Outcome.APPLIED : Outcome.REPLAYED;
            }
            case CANCELED, EXPIRED -> {
                if (e.state() == KEY_RELEASED) {
                    throw new LedgerException(LedgerException.Reason.ILLEGAL_TRANSITION,
                            "rail reports escrow " + hash + " " + reported + " after the key was released");
                }
                Outcome o = e.state().isFinal() ? Outcome.REPLAYED
                        : reported == InvoiceState.CANCELED ? refunded(hash) : expired(hash);
                effectDone(hash);
                yield o;
            }
        };
    }

    /** The escrow, or UNKNOWN_ESCROW. */
    public Escrow escrow(PaymentHash hash) {
        return store.escrow(hash).orElseThrow(() -> new LedgerException(LedgerException.Reason.UNKNOWN_ESCROW,
                "no escrow with payment hash " + hash));
    }

    /** Every escrow whose last persisted step needs a follow-up, oldest first, with what to do. */
    public List<FollowUp> resumeIncomplete() {
        List<FollowUp> out = new ArrayList<>();
        for (Escrow e : store.unfinished()) {
            FollowUp.Action a = switch (e.state()) {
                case SEALED -> FollowUp.Action.INVOICE;
                case INVOICED -> e.effectDone() ? FollowUp.Action.WATCH : FollowUp.Action.CREATE_INVOICE;
                case PAID -> FollowUp.Action.RELEASE_OR_REFUND;
                case KEY_RELEASED -> e.effectDone() ? null : FollowUp.Action.SETTLE;
                case REFUNDED, EXPIRED -> e.effectDone() ? null : FollowUp.Action.CANCEL;
            };
            if (a != null) {
                out.add(new FollowUp(e, a));
            }
        }
        return out;
    }

    private Outcome step(PaymentHash hash, EscrowState to, long feeMsat) {
        Escrow e = escrow(hash);
        if (e.state() == to) {
            return Outcome.REPLAYED;
        }
        if (!EscrowRules.isLegal(e.state(), to) && store.history(hash).contains(to)) {
            return Outcome.REPLAYED; // a late duplicate (e.g. ACCEPTED reported again after settling)
        }
        return store.apply(EscrowRules.step(e, to, feeMsat, clock.instant()));
    }
}
