package org.fleetmesh.delivery.log;

import java.util.Arrays;
import java.util.Base64;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Snippet;

/**
 * A C2SP tlog-checkpoint body: {@code <origin>\n<size>\n<base64 root>\n}. The origin of a custody tree is
 * {@code fleetmesh.custody/<receiver pubkey hex>/<sender pubkey hex>}. A custody receipt's content is exactly these
 * three lines: no extension lines.
 */
public record Checkpoint(String origin, long size, byte[] root) {
    private static final String PREFIX = "fleetmesh.custody/";

    public Checkpoint {
        if (origin == null || origin.isEmpty() || origin.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("a checkpoint origin is one non-empty line");
        }
        if (size < 0) {
            throw new IllegalArgumentException("a tree size is not negative");
        }
        if (root == null || root.length != 32) {
            throw new IllegalArgumentException("a checkpoint root is 32 bytes");
        }
        root = root.clone();
    }

    public static String origin(PubKey receiver, PubKey sender) {
        return PREFIX + receiver.hex() + "/" + sender.hex();
    }

    /** The checkpoint text: origin, size and base64 (standard, padded) root, each line ending in a newline. */
    public String body() {
        return origin + "\n" + size + "\n" + Base64.getEncoder().encodeToString(root) + "\n";
    }

    @Override
    public byte[] root() {
        return root.clone();
    }

    /** Whether the origin is the custody origin of this receiver and sender. */
    public boolean isCustodyOf(PubKey receiver, PubKey sender) {
        return origin.equals(origin(receiver, sender));
    }

    /** Reads a checkpoint body; throws IllegalArgumentException saying what is wrong. */
    public static Checkpoint parse(String body) {
        if (body == null || !body.endsWith("\n")) {
            throw new IllegalArgumentException("a checkpoint ends with a newline");
        }
        String[] lines = body.substring(0, body.length() - 1).split("\n", -1);
        if (lines.length != 3) {
            throw new IllegalArgumentException("a custody checkpoint has exactly three lines (origin, size, root), not "
                    + lines.length);
        }
        if (lines[0].isEmpty()) {
            throw new IllegalArgumentException("the checkpoint origin is empty");
        }
        long size = parseDecimal(lines[1], "the checkpoint size");
        byte[] root;
        try {
            root = Base64.getDecoder().decode(lines[2]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the checkpoint root is not base64: " + e.getMessage());
        }
        if (root.length != 32 || !Base64.getEncoder().encodeToString(root).equals(lines[2])) {
            throw new IllegalArgumentException("the checkpoint root is not 32 bytes in standard padded base64");
        }
        return new Checkpoint(lines[0], size, root);
    }

    /** A non-negative decimal without sign or leading zeros that fits a long. */
    static long parseDecimal(String s, String what) {
        if (s.isEmpty() || s.length() > 19 || (s.length() > 1 && s.charAt(0) == '0')) {
            throw new IllegalArgumentException(what + " is not a decimal without leading zeros: \"" + Snippet.of(s) + "\"");
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                throw new IllegalArgumentException(what + " is not a decimal: \"" + Snippet.of(s) + "\"");
            }
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " is too large: " + s);
        }
    }


    @Override
    public boolean equals(Object o) {
        return o instanceof Checkpoint c && c.origin.equals(origin) && c.size == size && Arrays.equals(c.root, root);
    }

    @Override
    public int hashCode() {
        return origin.hashCode() * 31 + Long.hashCode(size) * 17 + Arrays.hashCode(root);
    }

    @Override
    public String toString() {
        return "Checkpoint[" + origin + ", " + size + ", " + Hex.encode(root) + "]";
    }
}
