package org.fleetmesh.shards;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.FilterJson;
import org.fleetmesh.nostr.FilterSyntaxException;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.NostrJson;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;

/**
 * The shard replication messages on a {@code /mesh} link (docs/spec/replication.md): Negentropy v1 sessions over a
 * shard both nodes declare, and the ids the initiator asks for. Encoding and strict parsing; no state.
 *
 * <pre>
 * ["MESH-NEG-OPEN",  "&lt;shard id&gt;", &lt;filter&gt;, "&lt;hex&gt;"]   initiator → responder
 * ["MESH-NEG-MSG",   "&lt;shard id&gt;", "&lt;hex&gt;"]             initiator → responder
 * ["MESH-NEG-REPLY", "&lt;shard id&gt;", "&lt;hex&gt;"]             responder → initiator
 * ["MESH-NEG-CLOSE", "&lt;shard id&gt;"]                      initiator → responder
 * ["MESH-NEG-ERR",   "&lt;shard id&gt;", "&lt;reason&gt;"]          responder → initiator
 * ["MESH-WANT",      "&lt;shard id&gt;", ["&lt;id hex&gt;", ...]]    initiator → responder
 * </pre>
 */
public final class NegMessages {
    public static final String OPEN = "MESH-NEG-OPEN";
    public static final String MSG = "MESH-NEG-MSG";
    public static final String REPLY = "MESH-NEG-REPLY";
    public static final String CLOSE = "MESH-NEG-CLOSE";
    public static final String ERR = "MESH-NEG-ERR";
    public static final String WANT = "MESH-WANT";
    /** The message types this mechanism serves. */
    public static final List<String> TYPES = List.of(OPEN, MSG, REPLY, CLOSE, ERR, WANT);

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(8).build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    /** A message that does not read; the reason is an {@code invalid: <type> ...} answer. */
    public static final class Unreadable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreadable(String reason) {
            super(reason, null, false, false);
        }
    }

    /** {@code MESH-NEG-OPEN}: the shard, its filter as the initiator declares it, the first Negentropy message. */
    public record Open(String shard, Filter filter, byte[] message) {
    }

    /** {@code MESH-NEG-MSG} (initiator) or {@code MESH-NEG-REPLY} (responder): the next Negentropy message. */
    public record Msg(String shard, byte[] message) {
    }

    /** {@code MESH-NEG-ERR}: the responder ends the session with a reason ({@code blocked:}, {@code rate-limited:}...). */
    public record Err(String shard, String reason) {
    }

    /** {@code MESH-WANT}: ids of the shard the initiator lacks and asks the responder to push. */
    public record Want(String shard, List<EventId> ids) {
    }

    private NegMessages() {
    }

    /** The opening message, with the shard's filter in its canonical JSON (docs/spec/shards.md). */
    public static String open(Shard shard, byte[] message) {
        return open(shard.id(), ShardFilter.canonicalJson(shard.filter()), message);
    }

    /** The opening message with {@code filterJson} as given (tests write other filters). */
    static String open(String shard, String filterJson, byte[] message) {
        return "[\"" + OPEN + "\"," + NostrJson.quote(shard) + "," + filterJson + ",\"" + Hex.encode(message) + "\"]";
    }

    public static String msg(String shard, byte[] message) {
        return "[\"" + MSG + "\"," + NostrJson.quote(shard) + ",\"" + Hex.encode(message) + "\"]";
    }

    public static String reply(String shard, byte[] message) {
        return "[\"" + REPLY + "\"," + NostrJson.quote(shard) + ",\"" + Hex.encode(message) + "\"]";
    }

    public static String close(String shard) {
        return "[\"" + CLOSE + "\"," + NostrJson.quote(shard) + "]";
    }

    public static String err(String shard, String reason) {
        return "[\"" + ERR + "\"," + NostrJson.quote(shard) + "," + NostrJson.quote(reason) + "]";
    }

    public static String want(String shard, List<EventId> ids) {
        StringBuilder sb = new StringBuilder(80 + 67 * ids.size()).append("[\"").append(WANT).append("\",")
                .append(NostrJson.quote(shard)).append(",[");
        for (int i = 0; i < ids.size(); i++) {
            sb.append(i == 0 ? "\"" : ",\"").append(ids.get(i).hex()).append('"');
        }
        return sb.append("]]").toString();
    }

    /** Reads {@code MESH-NEG-OPEN}; {@code maxBytes} bounds the Negentropy message. */
    public static Open parseOpen(String text, int maxBytes, FilterJson.Limits limits) throws Unreadable {
        try (JsonParser p = start(text, OPEN)) {
            String shard = shard(p, OPEN);
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new Unreadable("invalid: " + OPEN + " element 2 must be the shard's filter (a JSON object)");
            }
            Filter f;
            try {
                f = FilterJson.read(p, limits);
            } catch (FilterSyntaxException e) {
                throw new Unreadable("invalid: " + OPEN + " filter: " + e.reason());
            }
            if (f.limit() != null) {
                throw new Unreadable("invalid: " + OPEN + " filter: a shard filter has no limit");
            }
            byte[] m = hex(p, OPEN, maxBytes);
            end(p, OPEN, 4);
            return new Open(shard, f, m);
        } catch (IOException e) {
            throw new Unreadable("invalid: " + OPEN + " is not JSON");
        }
    }

    /** Reads {@code MESH-NEG-MSG} or {@code MESH-NEG-REPLY} ({@code type}). */
    public static Msg parseMsg(String text, String type, int maxBytes) throws Unreadable {
        try (JsonParser p = start(text, type)) {
            String shard = shard(p, type);
            byte[] m = hex(p, type, maxBytes);
            end(p, type, 3);
            return new Msg(shard, m);
        } catch (IOException e) {
            throw new Unreadable("invalid: " + type + " is not JSON");
        }
    }

    /** Reads {@code MESH-NEG-CLOSE}: its shard id. */
    public static String parseClose(String text) throws Unreadable {
        try (JsonParser p = start(text, CLOSE)) {
            String shard = shard(p, CLOSE);
            end(p, CLOSE, 2);
            return shard;
        } catch (IOException e) {
            throw new Unreadable("invalid: " + CLOSE + " is not JSON");
        }
    }

    /** Reads {@code MESH-NEG-ERR}; the reason is clipped to 512 characters. */
    public static Err parseErr(String text) throws Unreadable {
        try (JsonParser p = start(text, ERR)) {
            String shard = shard(p, ERR);
            if (p.nextToken() != JsonToken.VALUE_STRING) {
                throw new Unreadable("invalid: " + ERR + " element 2 must be a reason string");
            }
            String reason = p.getText();
            end(p, ERR, 3);
            return new Err(shard, reason.length() <= 512 ? reason : reason.substring(0, 512));
        } catch (IOException e) {
            throw new Unreadable("invalid: " + ERR + " is not JSON");
        }
    }

    /** Reads {@code MESH-WANT}, at most {@code maxIds} ids (each 64 lower-case hex). */
    public static Want parseWant(String text, int maxIds) throws Unreadable {
        try (JsonParser p = start(text, WANT)) {
            String shard = shard(p, WANT);
            if (p.nextToken() != JsonToken.START_ARRAY) {
                throw new Unreadable("invalid: " + WANT + " element 2 must be an array of event ids");
            }
            List<EventId> ids = new ArrayList<>();
            JsonToken t;
            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                if (ids.size() == maxIds) {
                    throw new Unreadable("invalid: " + WANT + " holds at most " + maxIds + " ids");
                }
                if (t != JsonToken.VALUE_STRING || !Hex.isLowerHex(p.getText(), 64)) {
                    throw new Unreadable("invalid: " + WANT + " id " + ids.size() + " is not 64 lower-case hex");
                }
                ids.add(EventId.ofHex(p.getText()));
            }
            end(p, WANT, 3);
            return new Want(shard, List.copyOf(ids));
        } catch (IOException e) {
            throw new Unreadable("invalid: " + WANT + " is not JSON");
        }
    }

    private static JsonParser start(String text, String type) throws IOException, Unreadable {
        JsonParser p = FACTORY.createParser(text);
        if (p.nextToken() != JsonToken.START_ARRAY || p.nextToken() != JsonToken.VALUE_STRING
                || !type.equals(p.getText())) {
            p.close();
            throw new Unreadable("invalid: " + type + " must be a JSON array starting with \"" + type + "\"");
        }
        return p;
    }

    private static String shard(JsonParser p, String type) throws IOException, Unreadable {
        if (p.nextToken() != JsonToken.VALUE_STRING || !ShardsSetting.isId(p.getText())) {
            throw new Unreadable("invalid: " + type + " element 1 must be a shard id (1-64 of A-Za-z0-9._:-)");
        }
        return p.getText();
    }

    private static byte[] hex(JsonParser p, String type, int maxBytes) throws IOException, Unreadable {
        if (p.nextToken() != JsonToken.VALUE_STRING) {
            throw new Unreadable("invalid: " + type + " needs a hex Negentropy message");
        }
        String h = p.getText();
        if (h.length() > 2L * maxBytes) {
            throw new Unreadable("invalid: " + type + " message is " + h.length() / 2 + " bytes, at most " + maxBytes);
        }
        if (h.isEmpty() || (h.length() & 1) != 0 || !Hex.isLowerHex(h, h.length())) {
            throw new Unreadable("invalid: " + type + " message must be non-empty lower-case hex");
        }
        return Hex.decodeLower(h);
    }

    private static void end(JsonParser p, String type, int elements) throws IOException, Unreadable {
        if (p.nextToken() != JsonToken.END_ARRAY || p.nextToken() != null) {
            throw new Unreadable("invalid: " + type + " has " + elements + " elements");
        }
    }
}
