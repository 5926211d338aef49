package org.fleetmesh.status;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A bounded ring of samples of cumulative counters (events accepted, link frames in and out, receipts), taken every
 * {@code step}, from which the status page draws rates: each pair of consecutive samples gives one rate per series,
 * {@code (total_i - total_{i-1}) / seconds between them}. At most {@code capacity} rates per series are kept (the
 * ring holds {@code capacity + 1} samples); the oldest go first. A counter that went down between two samples (a
 * peer's meters gone with the peer, a restart) gives 0 for that interval, never a negative rate. Not thread-safe by
 * itself: callers synchronize (the Quarkus edge records from one timer and reads under the same lock).
 */
public final class RateRing {
    private final List<String> series;
    private final int capacity;
    private final long[] at;
    private final long[][] totals;
    private int start;
    private int size;

    /**
     * @param series   the counters' names, in the order {@link #record} gets their totals
     * @param capacity how many rates per series are kept, at least 1
     */
    public RateRing(List<String> series, int capacity) {
        if (series.isEmpty()) {
            throw new IllegalArgumentException("at least one series");
        }
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity is at least 1, not " + capacity);
        }
        this.series = List.copyOf(series);
        this.capacity = capacity;
        this.at = new long[capacity + 1];
        this.totals = new long[capacity + 1][series.size()];
    }

    public List<String> series() {
        return series;
    }

    public int capacity() {
        return capacity;
    }

    /**
     * Adds the counters' totals at {@code atMillis} (epoch milliseconds). A sample not later than the last one is
     * ignored (a clock step back): rates need time to pass.
     */
    public void record(long atMillis, long... values) {
        if (values.length != series.size()) {
            throw new IllegalArgumentException(series.size() + " totals expected, got " + values.length);
        }
        if (size > 0 && atMillis <= at[index(size - 1)]) {
            return;
        }
        int slot;
        if (size < at.length) {
            slot = index(size);
            size++;
        } else {
            slot = start;
            start = (start + 1) % at.length;
        }
        at[slot] = atMillis;
        System.arraycopy(values, 0, totals[slot], 0, values.length);
    }

    /** Samples held (rates held plus one, once there is a sample). */
    public int samples() {
        return size;
    }

    /** The rates, oldest first: one per interval between consecutive samples. */
    public Rates rates() {
        int n = Math.max(0, size - 1);
        long[] ends = new long[n];
        double[][] perSecond = new double[series.size()][n];
        for (int i = 0; i < n; i++) {
            int prev = index(i);
            int cur = index(i + 1);
            ends[i] = at[cur];
            double seconds = (at[cur] - at[prev]) / 1000.0;
            for (int s = 0; s < series.size(); s++) {
                long delta = totals[cur][s] - totals[prev][s];
                perSecond[s][i] = delta <= 0 ? 0.0 : delta / seconds;
            }
        }
        return new Rates(series, ends, perSecond);
    }

    private int index(int i) {
        return (start + i) % at.length;
    }

    /** Rates per second, per series, for intervals ending at {@code ends} (epoch milliseconds). */
    public record Rates(List<String> series, long[] ends, double[][] perSecond) {
        public double[] of(String name) {
            int i = series.indexOf(name);
            if (i < 0) {
                throw new IllegalArgumentException("no series " + name);
            }
            return perSecond[i];
        }

        /** As JSON wants it: {@code {"at": [epoch ms...], "series": {name: [rate per second...]}}}. */
        public Map<String, Object> asMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            List<Long> times = new ArrayList<>(ends.length);
            for (long e : ends) {
                times.add(e);
            }
            m.put("at", times);
            Map<String, Object> bySeries = new LinkedHashMap<>();
            for (int s = 0; s < series.size(); s++) {
                List<Double> values = new ArrayList<>(ends.length);
                for (double v : perSecond[s]) {
                    values.add(Math.round(v * 1000) / 1000.0);
                }
                bySeries.put(series.get(s), values);
            }
            m.put("series", bySeries);
            return m;
        }
    }
}
