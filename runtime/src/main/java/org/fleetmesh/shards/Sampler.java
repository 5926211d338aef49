package org.fleetmesh.shards;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.fleetmesh.negentropy.Bound;
import org.fleetmesh.negentropy.Item;
import org.fleetmesh.negentropy.Storage;

/**
 * Draws sampling rounds (docs/spec/sampling.md): {@code k} distinct items, every k-subset equally likely (Floyd's
 * algorithm, k draws of the {@code Random} however large the set), so that {@link Detection} holds for them.
 */
public final class Sampler {
    private final Random random;

    public Sampler(Random random) {
        this.random = random;
    }

    /**
     * {@code min(k, end − begin)} distinct indices of {@code [begin, end)}, ascending, chosen uniformly among all
     * subsets of that size.
     */
    public int[] indices(int begin, int end, int k) {
        if (begin < 0 || end < begin || k < 0) {
            throw new IllegalArgumentException("need 0 <= begin <= end and k >= 0");
        }
        int n = end - begin;
        int take = Math.min(k, n);
        Set<Integer> chosen = new HashSet<>(take * 2);
        // Floyd: for j = n−take .. n−1, pick t in [0, j]; take t, or j when t was taken already
        for (int j = n - take; j < n; j++) {
            int t = random.nextInt(j + 1);
            chosen.add(chosen.contains(t) ? j : t);
        }
        int[] out = new int[take];
        int i = 0;
        for (int c : chosen) {
            out[i++] = begin + c;
        }
        Arrays.sort(out);
        return out;
    }

    /** {@code min(k, size)} distinct elements of {@code from}, uniformly, in their order there. */
    public <T> List<T> draw(List<T> from, int k) {
        List<T> out = new ArrayList<>(Math.min(k, from.size()));
        for (int i : indices(0, from.size(), k)) {
            out.add(from.get(i));
        }
        return out;
    }

    /**
     * A round over a shard's items: {@code k} distinct items among those with a timestamp at most {@code latest}
     * (the claim's {@code created_at} less the grace), uniformly.
     */
    public List<Item> draw(Storage items, long latest, int k) {
        int end = eligible(items, latest);
        List<Item> out = new ArrayList<>(Math.min(k, end));
        for (int i : indices(0, end, k)) {
            out.add(items.item(i));
        }
        return out;
    }

    /** How many items of {@code items} a round over {@code latest} draws from. */
    public static int eligible(Storage items, long latest) {
        return latest < 0 ? 0 : items.findLowerBound(0, items.size(), eligibleEnd(latest));
    }

    /** The first bound past every item with timestamp {@code <= latest} (timestamps compare unsigned). */
    private static Bound eligibleEnd(long latest) {
        return Bound.of(latest + 1, new byte[0]);
    }
}
