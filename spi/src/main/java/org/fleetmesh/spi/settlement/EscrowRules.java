package org.fleetmesh.spi.settlement;

import static org.fleetmesh.spi.settlement.EscrowState.EXPIRED;
import static org.fleetmesh.spi.settlement.EscrowState.INVOICED;
import static org.fleetmesh.spi.settlement.EscrowState.KEY_RELEASED;
import static org.fleetmesh.spi.settlement.EscrowState.PAID;
import static org.fleetmesh.spi.settlement.EscrowState.REFUNDED;
import static org.fleetmesh.spi.settlement.EscrowState.SEALED;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The escrow state machine as pure rules: which moves are legal and which postings each one
 * makes (docs/spec/settlement.md). No I/O; org.fleetmesh.settlement.EscrowBook runs them over a
 * {@link LedgerStore}, and every store is tested against them.
 *
 * <pre>
 * SEALED ──► INVOICED ──► PAID ──► KEY_RELEASED
 *   │           │  │        │ └──► REFUNDED
 *   │           │  └──► REFUNDED   └──► EXPIRED
 *   └──► EXPIRED └──► EXPIRED
 * </pre>
 */
public final class EscrowRules {

    private static final Map<EscrowState, Set<EscrowState>> LEGAL = new EnumMap<>(EscrowState.class);

    static {
        LEGAL.put(SEALED, Collections.unmodifiableSet(EnumSet.of(INVOICED, EXPIRED)));
        LEGAL.put(INVOICED, Collections.unmodifiableSet(EnumSet.of(PAID, REFUNDED, EXPIRED)));
        LEGAL.put(PAID, Collections.unmodifiableSet(EnumSet.of(KEY_RELEASED, REFUNDED, EXPIRED)));
        LEGAL.put(KEY_RELEASED, Collections.unmodifiableSet(EnumSet.noneOf(EscrowState.class)));
        LEGAL.put(REFUNDED, Collections.unmodifiableSet(EnumSet.noneOf(EscrowState.class)));
        LEGAL.put(EXPIRED, Collections.unmodifiableSet(EnumSet.noneOf(EscrowState.class)));
    }

    private EscrowRules() {
    }

    /** The states {@code from} may move to; empty for a final state. */
    public static Set<EscrowState> legalNext(EscrowState from) {
        return LEGAL.get(from);
    }

    public static boolean isLegal(EscrowState from, EscrowState to) {
        return LEGAL.get(from).contains(to);
    }

    /** The step that creates an escrow: SEALED, version 1, no postings. */
    public static EscrowStep seal(PaymentHash hash, String peerDid, String rail, long amountMsat, Instant at) {
        // the accounts later steps post to must be valid names before anything is written
        Posting.debit(Accounts.receivable(peerDid), 1);
        Posting.debit(Accounts.locked(rail), 1);
        Escrow fresh = new Escrow(hash, peerDid, rail, amountMsat, SEALED, 1, true, at);
        return new EscrowStep(null, fresh, new JournalEntry(EscrowStep.key(hash, SEALED), List.of()));
    }

    /**
     * The step from {@code current} to {@code to}, with its postings; {@code feeMsat} is what the rail
     * keeps of the amount on a key release and must be 0 otherwise. Throws
     * {@link LedgerException.Reason#ILLEGAL_TRANSITION} for a move the machine does not allow.
     */
    public static EscrowStep step(Escrow current, EscrowState to, long feeMsat, Instant at) {
        if (!isLegal(current.state(), to)) {
            throw new LedgerException(LedgerException.Reason.ILLEGAL_TRANSITION, "escrow " + current.paymentHash() + ": "
                    + current.state() + " -> " + to + " is not allowed (from " + current.state() + ": "
                    + legalNext(current.state()) + ")");
        }
        Escrow after = current.next(to, at);
        if (!hasSideEffect(current.state(), to)) {
            after = after.withEffectDone();
        }
        return new EscrowStep(current.state(), after, entry(current, to, feeMsat));
    }

    /**
     * Whether the caller acts on the rail after persisting the move (issue, settle, cancel). PAID is
     * recorded after the rail acted, and SEALED → EXPIRED touches no rail.
     */
    public static boolean hasSideEffect(EscrowState from, EscrowState to) {
        return to != PAID && !(from == SEALED && to == EXPIRED);
    }

    private static JournalEntry entry(Escrow e, EscrowState to, long feeMsat) {
        String key = EscrowStep.key(e.paymentHash(), to);
        long a = e.amountMsat();
        String receivable = Accounts.receivable(e.peer());
        String escrow = Accounts.escrow(e.paymentHash());
        String locked = Accounts.locked(e.rail());
        if (to != KEY_RELEASED && feeMsat != 0) {
            throw new IllegalArgumentException("only a key release carries a fee");
        }
        return switch (to) {
            case SEALED -> new JournalEntry(key, List.of());
            case INVOICED -> JournalEntry.of(key, Posting.debit(receivable, a), Posting.credit(escrow, a));
            case PAID -> JournalEntry.of(key, Posting.debit(locked, a), Posting.credit(receivable, a));
            case KEY_RELEASED -> {
                if (feeMsat < 0 || feeMsat > a) {
                    throw new IllegalArgumentException("fee must be between 0 and the amount " + a + " msat, got " + feeMsat);
                }
                List<Posting> ps = new ArrayList<>(5);
                ps.add(Posting.debit(escrow, a));
                ps.add(Posting.credit(Accounts.INCOME, a));
                if (a - feeMsat > 0) {
                    ps.add(Posting.debit(Accounts.funds(e.rail()), a - feeMsat));
                }
                if (feeMsat > 0) {
                    ps.add(Posting.debit(Accounts.FEES, feeMsat));
                }
                ps.add(Posting.credit(locked, a));
                yield new JournalEntry(key, ps);
            }
            case REFUNDED, EXPIRED -> switch (e.state()) {
                case SEALED -> new JournalEntry(key, List.of());
                case INVOICED -> JournalEntry.of(key, Posting.debit(escrow, a), Posting.credit(receivable, a));
                case PAID -> JournalEntry.of(key, Posting.debit(escrow, a), Posting.credit(locked, a));
                default -> throw new IllegalStateException("unreachable: " + e.state() + " -> " + to);
            };
        };
    }
}
