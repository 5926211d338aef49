package org.fleetmesh.identity.capability;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The checks a holder adds when it narrows a token: one Biscuit block of checks, no facts or rules. Every check
 * must hold for the token to be allowed, so a block can only take rights away. Immutable; each method returns a
 * new attenuation with one more check.
 *
 * <pre>{@code
 * Attenuation.none().onlyRights(Right.COMPUTE_RUN).fuelAtMost(500).expiresBy(now.plusSeconds(600))
 * }</pre>
 */
public final class Attenuation {
    private static final Attenuation NONE = new Attenuation(List.of());

    private final List<String> checks;

    private Attenuation(List<String> checks) {
        this.checks = checks;
    }

    /** No checks yet; {@link Capability#attenuate} refuses an attenuation without any. */
    public static Attenuation none() {
        return NONE;
    }

    /** Only these rights may be requested: {@code check if operation($op), [...].contains($op)}. */
    public Attenuation onlyRights(Right first, Right... more) {
        List<Right> rights = new ArrayList<>(List.of(more));
        rights.add(first);
        return plus(Vocabulary.operationCheck(rights));
    }

    /** At most {@code maxFuel} fuel per request: {@code check if fuel($f), $f <= maxFuel}. */
    public Attenuation fuelAtMost(long maxFuel) {
        return plus(Vocabulary.fuelCheck(maxFuel));
    }

    /** Refused after {@code expiry} (whole seconds, rounded down): {@code check if time($t), $t <= expiry}. */
    public Attenuation expiresBy(Instant expiry) {
        return plus(Vocabulary.expiryCheck(expiry));
    }

    /** Only when the verifier has authenticated {@code holder}: {@code check if holder("...")}. */
    public Attenuation heldBy(String holder) {
        return plus(Vocabulary.holderCheck(holder));
    }

    /**
     * Any Biscuit check over the vocabulary of docs/spec/capabilities.md.
     *
     * @throws IllegalArgumentException when {@code datalog} is not exactly one check
     */
    public Attenuation check(String datalog) {
        Vocabulary.parseCheck(datalog);
        return plus(datalog.strip());
    }

    /** The checks as Datalog text, in the order they were added. */
    public List<String> checks() {
        return checks;
    }

    public boolean isEmpty() {
        return checks.isEmpty();
    }

    private Attenuation plus(String check) {
        List<String> more = new ArrayList<>(checks);
        more.add(check);
        return new Attenuation(List.copyOf(more));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Attenuation a && a.checks.equals(checks);
    }

    @Override
    public int hashCode() {
        return checks.hashCode();
    }

    @Override
    public String toString() {
        return String.join("; ", checks);
    }
}
