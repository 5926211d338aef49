package org.fleetmesh.settlement.cashu.token;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.fleetmesh.settlement.cashu.nut.Proof;

/**
 * A Cashu token (NUT-00): proofs from one mint, in one unit, with an optional memo.
 *
 * <p>{@code unit} is null only for a V3 token that did not name one. The mint URL has its trailing slashes
 * stripped, as NUT-00 requires. Proof ids of a V4 token may be short keyset ids (8 bytes of a 33-byte id);
 * {@link #resolveKeysetIds} turns them into full ids before the proofs go to a mint.
 */
public record Token(String mint, String unit, String memo, List<Proof> proofs) {

    public Token {
        if (mint == null || mint.isEmpty()) {
            throw new IllegalArgumentException("mint URL is missing");
        }
        mint = stripTrailingSlashes(mint);
        if (proofs == null || proofs.isEmpty()) {
            throw new IllegalArgumentException("token has no proofs");
        }
        proofs = List.copyOf(proofs);
        long sum = 0;
        for (Proof p : proofs) {
            try {
                sum = Math.addExact(sum, p.amount());
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("token amount overflows");
            }
        }
    }

    /** The sum of the proof amounts (never overflows: the constructor checked). */
    public long amount() {
        long sum = 0;
        for (Proof p : proofs) {
            sum += p.amount();
        }
        return sum;
    }

    /**
     * Replaces short keyset ids (16 hex of a version-01 id) by the one full id in {@code knownIds} that starts
     * with them. A short id that matches no known id, or more than one, fails as NUT-00 requires.
     */
    public Token resolveKeysetIds(Collection<String> knownIds) throws TokenException {
        List<Proof> out = new ArrayList<>(proofs.size());
        for (Proof p : proofs) {
            if (p.id().length() == 16 && !p.id().startsWith("00")) {
                String full = null;
                for (String k : knownIds) {
                    if (k.length() == 66 && k.startsWith(p.id())) {
                        if (full != null && !full.equals(k)) {
                            throw new TokenException("invalid token: short keyset id " + p.id() + " is ambiguous");
                        }
                        full = k;
                    }
                }
                if (full == null) {
                    throw new TokenException("invalid token: unknown keyset id " + p.id());
                }
                out.add(p.withId(full));
            } else {
                out.add(p);
            }
        }
        return new Token(mint, unit, memo, out);
    }

    static String stripTrailingSlashes(String url) {
        int end = url.length();
        while (end > 0 && url.charAt(end - 1) == '/') {
            end--;
        }
        return url.substring(0, end);
    }
}
