package org.fleetmesh.settlement.lightning.bolt11;

import java.util.Optional;

/** The chain an invoice is payable on, named by its BIP-173 currency prefix after {@code ln}. */
public enum Network {
    BITCOIN("bc", "bc", 0x00, 0x05),
    TESTNET("tb", "tb", 0x6f, 0xc4),
    SIGNET("tbs", "tb", 0x6f, 0xc4),
    REGTEST("bcrt", "bcrt", 0x6f, 0xc4),
    SIMNET("sb", "sb", 0x3f, 0x7b);

    private final String prefix;
    private final String segwitHrp;
    private final int p2pkhVersion;
    private final int p2shVersion;

    Network(String prefix, String segwitHrp, int p2pkhVersion, int p2shVersion) {
        this.prefix = prefix;
        this.segwitHrp = segwitHrp;
        this.p2pkhVersion = p2pkhVersion;
        this.p2shVersion = p2shVersion;
    }

    /** The currency prefix as it appears in the invoice, e.g. {@code bcrt}. */
    public String prefix() {
        return prefix;
    }

    String segwitHrp() {
        return segwitHrp;
    }

    int p2pkhVersion() {
        return p2pkhVersion;
    }

    int p2shVersion() {
        return p2shVersion;
    }

    /** The network whose prefix starts {@code s}, longest first so {@code bcrt} is not read as {@code bc}. */
    static Optional<Network> ofPrefixOf(String s) {
        Network best = null;
        for (Network n : values()) {
            if (s.startsWith(n.prefix) && (best == null || n.prefix.length() > best.prefix.length())) {
                best = n;
            }
        }
        return Optional.ofNullable(best);
    }
}
