package org.fleetmesh.settlement.lightning.bolt12;

import java.util.Map;
import java.util.Optional;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.settlement.lightning.bolt11.ByteValue;

/** A {@code chain_hash}: the genesis block hash in the byte order BOLT #12 (and BOLT #7) write it. */
public final class ChainHash extends ByteValue {
    public static final ChainHash BITCOIN = ofHex("6fe28c0ab6f1b372c1a6a246ae63f74f931e8365e15a089c68d6190000000000");
    public static final ChainHash TESTNET = ofHex("43497fd7f826957108f4a30fd9cec3aeba79972084e90ead01ea330900000000");
    public static final ChainHash SIGNET = ofHex("f61eee3b63a380a477a063af32b2bbc97c9ff9f01f2c4225e973988108000000");
    public static final ChainHash REGTEST = ofHex("06226e46111a0b59caaf126043eb5bbf28c34f3a5e332a1fc7b2b73cf188910f");
    public static final ChainHash LIQUIDV1 = ofHex("1466275836220db2944ca059a3a10ef6fd2ea684b0688d2c379296888a206003");

    private static final Map<ChainHash, String> NAMES = Map.of(BITCOIN, "bitcoin", TESTNET, "testnet",
            SIGNET, "signet", REGTEST, "regtest", LIQUIDV1, "liquidv1");

    public ChainHash(byte[] bytes) {
        super(bytes, 32);
    }

    public static ChainHash ofHex(String hex) {
        return new ChainHash(Hex.decode(hex, 32));
    }

    /** The chain's common name when it is one this reader knows. */
    public Optional<String> name() {
        return Optional.ofNullable(NAMES.get(this));
    }
}
