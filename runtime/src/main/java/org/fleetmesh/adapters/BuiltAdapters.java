package org.fleetmesh.adapters;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Which adapter extensions a build carries (their Quarkus capabilities, recorded at build time in the system property
 * {@link #PROPERTY}), and which settings ask for one it does not carry. A node configured for a rail its build left out
 * (docs/OPERATING.md, "Choosing adapters") refuses to start with that reason, instead of running without the rail.
 */
public final class BuiltAdapters {
    /** The system property the build sets: the capabilities of the fleetmesh extensions present, comma-separated. */
    public static final String PROPERTY = "fleetmesh.build.adapters";

    /** A setting that needs an adapter: when {@code key} has {@code value}, {@code capability} must be built in. */
    public record Need(String key, String value, String capability, String profile) {
    }

    /** The settings that switch on an adapter, with the capability and the meshnode-app profile that bring it. */
    public static final List<Need> NEEDS = List.of(
            new Need("fleetmesh.lightning.enabled", "true", "org.fleetmesh.settlement.lightning", "settlement-lightning"),
            new Need("fleetmesh.cashu.enabled", "true", "org.fleetmesh.settlement.cashu", "settlement-cashu"),
            new Need("fleetmesh.compute.sandbox.runtime", "wasmtime", "org.fleetmesh.compute.wasmtime", "compute-wasmtime"));

    private final Set<String> capabilities;

    public BuiltAdapters(Set<String> capabilities) {
        this.capabilities = Set.copyOf(capabilities);
    }

    /** Parses the property's value (null or blank: none). */
    public static BuiltAdapters parse(String property) {
        Set<String> out = new TreeSet<>();
        if (property != null) {
            Arrays.stream(property.split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(out::add);
        }
        return new BuiltAdapters(out);
    }

    public Set<String> capabilities() {
        return new TreeSet<>(capabilities);
    }

    public boolean has(String capability) {
        return capabilities.contains(capability);
    }

    /** Why the settings ({@code setting}: key to value) cannot run on this build, one line per problem; empty if they can. */
    public List<String> problems(Function<String, Optional<String>> setting) {
        List<String> out = new ArrayList<>();
        for (Need need : NEEDS) {
            Optional<String> value = setting.apply(need.key());
            if (value.isPresent() && value.get().trim().equalsIgnoreCase(need.value()) && !has(need.capability())) {
                out.add(need.key() + "=" + need.value() + " needs the adapter " + need.capability()
                        + ", which this build leaves out (meshnode-app profile " + need.profile() + "; rebuild without -Dno-"
                        + need.profile().substring(need.profile().indexOf('-') + 1) + ")");
            }
        }
        return out;
    }
}
