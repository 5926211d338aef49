package org.fleetmesh.negentropy;

import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import org.fleetmesh.nostr.Snippet;

/**
 * The initiator side of one NIP-77 reconciliation as messages: {@link #open()} gives the NEG-OPEN to send, each
 * message from the relay given to {@link #receive} gives the next step, until the relay's answers leave nothing
 * to reconcile and {@link #haveIds()} / {@link #needIds()} hold the difference. Pure: no I/O, no clock.
 */
public final class NegInitiator {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();

    /** What to do after a message from the relay. */
    public sealed interface Step permits Reply, Done, Failed, Unrelated {
    }

    /** Send this NEG-MSG and wait for the next answer. */
    public record Reply(String message) implements Step {
    }

    /** Reconciled: send this NEG-CLOSE; the difference is in {@link #haveIds()} / {@link #needIds()}. */
    public record Done(String close) implements Step {
    }

    /**
     * The reconciliation broke off. {@code unsupported}: the relay never answered NEG-OPEN with a NEG-MSG, so it
     * does not speak NIP-77 (or refused it). {@code close}: a NEG-CLOSE to send, or null.
     */
    public record Failed(boolean unsupported, String reason, String close) implements Step {
    }

    /** Not about this reconciliation (an AUTH challenge, another subscription's answer): ignore it. */
    public record Unrelated() implements Step {
    }

    private final String subId;
    private final JsonNode filter;
    private final Negentropy negentropy;
    private boolean answered;
    private long rounds;

    /**
     * @param subId the NEG subscription id
     * @param filterJson the filter that selected {@code items}, sent to the relay to select its side
     * @param frameSizeLimit largest message this side sends (0 = unlimited, else at least 4096)
     */
    public NegInitiator(String subId, String filterJson, Storage items, long frameSizeLimit) {
        this.subId = Objects.requireNonNull(subId, "subId");
        try {
            this.filter = JSON.readTree(filterJson);
        } catch (Exception e) {
            throw new IllegalArgumentException("the filter is not JSON: " + e.getMessage());
        }
        if (filter == null || !filter.isObject()) {
            throw new IllegalArgumentException("a filter is a JSON object");
        }
        this.negentropy = new Negentropy(items, frameSizeLimit);
    }

    public String subId() {
        return subId;
    }

    /** The NEG-OPEN message that starts the reconciliation. */
    public String open() {
        return array("NEG-OPEN", subId).add(filter).add(HEX.formatHex(negentropy.initiate())).toString();
    }

    /** Whether the relay has answered NEG-OPEN with a NEG-MSG (so it speaks NIP-77). */
    public boolean answered() {
        return answered;
    }

    /** NEG-MSG rounds received from the relay. */
    public long rounds() {
        return rounds;
    }

    /** Ids only this side has (so far, complete after {@link Done}). */
    public List<Id> haveIds() {
        return negentropy.haveIds();
    }

    /** Ids only the relay has. */
    public List<Id> needIds() {
        return negentropy.needIds();
    }

    /** Whether {@code message} belongs to this reconciliation (its subscription id, or a NOTICE). */
    public boolean concerns(JsonNode message) {
        return isFor(message, subId) || verb(message).equals("NOTICE");
    }

    public Step receive(JsonNode m) {
        if (!concerns(m)) {
            return new Unrelated();
        }
        String verb = verb(m);
        switch (verb) {
            case "NEG-MSG" -> {
                answered = true;
                rounds++;
                byte[] reply;
                try {
                    reply = HEX.parseHex(m.path(2).asText(""));
                } catch (IllegalArgumentException e) {
                    return new Failed(false, "the relay sent a NEG-MSG that is not hex: " + Snippet.of(m.toString(), 300), close());
                }
                byte[] next;
                try {
                    next = negentropy.reconcile(reply);
                } catch (NegentropyException e) {
                    return new Failed(false, "the relay's negentropy message is invalid: " + e.getMessage(), close());
                }
                if (next == null) {
                    return new Done(close());
                }
                return new Reply(array("NEG-MSG", subId).add(HEX.formatHex(next)).toString());
            }
            case "NEG-ERR" -> {
                return new Failed(!answered,
                        "the relay ended the reconciliation with NEG-ERR: " + m.path(2).asText(m.toString()), null);
            }
            case "CLOSED", "NOTICE" -> {
                return new Failed(!answered, (answered ? "the relay broke off the reconciliation: "
                        : "the relay does not speak NIP-77 (or refused it): ") + verb + " "
                        + Snippet.of(m.path(verb.equals("CLOSED") ? 2 : 1).asText(m.toString()), 300), null);
            }
            default -> {
                // an EVENT/EOSE/OK for the same id cannot be ours
                return new Unrelated();
            }
        }
    }

    private String close() {
        return array("NEG-CLOSE", subId).toString();
    }

    static ArrayNode array(String... parts) {
        ArrayNode a = JSON.createArrayNode();
        for (String p : parts) {
            a.add(p);
        }
        return a;
    }

    static String verb(JsonNode n) {
        return n.isArray() && n.size() > 0 ? n.get(0).asText("") : "";
    }

    static boolean isFor(JsonNode n, String subId) {
        return n.isArray() && n.size() > 1 && subId.equals(n.get(1).asText(null));
    }
}
