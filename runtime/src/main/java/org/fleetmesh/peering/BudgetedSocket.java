package org.fleetmesh.peering;

import org.fleetmesh.nostr.Utf8;
import java.util.Objects;

/**
 * A link's {@link MeshLink.Socket} over a transport that sends asynchronously, holding its {@link SendBudget}: each
 * send takes its UTF-8 bytes until the transport reports it written (or failed); a send that would pass the budget
 * is not made, and the link is closed instead ({@code slow}, 1008): the peer is not reading. After a close nothing
 * more is sent. Thread-safe.
 */
public final class BudgetedSocket implements MeshLink.Socket {

    /** What the edge's WebSocket does. */
    public interface Transport {
        /** Starts sending {@code text}; {@code done} runs once it is written to the network or has failed. */
        void send(String text, Runnable done);

        /** Sends the close frame (the edge drops the connection when the peer does not answer it in time). */
        void close(int code, String reason);
    }

    private final Transport transport;
    private final SendBudget budget;
    private boolean closing;

    public BudgetedSocket(Transport transport, SendBudget budget) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.budget = Objects.requireNonNull(budget, "budget");
    }

    @Override
    public synchronized void send(String text) {
        if (closing) {
            return;
        }
        long size = Utf8.length(text);
        if (!budget.take(size)) {
            Refusal slow = Refusal.of(Refusal.Kind.SLOW, "more than " + budget.limit()
                    + " bytes queued for this peer, which does not read them");
            close(slow.kind().closeCode(), slow.reason());
            return;
        }
        transport.send(text, () -> budget.giveBack(size));
    }

    @Override
    public synchronized void close(int code, String reason) {
        if (closing) {
            return;
        }
        closing = true;
        transport.close(code, reason);
    }

    /** Whether the link was closed, by the budget or by the link. */
    public synchronized boolean closing() {
        return closing;
    }

    public SendBudget budget() {
        return budget;
    }
}
