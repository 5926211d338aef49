package org.fleetmesh.compute;

/**
 * A job that did not run to its end, and why. {@link #getMessage()} starts with the reason's words, which the CLI
 * prints and the protocol sends: {@code fuel exhausted}, {@code memory limit}, {@code timeout}, {@code output limit},
 * {@code invalid module: ...}, {@code import not allowed: ...}, {@code trap: ...}.
 */
public final class JobFailure extends Exception {
    public enum Reason {
        FUEL_EXHAUSTED("fuel exhausted"),
        MEMORY_LIMIT("memory limit"),
        TIMEOUT("timeout"),
        OUTPUT_LIMIT("output limit"),
        INVALID_MODULE("invalid module"),
        IMPORT_NOT_ALLOWED("import not allowed"),
        TRAP("trap");

        private final String words;

        Reason(String words) {
            this.words = words;
        }

        public String words() {
            return words;
        }
    }

    private final Reason reason;
    private final long fuelUsed;

    /** @param detail what follows the reason's words after ": " (may be empty) */
    public JobFailure(Reason reason, String detail, long fuelUsed) {
        super(detail == null || detail.isEmpty() ? reason.words() : reason.words() + ": " + detail, null, false, false);
        this.reason = reason;
        this.fuelUsed = fuelUsed;
    }

    public Reason reason() {
        return reason;
    }

    /** Fuel spent before it stopped (the whole limit when fuel ran out; 0 when it was refused at admission). */
    public long fuelUsed() {
        return fuelUsed;
    }
}
