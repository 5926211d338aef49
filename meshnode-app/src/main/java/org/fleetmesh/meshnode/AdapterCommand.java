package org.fleetmesh.meshnode;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * A subcommand that belongs to an adapter chosen at build time (docs/OPERATING.md, "Choosing adapters"): it is
 * compiled into the app only with the adapter's Maven profile (meshnode-app/src/&lt;adapter&gt;/java) and found by its
 * class name, so a build without the adapter carries none of its classes and says so when asked for it.
 */
public interface AdapterCommand {
    /** The adapter, as the profile and the error name it: {@code lightning}, {@code cashu}. */
    String adapter();

    /** The words it answers to: a top-level command ({@code bolt11}) or {@code bench <name>}. */
    List<String> names();

    /** Runs {@code args} (the whole command line, {@code args[0]} the command). Returns the exit code. */
    int run(String[] args) throws Exception;

    /** A small operation {@code bench crypto} times next to BIP-340 verification, if the adapter has one. */
    default Optional<Callable<Object>> cryptoBenchOp() {
        return Optional.empty();
    }

    /** The adapter commands there can be, one class per adapter (in src/&lt;adapter&gt;/java). */
    List<String> CLASSES = List.of("org.fleetmesh.meshnode.lightning.LightningCommands",
            "org.fleetmesh.meshnode.cashu.CashuCommands");

    /** Every adapter command in this build. */
    static List<AdapterCommand> all() {
        List<AdapterCommand> found = new java.util.ArrayList<>();
        for (String name : CLASSES) {
            Class<?> type;
            try {
                type = Class.forName(name, true, AdapterCommand.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                continue; // its adapter's profile was off at build time
            }
            try {
                found.add((AdapterCommand) type.getDeclaredConstructor().newInstance());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot create " + name, e);
            }
        }
        return found;
    }

    /** The command answering to {@code name}, if the adapter that has it is in this build. */
    static Optional<AdapterCommand> find(String name) {
        return all().stream().filter(c -> c.names().contains(name)).findFirst();
    }

    /** Which adapter a command name belongs to, for the error a build without it gives. */
    static String adapterOf(String name) {
        return switch (name) {
            case "bolt11", "bolt12" -> "lightning";
            case "cashu", "bench cashu" -> "cashu";
            default -> throw new IllegalArgumentException(name);
        };
    }

    /** The answer when {@code name}'s adapter was left out of this build. */
    static UsageException missing(String name) {
        String adapter = adapterOf(name);
        return new UsageException("'" + name + "' needs the " + adapter + " adapter, which this build leaves out (built with -Dno-"
                + adapter + "); rebuild without that flag (docs/OPERATING.md, \"Choosing adapters\")");
    }
}
