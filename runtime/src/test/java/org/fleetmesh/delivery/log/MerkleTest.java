package org.fleetmesh.delivery.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fleetmesh.nostr.EventId;
import org.junit.jupiter.api.Test;

/**
 * RFC 9162 hashing and proofs: the RFC 6962 reference tree (the eight leaves of Certificate Transparency's reference
 * tests), exhaustive comparison with the literal RFC recursion for small trees, and mutated proofs that must fail.
 */
class MerkleTest {
    private static final HexFormat HEX = HexFormat.of();

    // RFC 6962 reference tree: leaf inputs, and the roots of the trees of sizes 0..8 over them
    private static final String[] LEAF_INPUTS = { "", "00", "10", "2021", "3031", "40414243", "5051525354555657",
            "606162636465666768696a6b6c6d6e6f" };
    private static final String[] ROOTS = {
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
            "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
            "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
            "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
            "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
            "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328" };
    // the leaf hashes and the level-1 and level-2 node hashes of the reference tree
    private static final String[] LEAF_HASHES = {
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
            "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658",
            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
            "46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1" };
    private static final String[] LEVEL1 = {
            "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0" };
    private static final String[] LEVEL2 = {
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4" };

    private static List<byte[]> referenceLeaves(int n) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Merkle.leafHash(HEX.parseHex(LEAF_INPUTS[i])));
        }
        return out;
    }

    private static List<byte[]> hexes(String... hs) {
        List<byte[]> out = new ArrayList<>();
        for (String h : hs) {
            out.add(HEX.parseHex(h));
        }
        return out;
    }

    private static void assertHashes(List<byte[]> expected, List<byte[]> actual, String what) {
        assertEquals(expected.size(), actual.size(), what + ": length");
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i), actual.get(i), what + ": element " + i);
        }
    }

    @Test
    void emptyTreeRootIsSha256OfNothing() {
        assertEquals(ROOTS[0], HEX.formatHex(Merkle.EMPTY_ROOT));
        assertEquals(ROOTS[0], HEX.formatHex(Merkle.root(List.of())));
    }

    @Test
    void leafHashesOfTheReferenceInputs() {
        for (int i = 0; i < 8; i++) {
            assertEquals(LEAF_HASHES[i], HEX.formatHex(Merkle.leafHash(HEX.parseHex(LEAF_INPUTS[i]))), "leaf " + i);
        }
    }

    @Test
    void eventIdLeafIsZeroBytePrefixedId() {
        byte[] id = new byte[32];
        Arrays.fill(id, (byte) 0xab);
        byte[] data = new byte[33];
        System.arraycopy(id, 0, data, 1, 32);
        assertArrayEquals(ReferenceTree.sha256(data), Merkle.leafHash(new EventId(id)));
    }

    @Test
    void rootsOfTheReferenceTree() {
        for (int n = 0; n <= 8; n++) {
            assertEquals(ROOTS[n], HEX.formatHex(Merkle.root(referenceLeaves(n))), "size " + n);
        }
    }

    @Test
    void subtreesOfTheReferenceTree() {
        Merkle.Subtrees t = Merkle.ofLeaves(referenceLeaves(8));
        for (int i = 0; i < 8; i++) {
            assertEquals(LEAF_HASHES[i], HEX.formatHex(t.hash(i, i + 1)));
        }
        for (int i = 0; i < 4; i++) {
            assertEquals(LEVEL1[i], HEX.formatHex(t.hash(2 * i, 2 * i + 2)));
        }
        for (int i = 0; i < 2; i++) {
            assertEquals(LEVEL2[i], HEX.formatHex(t.hash(4 * i, 4 * i + 4)));
        }
        assertEquals(ROOTS[8], HEX.formatHex(t.hash(0, 8)));
        assertThrows(IllegalArgumentException.class, () -> t.hash(1, 3));
        assertThrows(IllegalArgumentException.class, () -> t.hash(0, 3));
        assertThrows(IllegalArgumentException.class, () -> t.hash(8, 9));
    }

    @Test
    void inclusionProofsOfTheReferenceTree() {
        Map<long[], List<byte[]>> cases = new LinkedHashMap<>();
        cases.put(new long[] { 0, 1 }, hexes());
        cases.put(new long[] { 0, 8 }, hexes(LEAF_HASHES[1], LEVEL1[1], LEVEL2[1]));
        cases.put(new long[] { 5, 8 }, hexes(LEAF_HASHES[4], LEVEL1[3], LEVEL2[0]));
        cases.put(new long[] { 2, 3 }, hexes(LEVEL1[0]));
        cases.put(new long[] { 1, 5 }, hexes(LEAF_HASHES[0], LEVEL1[1], LEAF_HASHES[4]));
        cases.put(new long[] { 4, 5 }, hexes(LEVEL2[0]));
        cases.put(new long[] { 6, 7 }, hexes(LEVEL1[2], LEVEL2[0]));
        for (Map.Entry<long[], List<byte[]>> c : cases.entrySet()) {
            long index = c.getKey()[0];
            long size = c.getKey()[1];
            List<byte[]> proof = Merkle.inclusionProof(index, size, Merkle.ofLeaves(referenceLeaves((int) size)));
            assertHashes(c.getValue(), proof, "inclusion " + index + "/" + size);
            assertTrue(Merkle.verifyInclusion(HEX.parseHex(LEAF_HASHES[(int) index]), index, size, proof,
                    HEX.parseHex(ROOTS[(int) size])));
        }
    }

    @Test
    void consistencyProofsOfTheReferenceTree() {
        Map<long[], List<byte[]>> cases = new LinkedHashMap<>();
        cases.put(new long[] { 1, 1 }, hexes());
        cases.put(new long[] { 1, 8 }, hexes(LEAF_HASHES[1], LEVEL1[1], LEVEL2[1]));
        cases.put(new long[] { 6, 8 }, hexes(LEVEL1[2], LEVEL1[3], LEVEL2[0]));
        cases.put(new long[] { 2, 5 }, hexes(LEVEL1[1], LEAF_HASHES[4]));
        cases.put(new long[] { 4, 8 }, hexes(LEVEL2[1]));
        cases.put(new long[] { 3, 7 }, hexes(LEAF_HASHES[2], LEAF_HASHES[3], LEVEL1[0],
                HEX.formatHex(Merkle.nodeHash(HEX.parseHex(LEVEL1[2]), HEX.parseHex(LEAF_HASHES[6])))));
        for (Map.Entry<long[], List<byte[]>> c : cases.entrySet()) {
            long m = c.getKey()[0];
            long n = c.getKey()[1];
            List<byte[]> proof = Merkle.consistencyProof(m, n, Merkle.ofLeaves(referenceLeaves((int) n)));
            assertHashes(c.getValue(), proof, "consistency " + m + "->" + n);
            assertTrue(Merkle.verifyConsistency(m, n, HEX.parseHex(ROOTS[(int) m]), HEX.parseHex(ROOTS[(int) n]), proof));
        }
    }

    @Test
    void inclusionProofsMatchTheRfcRecursionForEveryLeafOfTreesUpTo64() {
        List<byte[]> all = ReferenceTree.leaves(64);
        for (int n = 1; n <= 64; n++) {
            List<byte[]> d = all.subList(0, n);
            Merkle.Subtrees t = Merkle.ofLeaves(d);
            byte[] root = ReferenceTree.mth(d);
            assertArrayEquals(root, Merkle.root(d), "root " + n);
            for (int i = 0; i < n; i++) {
                List<byte[]> proof = Merkle.inclusionProof(i, n, t);
                assertHashes(ReferenceTree.path(i, d), proof, "inclusion " + i + "/" + n);
                assertTrue(Merkle.verifyInclusion(d.get(i), i, n, proof, root), "verify " + i + "/" + n);
            }
        }
    }

    @Test
    void consistencyProofsMatchTheRfcRecursionForEverySizePairUpTo64() {
        List<byte[]> all = ReferenceTree.leaves(64);
        for (int n = 1; n <= 64; n++) {
            List<byte[]> d = all.subList(0, n);
            Merkle.Subtrees t = Merkle.ofLeaves(d);
            byte[] rootN = ReferenceTree.mth(d);
            for (int m = 1; m <= n; m++) {
                List<byte[]> proof = Merkle.consistencyProof(m, n, t);
                assertHashes(ReferenceTree.proof(m, d), proof, "consistency " + m + "->" + n);
                assertTrue(Merkle.verifyConsistency(m, n, ReferenceTree.mth(d.subList(0, m)), rootN, proof),
                        "verify " + m + "->" + n);
            }
        }
    }

    /** Mutations of a valid inclusion proof, in the style of transparency-dev/merkle's testdata; each must fail. */
    private static Map<String, Runnable> inclusionMutations(byte[] leaf, long index, long size, List<byte[]> proof,
            byte[] root, List<String> failures) {
        Map<String, Runnable> m = new LinkedHashMap<>();
        class Probe {
            void expectFalse(String desc, byte[] l, long i, long s, List<byte[]> p, byte[] r) {
                m.put(desc, () -> {
                    if (Merkle.verifyInclusion(l, i, s, p, r)) {
                        failures.add(desc + " verified (leaf " + index + " of " + size + ")");
                    }
                });
            }
        }
        Probe p = new Probe();
        p.expectFalse("index sub 1", leaf, index - 1, size, proof, root);
        p.expectFalse("index plus 1", leaf, index + 1, size, proof, root);
        p.expectFalse("index xor 2", leaf, index ^ 2, size, proof, root);
        p.expectFalse("size mul 2", leaf, index, size * 2, proof, root);
        p.expectFalse("size div 2", leaf, index, size / 2, proof, root);
        p.expectFalse("wrong leaf", Merkle.leafHash("WrongLeaf".getBytes()), index, size, proof, root);
        p.expectFalse("leaf as node", Merkle.nodeHash(leaf, leaf), index, size, proof, root);
        p.expectFalse("empty root", leaf, index, size, proof, Merkle.EMPTY_ROOT);
        p.expectFalse("flipped root", leaf, index, size, proof, flip(root, 0));
        p.expectFalse("trailing garbage", leaf, index, size, plus(proof, new byte[32], false), root);
        p.expectFalse("trailing root", leaf, index, size, plus(proof, root, false), root);
        p.expectFalse("trailing short hash", leaf, index, size, plus(proof, new byte[0], false), root);
        p.expectFalse("preceding garbage", leaf, index, size, plus(proof, new byte[32], true), root);
        p.expectFalse("preceding root", leaf, index, size, plus(proof, root, true), root);
        for (int i = 0; i < proof.size(); i++) {
            for (int bit : new int[] { 0, 3, 255 }) {
                List<byte[]> w = new ArrayList<>(proof);
                w.set(i, flip(proof.get(i), bit));
                p.expectFalse("modified proof[" + i + "] bit " + bit, leaf, index, size, w, root);
            }
        }
        if (!proof.isEmpty()) {
            p.expectFalse("removed last", leaf, index, size, proof.subList(0, proof.size() - 1), root);
            p.expectFalse("removed first", leaf, index, size, proof.subList(1, proof.size()), root);
            List<byte[]> ins = new ArrayList<>(proof);
            ins.add(proof.size() / 2, proof.get(proof.size() / 2));
            p.expectFalse("inserted component", leaf, index, size, ins, root);
        }
        if (proof.size() >= 2) {
            List<byte[]> sw = new ArrayList<>(proof);
            sw.set(0, proof.get(1));
            sw.set(1, proof.get(0));
            if (!Arrays.equals(proof.get(0), proof.get(1))) {
                p.expectFalse("swapped components", leaf, index, size, sw, root);
            }
        }
        return m;
    }

    static byte[] flip(byte[] h, int bit) {
        byte[] c = h.clone();
        c[bit / 8] ^= (byte) (1 << (bit % 8));
        return c;
    }

    static List<byte[]> plus(List<byte[]> proof, byte[] h, boolean first) {
        List<byte[]> out = new ArrayList<>(proof);
        if (first) {
            out.add(0, h);
        } else {
            out.add(h);
        }
        return out;
    }

    @Test
    void everyMutationOfEveryInclusionProofFailsUpTo32() {
        List<byte[]> all = ReferenceTree.leaves(32);
        List<String> failures = new ArrayList<>();
        int probes = 0;
        for (int n = 1; n <= 32; n++) {
            List<byte[]> d = all.subList(0, n);
            Merkle.Subtrees t = Merkle.ofLeaves(d);
            byte[] root = Merkle.root(d);
            for (int i = 0; i < n; i++) {
                for (Runnable r : inclusionMutations(d.get(i), i, n, Merkle.inclusionProof(i, n, t), root, failures).values()) {
                    r.run();
                    probes++;
                }
            }
        }
        assertEquals(List.of(), failures);
        assertTrue(probes > 5000, "probes " + probes);
    }

    @Test
    void everyMutationOfEveryConsistencyProofFailsUpTo32() {
        List<byte[]> all = ReferenceTree.leaves(32);
        List<String> failures = new ArrayList<>();
        int probes = 0;
        for (int n = 2; n <= 32; n++) {
            List<byte[]> d = all.subList(0, n);
            Merkle.Subtrees t = Merkle.ofLeaves(d);
            byte[] r2 = Merkle.root(d);
            for (int m = 1; m < n; m++) {
                byte[] r1 = Merkle.root(d.subList(0, m));
                List<byte[]> proof = Merkle.consistencyProof(m, n, t);
                Map<String, Object[]> cases = new LinkedHashMap<>();
                cases.put("size1 sub 1", new Object[] { m - 1L, (long) n, r1, r2, proof });
                cases.put("size1 plus 1", new Object[] { m + 1L, (long) n, r1, r2, proof });
                cases.put("size1 xor 2", new Object[] { (long) (m ^ 2), (long) n, r1, r2, proof });
                cases.put("size2 mul 2", new Object[] { (long) m, n * 2L, r1, r2, proof });
                cases.put("size2 div 2", new Object[] { (long) m, n / 2L, r1, r2, proof });
                cases.put("wrong root1", new Object[] { (long) m, (long) n, flip(r1, 7), r2, proof });
                cases.put("wrong root2", new Object[] { (long) m, (long) n, r1, flip(r2, 7), proof });
                cases.put("swapped roots", new Object[] { (long) m, (long) n, r2, r1, proof });
                cases.put("empty proof", new Object[] { (long) m, (long) n, r1, r2, List.of() });
                cases.put("trailing garbage", new Object[] { (long) m, (long) n, r1, r2, plus(proof, new byte[32], false) });
                cases.put("trailing root1", new Object[] { (long) m, (long) n, r1, r2, plus(proof, r1, false) });
                cases.put("trailing root2", new Object[] { (long) m, (long) n, r1, r2, plus(proof, r2, false) });
                cases.put("preceding garbage", new Object[] { (long) m, (long) n, r1, r2, plus(proof, new byte[32], true) });
                cases.put("preceding root1", new Object[] { (long) m, (long) n, r1, r2, plus(proof, r1, true) });
                cases.put("preceding root2", new Object[] { (long) m, (long) n, r1, r2, plus(proof, r2, true) });
                cases.put("preceding proof[0]", new Object[] { (long) m, (long) n, r1, r2, plus(proof, proof.get(0), true) });
                cases.put("truncated", new Object[] { (long) m, (long) n, r1, r2, proof.subList(0, proof.size() - 1) });
                cases.put("short hash", new Object[] { (long) m, (long) n, r1, r2, plus(proof, new byte[31], false) });
                for (int i = 0; i < proof.size(); i++) {
                    for (int bit : new int[] { 0, 4, 255 }) {
                        List<byte[]> w = new ArrayList<>(proof);
                        w.set(i, flip(proof.get(i), bit));
                        cases.put("modified proof[" + i + "] bit " + bit, new Object[] { (long) m, (long) n, r1, r2, w });
                    }
                }
                for (Map.Entry<String, Object[]> c : cases.entrySet()) {
                    Object[] a = c.getValue();
                    @SuppressWarnings("unchecked")
                    List<byte[]> pr = (List<byte[]>) a[4];
                    probes++;
                    if (Merkle.verifyConsistency((long) a[0], (long) a[1], (byte[]) a[2], (byte[]) a[3], pr)) {
                        failures.add(c.getKey() + " verified (" + m + " -> " + n + ")");
                    }
                }
            }
        }
        assertEquals(List.of(), failures);
        assertTrue(probes > 5000, "probes " + probes);
    }

    @Test
    void edgeCasesOfConsistency() {
        byte[] r1 = Merkle.root(ReferenceTree.leaves(1));
        assertTrue(Merkle.verifyConsistency(0, 0, Merkle.EMPTY_ROOT, Merkle.EMPTY_ROOT, List.of()), "0 -> 0");
        assertTrue(Merkle.verifyConsistency(0, 1, Merkle.EMPTY_ROOT, r1, List.of()), "any tree extends the empty one");
        assertFalse(Merkle.verifyConsistency(0, 1, r1, r1, List.of()), "size 0 names the empty root");
        assertFalse(Merkle.verifyConsistency(0, 1, Merkle.EMPTY_ROOT, r1, List.of(r1)), "0 -> n takes no proof");
        assertTrue(Merkle.verifyConsistency(1, 1, r1, r1, List.of()), "equal sizes, equal roots");
        assertFalse(Merkle.verifyConsistency(1, 1, r1, flip(r1, 1), List.of()), "equal sizes, different roots");
        assertFalse(Merkle.verifyConsistency(1, 1, r1, r1, List.of(r1)), "equal sizes take no proof");
        assertFalse(Merkle.verifyConsistency(2, 1, r1, r1, List.of()), "size1 above size2");
        assertFalse(Merkle.verifyConsistency(-1, 1, r1, r1, List.of()), "negative size");
        assertThrows(IllegalArgumentException.class, () -> Merkle.consistencyProof(3, 2, Merkle.ofLeaves(ReferenceTree.leaves(3))));
    }

    /** Why a custody proof's tree_size must equal the signed checkpoint's (docs/spec/custody.md §5). */
    @Test
    void rfc9162VerificationAloneDoesNotBindEveryTreeSize() {
        List<byte[]> d = ReferenceTree.leaves(3);
        List<byte[]> path = Merkle.inclusionProof(0, 3, Merkle.ofLeaves(d));
        byte[] root3 = Merkle.root(d);
        assertTrue(Merkle.verifyInclusion(d.get(0), 0, 3, path, root3));
        assertTrue(Merkle.verifyInclusion(d.get(0), 0, 4, path, root3), "the same path and root pass as size 4");
    }

    @Test
    void edgeCasesOfInclusion() {
        byte[] l = ReferenceTree.leaves(1).get(0);
        assertTrue(Merkle.verifyInclusion(l, 0, 1, List.of(), l), "a one-leaf tree's root is the leaf");
        assertFalse(Merkle.verifyInclusion(l, 0, 0, List.of(), l), "nothing is in the empty tree");
        assertFalse(Merkle.verifyInclusion(l, 1, 1, List.of(), l), "index at size");
        assertFalse(Merkle.verifyInclusion(l, -1, 1, List.of(), l), "negative index");
        assertThrows(IllegalArgumentException.class, () -> Merkle.inclusionProof(1, 1, Merkle.ofLeaves(List.of(l))));
    }
}
