package org.fleetmesh.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import org.fleetmesh.negentropy.FingerprintTree;
import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.Item;
import org.fleetmesh.negentropy.SortedVector;
import org.fleetmesh.negentropy.Storage;
import org.junit.jupiter.api.Test;

/** The figures against a computation written straight from the two specifications, on random sets. */
class ShardFiguresTest {

    static byte[] sha256(byte[]... parts) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        for (byte[] p : parts) {
            md.update(p);
        }
        return md.digest();
    }

    /** Negentropy v1: SHA-256(sum of the ids as little-endian 256-bit numbers mod 2^256 ‖ varint(count)), first 16 bytes. */
    static byte[] naiveFingerprint(List<Item> items) throws Exception {
        BigInteger sum = BigInteger.ZERO;
        for (Item it : items) {
            byte[] le = it.id().toBytes();
            byte[] be = new byte[32];
            for (int i = 0; i < 32; i++) {
                be[i] = le[31 - i];
            }
            sum = sum.add(new BigInteger(1, be));
        }
        sum = sum.mod(BigInteger.ONE.shiftLeft(256));
        byte[] be = sum.toByteArray();
        byte[] le = new byte[32];
        for (int i = 0; i < 32 && i < be.length; i++) {
            le[i] = be[be.length - 1 - i];
        }
        return Arrays.copyOf(sha256(le, varint(items.size())), 16);
    }

    /** Negentropy's varint: base 128, most significant group first, the high bit set on all but the last. */
    static byte[] varint(long n) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<Integer> groups = new ArrayList<>();
        do {
            groups.add((int) (n & 0x7f));
            n >>>= 7;
        } while (n != 0);
        for (int i = groups.size() - 1; i >= 0; i--) {
            out.write(groups.get(i) | (i > 0 ? 0x80 : 0));
        }
        return out.toByteArray();
    }

    /** RFC 9162 §2.1.1 MTH, recursively: split at the largest power of two below n. */
    static byte[] naiveRoot(List<Item> items) throws Exception {
        if (items.isEmpty()) {
            return sha256();
        }
        if (items.size() == 1) {
            return sha256(new byte[] { 0 }, items.get(0).id().toBytes());
        }
        int k = Integer.highestOneBit(items.size() - 1);
        return sha256(new byte[] { 1 }, naiveRoot(items.subList(0, k)), naiveRoot(items.subList(k, items.size())));
    }

    static List<Item> randomItems(Random r, int n) {
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] id = new byte[32];
            r.nextBytes(id);
            items.add(new Item(1_700_000_000L + r.nextInt(50), Id.of(id))); // few timestamps: ties order by id
        }
        items.sort(null);
        return items;
    }

    static Storage vector(List<Item> items) {
        SortedVector.Builder b = SortedVector.builder();
        items.forEach(b::insert);
        return b.seal();
    }

    @Test
    void matchANaiveComputationOnRandomSets() throws Exception {
        Random r = new Random(1303);
        for (int n : new int[] { 0, 1, 2, 3, 4, 5, 7, 8, 9, 100, 1000, 4095, 4096, 4097, 10_000 }) {
            List<Item> items = randomItems(r, n);
            byte[] fp = naiveFingerprint(items), root = naiveRoot(items);
            for (Storage s : List.of(vector(items), FingerprintTree.fromSorted(items).snapshot())) {
                ShardFigures f = ShardFigures.of(s);
                assertEquals(n, f.count());
                assertArrayEquals(fp, f.fingerprint(), "fingerprint of " + n);
                assertArrayEquals(root, f.root(), "root of " + n);
            }
        }
    }

    @Test
    void theEmptySet() throws Exception {
        ShardFigures f = ShardFigures.of(vector(List.of()));
        assertEquals(0, f.count());
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", f.rootHex(), "SHA-256(\"\")");
        assertEquals(HexFormat.of().formatHex(Arrays.copyOf(sha256(new byte[32], new byte[] { 0 }), 16)), f.fingerprintHex());
    }

    @Test
    void orderMattersToTheRootNotToTheFingerprint() throws Exception {
        List<Item> items = randomItems(new Random(5), 10);
        List<Item> swapped = new ArrayList<>(items);
        java.util.Collections.swap(swapped, 0, 1);
        assertArrayEquals(naiveFingerprint(items), naiveFingerprint(swapped));
        assertNotEquals(HexFormat.of().formatHex(naiveRoot(items)), HexFormat.of().formatHex(naiveRoot(swapped)),
                "the root commits to Negentropy order, which ShardFigures takes from the Storage");
    }

    @Test
    void equalityIsByValue() {
        ShardFigures a = new ShardFigures(3, new byte[16], new byte[32]);
        assertEquals(a, new ShardFigures(3, new byte[16], new byte[32]));
        assertNotEquals(a, new ShardFigures(4, new byte[16], new byte[32]));
        byte[] root = new byte[32];
        root[31] = 1;
        assertNotEquals(a, new ShardFigures(3, new byte[16], root));
    }
}
