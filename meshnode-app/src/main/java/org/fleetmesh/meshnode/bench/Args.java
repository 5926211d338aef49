package org.fleetmesh.meshnode.bench;

import org.fleetmesh.meshnode.UsageException;

/** {@code --name value} command-line options; a value that is not a number is a usage error (exit 2). */
public final class Args {
    private final String[] args;

    public Args(String[] args) {
        this.args = args;
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
}
