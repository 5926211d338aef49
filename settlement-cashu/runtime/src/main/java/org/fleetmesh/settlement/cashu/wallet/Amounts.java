package org.fleetmesh.settlement.cashu.wallet;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;

/** How an amount is cut into the denominations a keyset has (NUT-00: the binary representation, largest first). */
public final class Amounts {
    private Amounts() {
    }

    /**
     * {@code amount} as a sum of the keyset's denominations, largest first; throws if a remainder cannot be expressed
     * (a keyset without 1 and an odd amount).
     */
    public static List<Long> split(long amount, NavigableSet<Long> denominations) {
        if (amount < 0) {
            throw new IllegalArgumentException("a negative amount cannot be split");
        }
        List<Long> out = new ArrayList<>();
        long left = amount;
        for (Long d : denominations.descendingSet()) {
            while (left >= d) {
                out.add(d);
                left -= d;
            }
        }
        if (left != 0) {
            throw new IllegalArgumentException("the keyset's denominations cannot express " + amount);
        }
        return out;
    }

    /** NUT-08: how many blank outputs cover a fee reserve: max(ceil(log2(fee_reserve)), 1), 0 for no reserve. */
    public static int blankOutputs(long feeReserve) {
        if (feeReserve <= 0) {
            return 0;
        }
        int bits = 64 - Long.numberOfLeadingZeros(feeReserve - 1); // ceil(log2(x)) for x >= 1
        return Math.max(bits, 1);
    }

    public static long sum(List<Long> amounts) {
        long s = 0;
        for (long a : amounts) {
            s = Math.addExact(s, a);
        }
        return s;
    }
}
