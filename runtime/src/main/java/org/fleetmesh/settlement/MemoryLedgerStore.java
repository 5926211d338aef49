package org.fleetmesh.settlement;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import org.fleetmesh.spi.settlement.Escrow;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.EscrowStep;
import org.fleetmesh.spi.settlement.JournalEntry;
import org.fleetmesh.spi.settlement.LedgerException;
import org.fleetmesh.spi.settlement.LedgerStore;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.Posting;

/** A {@link LedgerStore} in memory, for tests and throwaway nodes: same rules as the database, no durability. */
public final class MemoryLedgerStore implements LedgerStore {
    private final Set<String> keys = new HashSet<>();
    private final Map<String, long[]> totals = new TreeMap<>(); // account -> {debits, credits}
    private final Map<PaymentHash, Escrow> escrows = new LinkedHashMap<>();
    private final Map<PaymentHash, List<EscrowState>> histories = new HashMap<>();

    @Override
    public synchronized Outcome post(JournalEntry entry) {
        if (keys.contains(entry.key())) {
            return Outcome.REPLAYED;
        }
        Map<String, long[]> next = totalsAfter(entry);
        keys.add(entry.key());
        totals.putAll(next);
        return Outcome.APPLIED;
    }

    @Override
    public synchronized Outcome apply(EscrowStep step) {
        if (keys.contains(step.entry().key())) {
            return Outcome.REPLAYED;
        }
        Escrow after = step.after();
        Escrow current = escrows.get(after.paymentHash());
        if (step.before() == null) {
            if (current != null) {
                throw new LedgerException(LedgerException.Reason.CONFLICT, "escrow " + after.paymentHash() + " already exists");
            }
        } else if (current == null || current.state() != step.before() || current.version() != after.version() - 1) {
            throw new LedgerException(LedgerException.Reason.CONFLICT, "escrow " + after.paymentHash() + " is at "
                    + (current == null ? "nothing" : current.state() + " v" + current.version()) + ", not "
                    + step.before() + " v" + (after.version() - 1));
        }
        Map<String, long[]> next = totalsAfter(step.entry()); // throws before anything changes
        keys.add(step.entry().key());
        totals.putAll(next);
        escrows.put(after.paymentHash(), after);
        histories.computeIfAbsent(after.paymentHash(), h -> new ArrayList<>()).add(after.state());
        return Outcome.APPLIED;
    }

    @Override
    public synchronized boolean markEffectDone(PaymentHash hash, EscrowState state) {
        Escrow e = escrows.get(hash);
        if (e == null || e.state() != state) {
            return false;
        }
        escrows.put(hash, e.withEffectDone());
        return true;
    }

    @Override
    public synchronized Optional<Escrow> escrow(PaymentHash hash) {
        return Optional.ofNullable(escrows.get(hash));
    }

    @Override
    public synchronized List<EscrowState> history(PaymentHash hash) {
        return List.copyOf(histories.getOrDefault(hash, List.of()));
    }

    @Override
    public synchronized List<Escrow> unfinished() {
        return escrows.values().stream()
                .filter(e -> !e.state().isFinal() || !e.effectDone())
                .sorted(Comparator.comparing(Escrow::updatedAt))
                .toList();
    }

    @Override
    public synchronized long balance(String account) {
        long[] t = totals.get(account);
        return t == null ? 0 : Math.subtractExact(t[0], t[1]);
    }

    @Override
    public synchronized List<AccountTotals> trialBalance() {
        List<AccountTotals> out = new ArrayList<>();
        totals.forEach((a, t) -> out.add(new AccountTotals(a, t[0], t[1])));
        return out;
    }

    /** The new totals of the accounts {@code entry} touches, refusing overflow. */
    private Map<String, long[]> totalsAfter(JournalEntry entry) {
        Map<String, long[]> next = new HashMap<>();
        try {
            for (Posting p : entry.postings()) {
                long[] t = next.computeIfAbsent(p.account(), a -> totals.getOrDefault(a, new long[2]).clone());
                int i = p.side() == Posting.Side.DEBIT ? 0 : 1;
                t[i] = Math.addExact(t[i], p.amountMsat());
            }
        } catch (ArithmeticException e) {
            throw new LedgerException(LedgerException.Reason.OVERFLOW, "entry " + entry.key() + " overflows an account total", e);
        }
        return next;
    }
}
