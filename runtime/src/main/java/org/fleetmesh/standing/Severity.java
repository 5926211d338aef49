package org.fleetmesh.standing;

/**
 * The finding ladder (docs/spec/findings.md): S0 clean, S1 protocol deviation, S2 cryptographic or state breach, S3
 * denial of service. The seed's prose once says "S1–S4"; fleetmesh uses S0–S3. S0 is never published.
 */
public enum Severity {
    S0, S1, S2, S3;

    /** The severity named {@code word} ({@code S0}..{@code S3}), or null for anything else. */
    public static Severity parse(String word) {
        if (word == null) {
            return null;
        }
        for (Severity s : values()) {
            if (s.name().equals(word)) {
                return s;
            }
        }
        return null;
    }
}
