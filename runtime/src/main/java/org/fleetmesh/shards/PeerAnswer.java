package org.fleetmesh.shards;

import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Reads a relay's answer to one REQ, message by message (docs/spec/sampling.md §2): the events for the subscription
 * until EOSE or CLOSED, everything else ignored, and no more than a bound of events, so that a peer that floods the
 * answer ends it without an EOSE (no verdict) instead of filling this node's memory.
 */
public final class PeerAnswer {
    private static final MessageParser PARSER = new MessageParser(MessageParser.Limits.DEFAULT);

    private final String subscription;
    private final int maxEvents;
    private final List<Event> events = new ArrayList<>();
    private SamplingRound.Answer done;

    public PeerAnswer(String subscription, int maxEvents) {
        this.subscription = subscription;
        this.maxEvents = maxEvents;
    }

    /** Takes one message the relay sent; the answer once it is complete, else null. */
    public SamplingRound.Answer offer(JsonNode message) {
        if (done != null) {
            return done;
        }
        if (message == null || !message.isArray() || message.size() < 2 || !message.get(1).isTextual()
                || !subscription.equals(message.get(1).textValue())) {
            return null; // NOTICE, AUTH, another subscription, garbage
        }
        switch (message.get(0).asText("")) {
            case "EVENT" -> {
                if (message.size() == 3 && message.get(2).isObject()) {
                    try {
                        events.add(PARSER.parseEvent(message.get(2).toString()));
                    } catch (ProtocolException e) {
                        // a malformed event answers nothing
                    }
                }
                if (events.size() > maxEvents) {
                    done = new SamplingRound.Answer(events, false, "more than " + maxEvents + " events");
                }
            }
            case "EOSE" -> done = new SamplingRound.Answer(events, true, null);
            case "CLOSED" -> done = new SamplingRound.Answer(events, false,
                    "CLOSED " + (message.size() > 2 ? message.get(2).toString() : ""));
            default -> {
            }
        }
        return done;
    }

    /** The answer when the relay stops short: the events so far, without EOSE, and why. */
    public SamplingRound.Answer cut(String why) {
        return done != null ? done : new SamplingRound.Answer(events, false, why);
    }

    /** Events held so far. */
    public int size() {
        return events.size();
    }
}
