package org.fleetmesh.standing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns each peer's {@link Action} into the steps that apply it once (docs/spec/standing.md, "Actions"): a view that
 * crosses below {@code demote-below} demotes one tier once per crossing; below {@code suspend-below} the grant is
 * suspended, and reinstated when the view climbs back; below {@code quarantine-below} the peer is quarantined, which
 * takes the place of a suspension (the grant is withdrawn for the quarantine; after it the peer starts again, as after
 * an S3). Remembers the last action of at most {@code remembered} peers. Thread-safe.
 */
public final class Enforcement {
    public enum Step {
        DEMOTE, SUSPEND, REINSTATE, QUARANTINE
    }

    private final Map<String, Action> applied;

    public Enforcement(int remembered) {
        this.applied = new LinkedHashMap<>(64, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Action> eldest) {
                return size() > remembered;
            }
        };
    }

    /** The steps that take {@code peer} from the action last applied to {@code now}. */
    public synchronized List<Step> steps(String peer, Action now) {
        Action before = applied.getOrDefault(peer, Action.NONE);
        List<Step> steps = new ArrayList<>(2);
        if (before == Action.NONE && now != Action.NONE) {
            steps.add(Step.DEMOTE);
        }
        if (now == Action.SUSPEND && before != Action.SUSPEND) {
            steps.add(Step.SUSPEND); // also climbing out of a quarantine into the suspension range
        }
        if (now == Action.QUARANTINE && before != Action.QUARANTINE) {
            steps.add(Step.QUARANTINE);
        }
        if (!atLeast(now, Action.SUSPEND) && before == Action.SUSPEND) {
            steps.add(Step.REINSTATE);
        }
        if (now == Action.NONE) {
            applied.remove(peer);
        } else {
            applied.put(peer, now);
        }
        return steps;
    }

    /** The peers with an action applied (their views may recover without a finding left about them). */
    public synchronized Set<String> acted() {
        return Set.copyOf(applied.keySet());
    }

    private static boolean atLeast(Action a, Action b) {
        return a.ordinal() >= b.ordinal();
    }
}
