package org.fleetmesh.identity.capability;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The text of a node's revoked-token file (docs/spec/capabilities.md, "Revocation"): one revocation id a line, 128
 * lower-case hex digits (an Ed25519 signature), then optionally a space and anything (a note); {@code #} starts a
 * comment line; blank lines are skipped. A line that is none of these is reported and skipped, so one typo does not
 * lift every other revocation. Pure.
 */
public final class RevocationFile {
    /** The file's name in the data dir. */
    public static final String NAME = "revoked-tokens";
    private static final Pattern ID = Pattern.compile("[0-9a-f]{128}");

    /** What a file's text revokes, and the lines that do not read (1-based, with the reason). */
    public record Read(RevocationList revoked, List<String> skipped) {
    }

    private RevocationFile() {
    }

    public static Read parse(String text) {
        List<RevocationId> ids = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.indexOf(' ');
            String id = space < 0 ? line : line.substring(0, space);
            if (ID.matcher(id).matches()) {
                ids.add(RevocationId.fromHex(id));
            } else {
                skipped.add("line " + (i + 1) + ": not a revocation id (128 lower-case hex digits)");
            }
        }
        return new Read(RevocationList.of(ids), List.copyOf(skipped));
    }

    /** The line that revokes {@code id}, with a note (one line: control characters are dropped). */
    public static String line(RevocationId id, String note) {
        String n = note == null ? "" : note.replaceAll("[\\p{Cntrl}]", " ").strip();
        return id.hex() + (n.isEmpty() ? "" : " " + n) + "\n";
    }
}
