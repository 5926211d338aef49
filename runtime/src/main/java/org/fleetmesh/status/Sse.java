package org.fleetmesh.status;

/**
 * Server-sent event framing (WHATWG HTML, "Server-sent events"): an event is optional {@code event:} and {@code id:}
 * lines and one {@code data:} line per line of its data, ended by an empty line. A data line never carries a raw
 * CR or LF: each line break of the data starts a new {@code data:} line, so a string a peer chose cannot end the
 * event early or forge another.
 */
public final class Sse {
    private Sse() {
    }

    /** One event named {@code name} (null: the default, "message") carrying {@code data}. */
    public static String event(String name, String data) {
        StringBuilder b = new StringBuilder(data.length() + 32);
        if (name != null) {
            if (name.isEmpty() || name.chars().anyMatch(c -> c == '\r' || c == '\n')) {
                throw new IllegalArgumentException("an event name is one non-empty line");
            }
            b.append("event: ").append(name).append('\n');
        }
        int from = 0;
        for (int i = 0; i <= data.length(); i++) {
            boolean end = i == data.length();
            char c = end ? 0 : data.charAt(i);
            if (end || c == '\n' || c == '\r') {
                b.append("data: ").append(data, from, i).append('\n');
                if (!end && c == '\r' && i + 1 < data.length() && data.charAt(i + 1) == '\n') {
                    i++;
                }
                from = i + 1;
            }
        }
        return b.append('\n').toString();
    }

    /** A comment line: keeps the connection warm, ignored by the browser. */
    public static String comment(String text) {
        return ": " + text.replace('\r', ' ').replace('\n', ' ') + "\n\n";
    }
}
