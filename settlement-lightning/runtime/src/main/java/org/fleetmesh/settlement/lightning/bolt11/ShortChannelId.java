package org.fleetmesh.settlement.lightning.bolt11;

/** A channel's position on chain: 3 bytes block height, 3 bytes transaction index, 2 bytes output index. */
public record ShortChannelId(long value) {

    public static ShortChannelId of(int blockHeight, int txIndex, int outputIndex) {
        return new ShortChannelId(((long) blockHeight << 40) | ((long) txIndex << 16) | outputIndex);
    }

    public int blockHeight() {
        return (int) (value >>> 40);
    }

    public int txIndex() {
        return (int) ((value >>> 16) & 0xffffff);
    }

    public int outputIndex() {
        return (int) (value & 0xffff);
    }

    /** The {@code 589390x3312x1} form BOLT #7 and node software print. */
    @Override
    public String toString() {
        return blockHeight() + "x" + txIndex() + "x" + outputIndex();
    }
}
