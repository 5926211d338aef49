package org.fleetmesh.standing;

import java.util.List;

/**
 * One subject's two views and the findings behind them.
 *
 * @param subject the subject's DID, short form
 * @param pubkey its Nostr key, hex, as the newest finding names it (may be null)
 * @param transit {@code view_transit}, in [0, 1]
 * @param compute {@code view_compute}, in [0, 1]
 * @param counted the findings that moved a view, heaviest first
 * @param ignored the findings that weigh nothing, newest first
 */
public record SubjectView(String subject, String pubkey, double transit, double compute, List<Counted> counted,
        List<Ignored> ignored) {
    public SubjectView {
        counted = List.copyOf(counted);
        ignored = List.copyOf(ignored);
    }
}
