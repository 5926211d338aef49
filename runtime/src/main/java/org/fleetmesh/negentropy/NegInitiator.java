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
     * does not speak NIP-77 (or refused it). {@code close}: a NEG-CLOSE to send, or null. {@code exceeded}: the
     * relay's answers went past one of the {@link Limits}.
     */
    public record Failed(boolean unsupported, String reason, String close, boolean exceeded) implements Step {
        public Failed(boolean unsupported, String reason, String close) {
            this(unsupported, reason, close, false);
        }
    }

    /**
     * Bounds on what a relay's answers may make this side hold or do, so that a relay that never lets the
     * reconciliation end (or lists ids without end) cannot take memory or time without bound.
     *
     * @param maxNeed ids the relay may list as missing here, over all rounds (each held in memory until fetched)
     * @param maxHave ids of this side's the relay may report as missing there, over all rounds: at most the local
     *        items, since an honest relay reports each at most once
     * @param maxRounds NEG-MSG rounds; 0 for the default budget, {@link #BASE_ROUNDS} plus one per
     *        {@link #IDS_PER_ROUND} ids found so far (need + have)
     */
    public record Limits(long maxNeed, long maxHave, long maxRounds) {
        /** The need set's default bound: 1,000,000 ids (about 100 MB of heap). */
        public static final long DEFAULT_MAX_NEED = 1_000_000;
        /** Rounds any reconciliation may take, found ids or not: far above the ~log16(n) an honest one needs. */
        public static final long BASE_ROUNDS = 64;
        /**
         * Past {@link #BASE_ROUNDS}, one more round per this many ids found: an honest relay's round carries far
         * more (a 4096-byte frame, the smallest the reference allows, holds about 120 ids).
         */
        public static final long IDS_PER_ROUND = 16;
        /** No bounds: for tests and benchmarks against a trusted responder. */
        public static final Limits NONE = new Limits(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);

        public Limits {
            if (maxNeed < 0 || maxHave < 0 || maxRounds < 0) {
                throw new IllegalArgumentException("limits must not be negative");
            }
        }

        /** The defaults for a local side of {@code localItems} items: need at most max(1,000,000, localItems). */
        public static Limits forLocalItems(long localItems) {
            return new Limits(Math.max(DEFAULT_MAX_NEED, localItems), localItems, 0);
        }

        public Limits withMaxNeed(long n) {
            return new Limits(n, maxHave, maxRounds);
        }

        /** The rounds allowed once {@code found} ids (need + have) are known. */
        public long roundsAllowed(long found) {
            if (maxRounds != 0) {
                return maxRounds;
            }
            long extra = found / IDS_PER_ROUND;
            return BASE_ROUNDS + extra;
        }
    }

    /** Not about this reconciliation (an AUTH challenge, another subscription's answer): ignore it. */
    public record Unrelated() implements Step {
    }

    private final String subId;
    private final JsonNode filter;
    private final Negentropy negentropy;
    private final Limits limits;
    private boolean answered;
    private long rounds;

    /**
     * @param subId the NEG subscription id
     * @param filterJson the filter that selected {@code items}, sent to the relay to select its side
     * @param frameSizeLimit largest message this side sends (0 = unlimited, else at least 4096)
     */
    public NegInitiator(String subId, String filterJson, Storage items, long frameSizeLimit) {
        this(subId, filterJson, items, frameSizeLimit, Limits.NONE);
    }

    /** @param limits how much the relay's answers may make this side hold and how many rounds they may take */
    public NegInitiator(String subId, String filterJson, Storage items, long frameSizeLimit, Limits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
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

    /**
     * Whether an event with {@code createdAt} and {@code id}, fetched for {@code needIds().get(needIndex)}, lies in
     * the range the relay announced that id in (see {@link Negentropy#inAnnouncedRange}).
     */
    public boolean inAnnouncedRange(int needIndex, long createdAt, Id id) {
        return negentropy.inAnnouncedRange(needIndex, createdAt, id);
    }

    public Limits limits() {
        return limits;
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
                long need = negentropy.needIds().size();
                long have = negentropy.haveIds().size();
                if (need > limits.maxNeed()) {
                    return new Failed(false, "the relay listed more than " + limits.maxNeed() + " ids missing here (" + need
                            + " after " + rounds + " round(s)); stopped before fetching any: narrow the filter (since/until)"
                            + " or raise --max-need", close(), true);
                }
                if (have > limits.maxHave()) {
                    return new Failed(false, "the relay reported " + have + " local ids missing there, more than the "
                            + limits.maxHave() + " this side holds for the filter: its answers repeat ranges", close(), true);
                }
                if (next != null && rounds >= limits.roundsAllowed(need + have)) {
                    return new Failed(false, "the reconciliation did not end within " + rounds + " rounds (allowed: "
                            + (limits.maxRounds() != 0 ? "--max-rounds " + limits.maxRounds()
                                    : Limits.BASE_ROUNDS + " + 1 per " + Limits.IDS_PER_ROUND + " ids found, " + (need + have)
                                            + " so far")
                            + "); stopped before fetching any", close(), true);
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
