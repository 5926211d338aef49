package org.fleetmesh.delivery.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Compact ranges: roots, subtree hashes and consistency proofs agree with full-tree computation. */
class CompactRangeTest {

    @Test
    void rootAndHashesMatchTheFullTreeForSizesUpTo70() {
        List<byte[]> all = ReferenceTree.leaves(70);
        CompactRange r = CompactRange.empty();
        for (int n = 0; n <= 70; n++) {
            List<byte[]> d = all.subList(0, n);
            assertEquals(n, r.size());
            assertArrayEquals(ReferenceTree.mth(d), r.root(), "root " + n);
            // the hashes are the maximal aligned perfect subtrees, largest first
            List<byte[]> hs = r.hashes();
            assertEquals(Long.bitCount(n), hs.size());
            long start = 0;
            int i = 0;
            for (long bit = Long.highestOneBit(Math.max(n, 1)); bit > 0; bit >>= 1) {
                if ((n & bit) != 0) {
                    assertArrayEquals(ReferenceTree.mth(d.subList((int) start, (int) (start + bit))), hs.get(i), n + "/" + i);
                    start += bit;
                    i++;
                }
            }
            if (n < 70) {
                r = r.append(all.get(n));
            }
        }
    }

    @Test
    void consistencyProofsFromTheRangeAloneMatchTheFullTreeForAllSizesUpTo70() {
        List<byte[]> all = ReferenceTree.leaves(70);
        for (int m = 1; m <= 70; m++) {
            CompactRange r = CompactRange.empty().appendAll(all.subList(0, m));
            for (int n = m; n <= 70; n++) {
                List<byte[]> appended = all.subList(m, n);
                List<byte[]> proof = r.consistencyProof(appended);
                List<byte[]> expected = ReferenceTree.proof(m, all.subList(0, n));
                assertEquals(expected.size(), proof.size(), m + "->" + n);
                for (int i = 0; i < proof.size(); i++) {
                    assertArrayEquals(expected.get(i), proof.get(i), m + "->" + n + " [" + i + "]");
                }
                CompactRange grown = r.appendAll(appended);
                assertTrue(Merkle.verifyConsistency(m, n, r.root(), grown.root(), proof), m + "->" + n);
            }
        }
    }

    @Test
    void fromTheEmptyRangeTheProofIsEmpty() {
        assertEquals(List.of(), CompactRange.empty().consistencyProof(ReferenceTree.leaves(5)));
    }

    @Test
    void ofRoundTripsAndChecksItsShape() {
        List<byte[]> all = ReferenceTree.leaves(13);
        CompactRange r = CompactRange.empty().appendAll(all);
        CompactRange back = CompactRange.of(13, r.hashes());
        assertArrayEquals(r.root(), back.root());
        assertArrayEquals(CompactRange.empty().appendAll(ReferenceTree.leaves(14)).root(),
                back.append(ReferenceTree.leaves(14).get(13)).root());
        assertThrows(IllegalArgumentException.class, () -> CompactRange.of(12, r.hashes()));
        assertThrows(IllegalArgumentException.class, () -> CompactRange.of(-1, List.of()));
        List<byte[]> shortHash = new ArrayList<>(r.hashes());
        shortHash.set(0, new byte[31]);
        assertThrows(IllegalArgumentException.class, () -> CompactRange.of(13, shortHash));
    }

    @Test
    void appendingLeavesTheOriginalUnchanged() {
        CompactRange r = CompactRange.empty().appendAll(ReferenceTree.leaves(3));
        byte[] root = r.root();
        r.append(ReferenceTree.leaves(4).get(3));
        assertEquals(3, r.size());
        assertArrayEquals(root, r.root());
        assertSame(r, r.appendAll(List.of()));
        // a caller cannot change the range through what it gets
        r.hashes().get(0)[0] ^= 1;
        r.root()[0] ^= 1;
        assertArrayEquals(root, r.root());
    }
}
