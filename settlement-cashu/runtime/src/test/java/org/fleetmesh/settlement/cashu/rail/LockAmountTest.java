package org.fleetmesh.settlement.cashu.rail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.IntToLongFunction;
import java.util.function.LongToIntFunction;

import org.junit.jupiter.api.Test;

/** How much a payer locks so that the payee's claim, paying the mint's input fee, leaves the amount asked. */
class LockAmountTest {
    /** Powers of two, as the usual keysets: one proof per set bit. */
    static final LongToIntFunction PROOFS = Long::bitCount;

    static IntToLongFunction ppk(long ppk) {
        return n -> (n * ppk + 999) / 1000; // NUT-02: ceil(sum of input_fee_ppk / 1000)
    }

    @Test
    void withoutFeesTheAmountIsLocked() {
        assertEquals(126, Outgoing.lockAmount(126, PROOFS, ppk(0)));
    }

    @Test
    void theClaimFeeIsAdded() {
        // 5 sat is 4 + 2 after the fee: two proofs, 1 sat fee at 100 ppk
        assertEquals(6, Outgoing.lockAmount(5, PROOFS, ppk(100)));
    }

    @Test
    void aFeeThatFallsAsTheAmountRisesDoesNotLeaveThePayeeShort() {
        // 126 + 2 = 128 is one proof (fee 1), 126 + 1 = 127 seven (fee 2, leaving 125): amount + fee cycles
        // between them; 127 is refused by the payee, 128 leaves it 127
        assertEquals(128, Outgoing.lockAmount(126, PROOFS, ppk(200)));
    }

    @Test
    void theLockIsTheLeastThatLeavesThePayeeTheAmount() {
        for (long ppk : new long[] {100, 200, 500, 1000, 2500}) {
            IntToLongFunction fee = ppk(ppk);
            for (long amount = 1; amount <= 4096; amount++) {
                long lock = Outgoing.lockAmount(amount, PROOFS, fee);
                assertTrue(lock - fee.applyAsLong(PROOFS.applyAsInt(lock)) >= amount, ppk + " ppk, " + amount);
                for (long less = amount; less < lock; less++) {
                    assertTrue(less - fee.applyAsLong(PROOFS.applyAsInt(less)) < amount, ppk + " ppk, " + amount
                            + ": " + less + " would do");
                }
            }
        }
    }
}
