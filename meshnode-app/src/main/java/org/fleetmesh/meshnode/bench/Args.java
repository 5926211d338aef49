package org.fleetmesh.meshnode.bench;

/** {@code --name value} command-line options. */
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
        return Integer.parseInt(get(name, Integer.toString(def)));
    }

    public long getLong(String name, long def) {
        return Long.parseLong(get(name, Long.toString(def)));
    }
}
