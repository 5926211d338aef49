package org.fleetmesh.meshnode.bench;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.fleetmesh.meshnode.UsageException;

/**
 * {@code --name value} command-line options of one bench driver: an option the driver does not take, one without
 * its value, one given twice, or a value that is not a number where a number is wanted is a usage error (exit 2), so
 * a misspelt option never silently measures the default.
 */
public final class Args {
    private final String[] args;

    /** {@code args} from {@code from} on: pairs {@code --name value}, each name one of {@code known}. */
    public Args(String[] args, int from, String... known) {
        this.args = args;
        List<String> names = List.of(known);
        Set<String> seen = new HashSet<>();
        for (int i = from; i < args.length; i += 2) {
            String name = args[i];
            if (!names.contains(name)) {
                throw new UsageException("unknown option '" + name + "' (this bench takes " + String.join(", ", names)
                        + ")");
            }
            if (i + 1 >= args.length) {
                throw new UsageException(name + " needs a value");
            }
            if (!seen.add(name)) {
                throw new UsageException(name + " is given twice");
            }
        }
    }

    public Args(String[] args, String... known) {
        this(args, 0, known);
    }

    public String get(String name, String def) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return def;
    }

    public int getInt(String name, int def) {
        String v = get(name, Integer.toString(def));
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new UsageException(name + " takes a whole number up to " + Integer.MAX_VALUE + ", not '" + v + "'");
        }
    }

    public long getLong(String name, long def) {
        String v = get(name, Long.toString(def));
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new UsageException(name + " takes a whole number up to " + Long.MAX_VALUE + ", not '" + v + "'");
        }
    }

    /** A finite decimal number. */
    public double getDouble(String name, double def) {
        String v = get(name, Double.toString(def));
        try {
            double d = Double.parseDouble(v);
            if (Double.isFinite(d)) {
                return d;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new UsageException(name + " takes a decimal number, not '" + v + "'");
    }

    /** {@code true} or {@code false}. */
    public boolean getBoolean(String name, boolean def) {
        String v = get(name, Boolean.toString(def));
        return switch (v) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new UsageException(name + " takes true or false, not '" + v + "'");
        };
    }
}
