package org.fleetmesh.negentropy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;

import org.junit.jupiter.api.Test;

/** The prefix-sum fingerprint of a range equals the plain sum the reference computes. */
class SortedVectorFingerprintTest {

    @Test
    void rangeFingerprintsEqualTheDirectSumIncludingCarriesAndBorrows() {
        Random r = new Random(7);
        SortedVector.Builder b = SortedVector.builder();
        for (int i = 0; i < 500; i++) {
            byte[] id = new byte[32];
            r.nextBytes(id);
            if (i % 3 == 0) {
                java.util.Arrays.fill(id, 0, 24, (byte) 0xff); // force carries across limbs
            }
            b.insert(r.nextInt(1000), Id.of(id));
        }
        SortedVector v = b.seal();
        for (int t = 0; t < 2000; t++) {
            int begin = r.nextInt(v.size() + 1);
            int end = begin + r.nextInt(v.size() - begin + 1);
            Accumulator direct = new Accumulator();
            for (int i = begin; i < end; i++) {
                direct.add(v.item(i).id());
            }
            assertEquals(direct.fingerprint(end - begin), v.fingerprint(begin, end), "[" + begin + "," + end + ")");
        }
    }
}
