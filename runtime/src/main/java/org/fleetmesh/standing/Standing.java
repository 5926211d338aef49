package org.fleetmesh.standing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

import org.fleetmesh.spi.standing.FindingRecord;

/**
 * Computes every subject's {@code view_transit} and {@code view_compute} from the recorded findings, with this node's
 * own weights (docs/spec/standing.md). Pure: the same records, policy, tiers and clock give the same views.
 */
public final class Standing {
    static final String TRANSIT = "transit";
    static final String COMPUTE = "compute";

    private Standing() {
    }

    /** The action a peer's {@code view_transit} calls for ({@link Action#of}). */
    public static Action action(double viewTransit, StandingPolicy p) {
        return Action.of(viewTransit, p);
    }

    /**
     * The views of every subject named by {@code findings}.
     *
     * @param observerTier the tier of an observer (DID short form, or {@code pubkey:<hex>}) at this node; 0 when
     *        unknown. Asked once per observer.
     * @param nowMillis the clock the findings' age is measured against, epoch milliseconds
     */
    public static Views compute(List<FindingRecord> findings, StandingPolicy p, ToIntFunction<String> observerTier,
            long nowMillis) {
        Map<String, Subject> subjects = new LinkedHashMap<>();
        Map<String, Integer> tiers = new HashMap<>();
        Map<String, Boolean> seen = new HashMap<>();
        double halfLifeMillis = p.halfLife().toMillis();
        for (FindingRecord r : findings) {
            if (seen.putIfAbsent(r.eventId(), Boolean.TRUE) != null) {
                continue; // one event is one finding, however often it is listed
            }
            Subject s = subjects.computeIfAbsent(r.subject(), Subject::new);
            s.note(r);
            String why = staticReason(r, p, tiers, observerTier);
            if (why != null) {
                s.ignored.add(new Entry(r, 0, why));
                continue;
            }
            double age = Math.max(0, nowMillis - r.createdAt() * 1000.0);
            double base = p.severity(r.severity()) * (r.self() ? p.self()
                    : p.peer() * (FindingRecord.ATTESTED.equals(r.verdict()) ? p.attested() : 1.0));
            s.candidates.add(new Entry(r, base * Math.pow(2, -age / halfLifeMillis), null));
        }

        // EigenTrust-style: a peer observer weighs p.peer times its own view_transit of the round before; round 1 takes
        // every view as 1, so the result after `iterations` rounds is exact for chains of accusers that long
        Map<String, Double> transit = Map.of();
        for (int round = 1; round < p.iterations(); round++) {
            Map<String, Double> next = new HashMap<>();
            for (Subject s : subjects.values()) {
                next.put(s.did, s.view(TRANSIT, transit, null, null));
            }
            if (next.equals(transit)) {
                break; // a fixpoint: further rounds change nothing
            }
            transit = next;
        }
        Map<String, SubjectView> out = new HashMap<>();
        for (Subject s : subjects.values()) {
            List<Counted> counted = new ArrayList<>();
            List<Entry> ignored = new ArrayList<>(s.ignored);
            double t = s.view(TRANSIT, transit, counted, ignored);
            double c = s.view(COMPUTE, transit, counted, ignored);
            counted.sort(Comparator.comparingDouble(Counted::weight).reversed().thenComparing(Counted::eventId));
            ignored.sort(Comparator.comparingLong((Entry e) -> e.r.createdAt()).reversed()
                    .thenComparing(e -> e.r.eventId()));
            List<Ignored> why = new ArrayList<>(ignored.size());
            for (Entry e : ignored) {
                why.add(new Ignored(e.r.eventId(), e.r.observer(), e.r.severity(), e.r.scope(), e.r.rule(),
                        e.r.verdict(), e.why));
            }
            out.put(s.did, new SubjectView(s.did, s.pubkey, t, c, counted, why));
        }
        return new Views(out);
    }

