package org.fleetmesh.peering.link;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import org.fleetmesh.nostr.NostrJson;
import org.fleetmesh.nostr.Snippet;

/**
 * The event frame of a link, {@code ["MESH-EVENTS", {"seq": <n>, "count": <k>}, [<event>, ...]]}, read in two steps so
 * that the budget is charged between them: {@link #header} reads the type and the header object only (a streaming
 * parse of the first elements); {@link Reader#events} then splits the array into the events' own JSON texts, which
 * the relay parses and verifies. Also the frames this node answers with (docs/spec/link-events.md).
 */
public final class EventFrame {
    public static final String EVENTS = "MESH-EVENTS";
    public static final String EVENTS_OK = "MESH-EVENTS-OK";
    public static final String REFUSED = "MESH-EVENTS-REFUSED";
    public static final String DIDCOMM = "MESH-DIDCOMM";
    /** Largest sequence number: a JSON-safe integer. */
    public static final long MAX_SEQ = (1L << 53) - 1;

    static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build()).build();

    private EventFrame() {
    }

    /** A frame this node will not read further; {@code seq} is -1 when the header did not say. */
    public static final class Unreadable extends Exception {
        private static final long serialVersionUID = 1L;
        private final long seq;

        Unreadable(long seq, String reason) {
            super(reason);
            this.seq = seq;
        }

        public long seq() {
            return seq;
        }
    }

    /** The type and header of a message, and where its parse stopped. */
    public static final class Reader implements AutoCloseable {
        private final String text;
        private final JsonParser parser;
        private final String type;
        private final long seq;
        private final long count;
        private final String headerJson;

        private Reader(String text, JsonParser parser, String type, long seq, long count, String headerJson) {
            this.text = text;
            this.parser = parser;
            this.type = type;
            this.seq = seq;
            this.count = count;
            this.headerJson = headerJson;
        }

        /** The header object's JSON text exactly as sent (event frames only; null otherwise). */
        public String headerJson() {
            return headerJson;
        }

        /** The message type; null when the message is no array starting with a string. */
        public String type() {
            return type;
        }

        public boolean isEvents() {
            return EVENTS.equals(type);
        }

        /** The frame's {@code seq} (event frames only). */
        public long seq() {
            return seq;
        }

        /** The number of events the header announces (event frames only). */
        public long count() {
            return count;
        }

        /**
         * Reads the rest of an event frame: the array of events, each as its own JSON text, exactly as sent. Nothing
         * is verified here; an element that is not an object is an {@link Unreadable} frame.
         */
        public List<String> events(int max) throws Unreadable {
            List<String> out = new ArrayList<>((int) Math.min(count, max));
            try {
                if (parser.nextToken() != JsonToken.START_ARRAY) {
                    throw new Unreadable(seq, "invalid: the third element of MESH-EVENTS is the array of events");
                }
                JsonToken t;
                while ((t = parser.nextToken()) != JsonToken.END_ARRAY) {
                    if (t != JsonToken.START_OBJECT) {
                        throw new Unreadable(seq, "invalid: event " + out.size() + " of the frame is not a JSON object");
                    }
                    if (out.size() == max) {
                        throw new Unreadable(seq, "invalid: a frame holds at most " + max + " events");
                    }
                    int start = (int) parser.currentTokenLocation().getCharOffset();
                    parser.skipChildren();
                    int end = (int) parser.currentLocation().getCharOffset();
                    out.add(text.substring(start, end));
                }
                if (parser.nextToken() != JsonToken.END_ARRAY || parser.nextToken() != null) {
                    throw new Unreadable(seq, "invalid: MESH-EVENTS has three elements");
                }
            } catch (IOException e) {
                throw new Unreadable(seq, "malformed: not JSON (" + why(e) + ")");
            }
            return out;
        }

        @Override
        public void close() {
            try {
                parser.close();
            } catch (IOException e) {
                // a parser over a string has nothing to release
            }
        }
    }

    /**
     * Reads a message's type and, for an event frame, its header; nothing after the header.
     *
     * @throws Unreadable for a message that is not JSON, not an array starting with a string, or an event frame whose
     *         header is not {@code {"seq": <0..2^53-1>, "count": <0..maxEvents>}}
     */
    public static Reader header(String text, int maxEvents) throws Unreadable {
        JsonParser p = null;
        try {
            p = FACTORY.createParser(text);
            if (p.nextToken() != JsonToken.START_ARRAY || p.nextToken() != JsonToken.VALUE_STRING) {
                p.close();
                throw new Unreadable(-1, "malformed: a link message is a JSON array starting with its type");
            }
            String type = p.getText();
            if (!EVENTS.equals(type)) {
                return new Reader(text, p, type, -1, 0, null);
            }
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new Unreadable(-1, "invalid: MESH-EVENTS needs a header object {\"seq\", \"count\"}");
            }
            int headerStart = (int) p.currentTokenLocation().getCharOffset();
            long seq = -1, count = -1;
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                if (name.equals("seq") || name.equals("count")) {
                    if (p.currentToken() != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                            || p.getLongValue() < 0) {
                        throw new Unreadable(seq, "invalid: the header's " + name + " must be a non-negative integer");
                    }
                    long v = p.getLongValue();
                    if (name.equals("seq")) {
                        if (seq >= 0 || v > MAX_SEQ) {
                            throw new Unreadable(-1, "invalid: the header's seq is duplicated or above 2^53-1");
                        }
                        seq = v;
                    } else {
                        if (count >= 0) {
                            throw new Unreadable(seq, "invalid: the header's count is duplicated");
                        }
                        count = v;
                    }
                } else {
                    p.skipChildren(); // later versions may add members
                }
            }
            if (t != JsonToken.END_OBJECT || seq < 0 || count < 0) {
                throw new Unreadable(seq, "invalid: the MESH-EVENTS header needs \"seq\" and \"count\"");
            }
            if (count < 1 || count > maxEvents) {
                throw new Unreadable(seq, "invalid: a frame holds 1.." + maxEvents + " events, the header says " + count);
            }
            String headerJson = text.substring(headerStart, (int) p.currentLocation().getCharOffset());
            return new Reader(text, p, type, seq, count, headerJson);
        } catch (IOException e) {
            close(p);
            throw new Unreadable(-1, "malformed: not JSON (" + why(e) + ")");
        } catch (Unreadable e) {
            close(p);
            throw e;
        }
    }

    private static void close(JsonParser p) {
        if (p != null) {
            try {
                p.close();
            } catch (IOException ignored) {
                // nothing to release
            }
        }
    }

    /** The frame a sender writes for {@code events} (each an event's JSON). */
    public static String encode(long seq, List<String> events) {
        StringBuilder sb = new StringBuilder(64 + events.stream().mapToInt(String::length).sum() + events.size());
        sb.append("[\"").append(EVENTS).append("\",{\"seq\":").append(seq).append(",\"count\":").append(events.size())
                .append("},[");
        for (int i = 0; i < events.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(events.get(i));
        }
        return sb.append("]]").toString();
    }

    /** One event's answer: its id (null when it could not be read), accepted or not, and the NIP-01 message. */
    public record Answer(String id, boolean accepted, String message) {
    }

    /** {@code ["MESH-EVENTS-OK", {"seq": n}, [[<id>, <bool>, <message>], ...]]}, in the frame's order. */
    public static String answers(long seq, List<Answer> answers) {
        StringBuilder sb = new StringBuilder(32 + answers.size() * 100);
        sb.append("[\"").append(EVENTS_OK).append("\",{\"seq\":").append(seq).append("},[");
        for (int i = 0; i < answers.size(); i++) {
            Answer a = answers.get(i);
            if (i > 0) {
                sb.append(',');
            }
            sb.append('[').append(a.id() == null ? "null" : NostrJson.quote(a.id())).append(',').append(a.accepted())
                    .append(',').append(NostrJson.quote(a.message())).append(']');
        }
        return sb.append("]]").toString();
    }

    /**
     * {@code ["MESH-EVENTS-REFUSED", {"seq": n|null, "retry_ms": ms|null}, "<reason>"]}: nothing of the frame was
     * read past its header, nothing stored.
     */
    public static String refused(long seq, long retryMillis, String reason) {
        return "[\"" + REFUSED + "\",{\"seq\":" + (seq < 0 ? "null" : Long.toString(seq)) + ",\"retry_ms\":"
                + (retryMillis < 0 ? "null" : Long.toString(retryMillis)) + "}," + NostrJson.quote(reason) + "]";
    }

    /** What the JSON parser found wrong, without its location (a copy of the peer's text). */
    private static String why(IOException e) {
        return Snippet.of(e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage());
    }
}
