package org.fleetmesh.delivery.log;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * RFC 9162 §2.1 written out literally (MTH, PATH, PROOF/SUBPROOF over sublists, own SHA-256): the independent
 * reference the production code is compared with.
 */
final class ReferenceTree {
    private ReferenceTree() {
    }

    static byte[] sha256(byte[]... parts) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (byte[] p : parts) {
                md.update(p);
            }
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] leaf(byte[] data) {
        return sha256(new byte[] { 0 }, data);
    }

    static List<byte[]> leaves(int n) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(leaf(new byte[] { (byte) i, (byte) (i >> 8), 7 }));
        }
        return out;
    }

    private static int k(int n) {
        int k = 1;
        while (k << 1 < n) {
            k <<= 1;
        }
        return k;
    }

    static byte[] mth(List<byte[]> d) {
        if (d.isEmpty()) {
            return sha256();
        }
        if (d.size() == 1) {
            return d.get(0);
        }
        int k = k(d.size());
        return sha256(new byte[] { 1 }, mth(d.subList(0, k)), mth(d.subList(k, d.size())));
    }

    static List<byte[]> path(int m, List<byte[]> d) {
        List<byte[]> out = new ArrayList<>();
        if (d.size() <= 1) {
            return out;
        }
        int k = k(d.size());
        if (m < k) {
            out.addAll(path(m, d.subList(0, k)));
            out.add(mth(d.subList(k, d.size())));
        } else {
            out.addAll(path(m - k, d.subList(k, d.size())));
            out.add(mth(d.subList(0, k)));
        }
        return out;
    }

    static List<byte[]> proof(int m, List<byte[]> d) {
        return subproof(m, d, true);
    }

    private static List<byte[]> subproof(int m, List<byte[]> d, boolean b) {
        List<byte[]> out = new ArrayList<>();
        int n = d.size();
        if (m == n) {
            if (!b) {
                out.add(mth(d));
            }
            return out;
        }
        int k = k(n);
        if (m <= k) {
            out.addAll(subproof(m, d.subList(0, k), b));
            out.add(mth(d.subList(k, n)));
        } else {
            out.addAll(subproof(m - k, d.subList(k, n), false));
            out.add(mth(d.subList(0, k)));
        }
        return out;
    }
}