    /** Why a finding weighs nothing whatever the views, or null when it may count. */
    private static String staticReason(FindingRecord r, StandingPolicy p, Map<String, Integer> tiers,
            ToIntFunction<String> observerTier) {
        boolean verified = FindingRecord.VERIFIED.equals(r.verdict());
        boolean attested = FindingRecord.ATTESTED.equals(r.verdict());
        if (!verified && !attested) {
            return "verdict " + r.verdict() + (r.reason().isEmpty() ? "" : ": " + r.reason());
        }
        if (!TRANSIT.equals(r.scope()) && !COMPUTE.equals(r.scope())) {
            return "scope " + r.scope() + " is neither transit nor compute";
        }
        double sev = p.severity(r.severity());
        if (sev < 0) {
            return "severity " + r.severity() + " is not S1, S2 or S3";
        }
        if (sev == 0) {
            return "weight." + r.severity().toLowerCase(java.util.Locale.ROOT) + " is 0";
        }
        if (r.self()) {
            return p.self() == 0 ? "weight.self is 0" : null;
        }
        int tier = tiers.computeIfAbsent(r.observer(), observerTier::applyAsInt);
        if (tier < p.minObserverTier()) {
            return "observer tier " + tier;
        }
        if (p.peer() == 0) {
            return "weight.peer is 0";
        }
        if (attested && p.attested() == 0) {
            return "attested only (the observer's word; weight.attested is 0)";
        }
        return null;
    }

    /** A finding with its weight before the observer's view, or the reason it weighs nothing. */
    private static final class Entry {
        final FindingRecord r;
        final double base;
        final String why;

        Entry(FindingRecord r, double base, String why) {
            this.r = r;
            this.base = base;
            this.why = why;
        }
    }

    private static final class Subject {
        final String did;
        String pubkey;
        long pubkeyAt = Long.MIN_VALUE;
        final List<Entry> candidates = new ArrayList<>();
        final List<Entry> ignored = new ArrayList<>();

        Subject(String did) {
            this.did = did;
        }

        void note(FindingRecord r) {
            if (r.subjectPubkey() != null && r.createdAt() >= pubkeyAt) {
                pubkey = r.subjectPubkey();
                pubkeyAt = r.createdAt();
            }
        }

        /**
         * {@code max(0, 1 - sum)} over this subject's findings of one scope, each evidence once (its heaviest
         * finding); fills {@code counted} and {@code ignored} when given.
         */
        double view(String scope, Map<String, Double> transit, List<Counted> counted, List<Entry> ignored) {
            Map<String, Entry> best = new LinkedHashMap<>();
            Map<String, Double> bestWeight = new HashMap<>();
            for (Entry e : candidates) {
                if (!scope.equals(e.r.scope())) {
                    continue;
                }
                double w = weight(e, transit);
                if (w <= 0) {
                    if (ignored != null) {
                        ignored.add(new Entry(e.r, 0, e.base == 0 ? "decayed to 0" : "observer view_transit is 0"));
                    }
                    continue;
                }
                Entry held = best.get(e.r.evidenceDigest());
                if (held == null) {
                    best.put(e.r.evidenceDigest(), e);
                    bestWeight.put(e.r.evidenceDigest(), w);
                    continue;
                }
                double hw = bestWeight.get(e.r.evidenceDigest());
                boolean wins = w > hw || (w == hw && e.r.eventId().compareTo(held.r.eventId()) < 0);
                Entry loser = wins ? held : e;
                if (wins) {
                    best.put(e.r.evidenceDigest(), e);
                    bestWeight.put(e.r.evidenceDigest(), w);
                }
                if (ignored != null) {
                    ignored.add(new Entry(loser.r, 0, "duplicate evidence"));
                }
            }
            double sum = 0;
            for (Map.Entry<String, Entry> b : best.entrySet()) {
                double w = bestWeight.get(b.getKey());
                sum += w;
                if (counted != null) {
                    FindingRecord r = b.getValue().r;
                    counted.add(new Counted(r.eventId(), r.observer(), r.severity(), r.scope(), r.rule(),
                            r.verdict(), w));
                }
            }
            return Math.max(0, 1 - sum);
        }

        private static double weight(Entry e, Map<String, Double> transit) {
            return e.r.self() ? e.base : e.base * transit.getOrDefault(e.r.observer(), 1.0);
        }
    }
}
