package org.fleetmesh.delivery.log;

import org.fleetmesh.nostr.PubKey;

/**
 * A C2SP tlog-checkpoint body: {@code <origin>\n<size>\n<base64 root>\n}. The origin of a custody tree is
 * {@code fleetmesh.custody/<receiver pubkey hex>/<sender pubkey hex>}.
 */
public record Checkpoint(String origin, long size, byte[] root) {

    public static String origin(PubKey receiver, PubKey sender) {
        return "fleetmesh.custody/" + receiver.hex() + "/" + sender.hex();
    }

    /** The checkpoint text: origin, size and base64 (standard, padded) root, each line ending in a newline. */
    public String body() {
        throw new UnsupportedOperationException();
    }

    /** Reads a checkpoint body; throws IllegalArgumentException saying what is wrong. */
    public static Checkpoint parse(String body) {
        throw new UnsupportedOperationException();
    }
}
