package org.fleetmesh.compute.market;

import java.util.List;
import java.util.Optional;

import org.fleetmesh.compute.JobSpec;

/**
 * Which worker a buyer takes (docs/spec/compute.md, "Choosing a worker"): among linked peers with an offer, those
 * whose {@code view_compute} here is at least the buyer's minimum, whose limits take the job, whose rails include at
 * least one the buyer pays with and whose {@code min_price} is within its maximum; the lowest price at the job's fuel
 * limit, then the higher {@code view_compute}. The job is paid with {@link #rail}: the first of the buyer's rails (in
 * its order of preference) that the offer lists.
 */
public final class WorkerChoice {

    /** An offer as the buyer sees it: its worker's compute standing here and whether its link is open. */
    public record Candidate(Offer offer, double viewCompute, boolean linked) {
    }

    /** The chosen candidate, or why none fits (the last reason found). */
    public record Choice(Optional<Candidate> chosen, String reason) {
    }

    private WorkerChoice() {
    }

    /** {@link #unfit(Candidate, JobSpec, long, List, double)} for a buyer with one rail, {@code ""} for none. */
    public static String unfit(Candidate c, JobSpec spec, long maxPriceMsat, String rail, double minViewCompute) {
        return unfit(c, spec, maxPriceMsat, one(rail), minViewCompute);
    }

    private static List<String> one(String rail) {
        return rail.isEmpty() ? List.of() : List.of(rail);
    }

    /**
     * Why {@code c} cannot take the job, or null. {@code rails} are the rail ids the buyer pays with, preferred first;
     * empty when it has none.
     */
    public static String unfit(Candidate c, JobSpec spec, long maxPriceMsat, List<String> rails,
            double minViewCompute) {
        Offer o = c.offer();
        if (!c.linked()) {
            return "worker " + o.did() + ": no open link";
        }
        if (c.viewCompute() < minViewCompute) {
            return "worker " + o.did() + ": view_compute " + c.viewCompute() + " is below min-view-compute "
                    + minViewCompute;
        }
        if (spec.fuelLimit() > o.maxFuel() || spec.memoryPages() > o.maxMemoryPages()) {
            return "worker " + o.did() + ": the job is over its limits (max_fuel " + o.maxFuel()
                    + ", max_memory_pages " + o.maxMemoryPages() + ")";
        }
        if (!o.free() && rail(o, rails).isEmpty()) {
            return "worker " + o.did() + ": it takes " + o.rails() + "; this node pays with "
                    + (rails.isEmpty() ? "no rail" : rails);
        }
        if (!o.free() && o.minPrice() > maxPriceMsat) {
            return "worker " + o.did() + ": min_price " + o.minPrice() + " msat is above max_price_msat "
                    + maxPriceMsat;
        }
        return null;
    }

    /** The rail to pay {@code o} with: the first of {@code rails} (the buyer's, preferred first) that it lists. */
    public static Optional<String> rail(Offer o, List<String> rails) {
        return rails.stream().filter(o.rails()::contains).findFirst();
    }

    /** {@link #cheapest(List, JobSpec, long, List, double)} for a buyer with one rail, {@code ""} for none. */
    public static Choice cheapest(List<Candidate> all, JobSpec spec, long maxPriceMsat, String rail,
            double minViewCompute) {
        return cheapest(all, spec, maxPriceMsat, one(rail), minViewCompute);
    }

    public static Choice cheapest(List<Candidate> all, JobSpec spec, long maxPriceMsat, List<String> rails,
            double minViewCompute) {
        Candidate best = null;
        long bestPrice = Long.MAX_VALUE;
        String reason = "no linked peer offers compute";
        for (Candidate c : all) {
            String why = unfit(c, spec, maxPriceMsat, rails, minViewCompute);
            if (why != null) {
                reason = why;
                continue;
            }
            long price = c.offer().free() ? 0 : c.offer().price(spec.fuelLimit());
            if (best == null || price < bestPrice || (price == bestPrice && c.viewCompute() > best.viewCompute())) {
                best = c;
                bestPrice = price;
            }
        }
        return new Choice(Optional.ofNullable(best), best == null ? reason : "");
    }
}
