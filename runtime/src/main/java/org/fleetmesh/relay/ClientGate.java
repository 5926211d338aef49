package org.fleetmesh.relay;

import org.fleetmesh.nostr.Utf8;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.relay.limits.ClientLimits;

/**
 * Where the relay's dispatch asks {@link ClientLimits} before it does a client's work: an EVENT before it is
 * verified or stored, a REQ or COUNT before it is queued, a new subscription against its address's tier. A refusal
 * is answered here ({@code OK false} / {@code CLOSED}, {@code rate-limited: ...}).
 */
final class ClientGate {
    private final ClientLimits limits;
    private final LongSupplier nanoClock;
    /** Refusals by what was refused: EVENT, AUTH, REQ/COUNT (for metrics; answered here, so Ingest never sees them). */
    private final LongAdder refusedEvents = new LongAdder();
    private final LongAdder refusedAuths = new LongAdder();
    private final LongAdder refusedQueries = new LongAdder();

    ClientGate(ClientLimits limits, LongSupplier nanoClock) {
        this.limits = limits;
        this.nanoClock = nanoClock;
    }

    ClientLimits limits() {
        return limits;
    }

    /** Refused so far: {events, auths, queries (REQ and COUNT, subscriptions included)}. */
    long[] refused() {
        return new long[] {refusedEvents.sum(), refusedAuths.sum(), refusedQueries.sum()};
    }

    /** The EVENT's charge, or null when it was refused (and answered). {@code text} is the whole client message. */
    ClientLimits.EventCharge event(ClientState state, Event e, String text) {
        if (!limits.isOn()) {
            return FREE;
        }
        ClientLimits.EventCharge charge = limits.event(state.address, e.pubkey().hex(), Utf8.length(text),
                () -> Events.verify(e) == null, nanoClock.getAsLong());
        if (charge.refusal() != null) {
            refusedEvents.increment();
            state.connection.send(RelayMessages.ok(e.id().hex(), false, charge.refusal()));
            return null;
        }
        return charge;
    }

    /**
     * An AUTH event costs a signature check: it is paid from the address's event budget like an EVENT (its author is
     * not charged). False when refused (and answered).
     */
    boolean auth(ClientState state, Event e, String text) {
        if (!limits.isOn()) {
            return true;
        }
        String refusal = limits.auth(state.address, Utf8.length(text), nanoClock.getAsLong());
        if (refusal != null) {
            refusedAuths.increment();
            state.connection.send(RelayMessages.ok(e.id().hex(), false, refusal));
            return false;
        }
        return true;
    }

    private static final ClientLimits.EventCharge FREE = ClientLimits.OFF.event("", "", 0, () -> true, 0);

    /** Settles an admitted EVENT: the author pays only for what was stored. */
    void settled(ClientLimits.EventCharge charge, Ingest.Outcome outcome) {
        if (charge != FREE && outcome.status() != Ingest.Status.ACCEPTED) {
            charge.notStored(nanoClock.getAsLong());
        }
    }

    /**
     * Whether a REQ or COUNT may go ahead; a REQ with an id not open on the connection also needs a free
     * subscription at its address's tier. Refusals are answered with CLOSED.
     */
    boolean query(ClientState state, String subscriptionId, boolean opensSubscription) {
        if (!limits.isOn()) {
            return true;
        }
        long now = nanoClock.getAsLong();
        reconcile(state, now);
        String refusal = limits.req(state.address, pubkeys(state), now);
        if (refusal == null && opensSubscription && !state.subscriptions.containsKey(subscriptionId)) {
            refusal = limits.subscription(state.address, now);
        }
        if (refusal != null) {
            refusedQueries.increment();
            state.connection.send(RelayMessages.closed(subscriptionId, refusal));
            return false;
        }
        return true;
    }

    /**
     * Whether a NEG-OPEN or NEG-MSG may be worked on: each is a read of the store or a reconciliation round, paid from
     * the address's (and its authenticated pubkeys') query budget like a REQ. A refusal is answered with NEG-ERR (the
     * session of that id is then closed by the caller).
     */
    boolean negentropy(ClientState state, String subscriptionId) {
        if (!limits.isOn()) {
            return true;
        }
        String refusal = limits.req(state.address, pubkeys(state), nanoClock.getAsLong());
        if (refusal != null) {
            refusedQueries.increment();
            state.connection.send(RelayMessages.negErr(subscriptionId, refusal));
            return false;
        }
        return true;
    }

    /**
     * Brings the address's count of open subscriptions in step with this connection's (called after a REQ or CLOSE
     * was handled, and before a REQ is judged, so subscriptions that ended on their own are given back then).
     */
    void reconcile(ClientState state, long now) {
        if (!limits.isOn()) {
            return;
        }
        synchronized (state) {
            int delta = state.subscriptions.size() - state.countedSubscriptions;
            state.countedSubscriptions += delta;
            limits.subscriptionsChanged(state.address, delta, now);
        }
    }

    void reconcile(ClientState state) {
        reconcile(state, nanoClock.getAsLong());
    }

    /** The connection is gone: its subscriptions no longer count for its address. */
    void closed(ClientState state) {
        if (!limits.isOn()) {
            return;
        }
        synchronized (state) {
            limits.subscriptionsChanged(state.address, -state.countedSubscriptions, nanoClock.getAsLong());
            state.countedSubscriptions = 0;
        }
    }

    private static List<String> pubkeys(ClientState state) {
        if (state.authenticated.isEmpty()) {
            return List.of();
        }
        List<String> l = new ArrayList<>(state.authenticated.size());
        for (PubKey p : state.authenticated) {
            l.add(p.hex());
        }
        return l;
    }
}
