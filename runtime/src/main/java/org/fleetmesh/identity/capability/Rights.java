package org.fleetmesh.identity.capability;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The rights a node grants in one token: a non-empty set of {@link Right}s and, exactly when
 * {@link Right#COMPUTE_RUN} is among them, the fuel limit of one compute request.
 */
public final class Rights {
    private final Set<Right> rights;
    private final OptionalLong fuelLimit;

    private Rights(Set<Right> rights, OptionalLong fuelLimit) {
        if (rights.isEmpty()) {
            throw new IllegalArgumentException("a token grants at least one right");
        }
        this.rights = Collections.unmodifiableSet(rights);
        this.fuelLimit = fuelLimit;
    }

    /** Rights without compute; {@link Right#COMPUTE_RUN} needs a fuel limit, see {@link #computeRun}. */
    public static Rights of(Right first, Right... more) {
        EnumSet<Right> set = EnumSet.of(Objects.requireNonNull(first, "right"), more);
        if (set.contains(Right.COMPUTE_RUN)) {
            throw new IllegalArgumentException("compute:run is granted with a fuel limit: use Rights.computeRun(limit)");
        }
        return new Rights(set, OptionalLong.empty());
    }

    /** {@code compute:run} with at most {@code fuelLimit} fuel per request. */
    public static Rights computeRun(long fuelLimit) {
        return new Rights(EnumSet.of(Right.COMPUTE_RUN), OptionalLong.of(requirePositive(fuelLimit)));
    }

    /** These rights and {@code more} (which may not include {@link Right#COMPUTE_RUN}). */
    public Rights and(Right first, Right... more) {
        Rights added = of(first, more);
        EnumSet<Right> set = EnumSet.copyOf(rights);
        set.addAll(added.rights);
        return new Rights(set, fuelLimit);
    }

    /** These rights and {@code compute:run} with the given fuel limit. */
    public Rights andComputeRun(long fuelLimit) {
        if (this.fuelLimit.isPresent()) {
            throw new IllegalArgumentException("compute:run is already granted, with fuel limit "
                    + this.fuelLimit.getAsLong());
        }
        EnumSet<Right> set = EnumSet.copyOf(rights);
        set.add(Right.COMPUTE_RUN);
        return new Rights(set, OptionalLong.of(requirePositive(fuelLimit)));
    }

    public Set<Right> rights() {
        return rights;
    }

    public boolean grants(Right right) {
        return rights.contains(right);
    }

    /** Present exactly when {@link Right#COMPUTE_RUN} is granted. */
    public OptionalLong fuelLimit() {
        return fuelLimit;
    }

    private static long requirePositive(long fuelLimit) {
        if (fuelLimit <= 0) {
            throw new IllegalArgumentException("a fuel limit is positive, got " + fuelLimit);
        }
        return fuelLimit;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Rights r && r.rights.equals(rights) && r.fuelLimit.equals(fuelLimit);
    }

    @Override
    public int hashCode() {
        return 31 * rights.hashCode() + fuelLimit.hashCode();
    }

    @Override
    public String toString() {
        return rights + fuelLimit.stream().mapToObj(l -> " fuel_limit " + l).findFirst().orElse("");
    }
}
