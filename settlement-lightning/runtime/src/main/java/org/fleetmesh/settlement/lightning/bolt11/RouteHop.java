package org.fleetmesh.settlement.lightning.bolt11;

/** One entry of an {@code r} field: the channel from {@code pubkey} onward and what it charges. */
public record RouteHop(NodeId pubkey, ShortChannelId shortChannelId, long feeBaseMsat,
        long feeProportionalMillionths, int cltvExpiryDelta) {
    /** pubkey 33 + short_channel_id 8 + fee_base_msat 4 + fee_proportional_millionths 4 + cltv_expiry_delta 2. */
    static final int BYTES = 51;

    public RouteHop {
        if (pubkey == null || shortChannelId == null) {
            throw new IllegalArgumentException("pubkey and short_channel_id are required");
        }
        if (feeBaseMsat < 0 || feeBaseMsat > 0xffffffffL || feeProportionalMillionths < 0
                || feeProportionalMillionths > 0xffffffffL || cltvExpiryDelta < 0 || cltvExpiryDelta > 0xffff) {
            throw new IllegalArgumentException("fees are u32 and cltv_expiry_delta is u16");
        }
    }
}
