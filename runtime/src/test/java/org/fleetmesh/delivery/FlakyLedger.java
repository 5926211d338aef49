package org.fleetmesh.delivery;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.spi.delivery.CustodyLedger;

/**
 * A node's custody ledger whose database is gone while {@link #down} is set: every call fails, as the PostgreSQL
 * ledger's do when its server died ("An I/O error occurred while sending to the backend"); nothing is changed. While
 * {@link #writesDown} is set only the writes fail (a receipt step, the outbound state).
 */
final class FlakyLedger implements CustodyLedger {
    final CustodyLedger inner;
    final AtomicBoolean down = new AtomicBoolean();
    final AtomicBoolean writesDown = new AtomicBoolean();

    FlakyLedger(CustodyLedger inner) {
        this.inner = inner;
    }

    private void check() {
        if (down.get()) {
            throw new IllegalStateException("could not read the ledger: An I/O error occurred while sending to the backend.");
        }
    }

    @Override
    public Optional<Receipt> head(Side side, String peer) {
        check();
        return inner.head(side, peer);
    }

    private void checkWrite() {
        check();
        if (writesDown.get()) {
            throw new IllegalStateException("could not write the ledger: An I/O error occurred while sending to the backend.");
        }
    }

    @Override
    public void append(List<Append> appends) {
        checkWrite();
        inner.append(appends);
    }

    @Override
    public Map<EventId, Long> indexOf(Side side, String peer, Collection<EventId> ids) {
        check();
        return inner.indexOf(side, peer, ids);
    }

    @Override
    public List<Leaf> leaves(Side side, String peer, long from, long to) {
        check();
        return inner.leaves(side, peer, from, to);
    }

    @Override
    public List<Receipt> receipts(Side side, String peer, long fromPosition, int limit) {
        check();
        return inner.receipts(side, peer, fromPosition, limit);
    }

    @Override
    public List<String> peers(Side side) {
        check();
        return inner.peers(side);
    }

    @Override
    public Map<EventId, Holders> holders(Collection<EventId> ids) {
        check();
        return inner.holders(ids);
    }

    @Override
    public Optional<String> archive(Side side, String peer) {
        check();
        return inner.archive(side, peer);
    }

    @Override
    public Optional<Outbound> outbound(String peer) {
        check();
        return inner.outbound(peer);
    }

    @Override
    public void saveOutbound(Outbound outbound) {
        checkWrite();
        inner.saveOutbound(outbound);
    }

    @Override
    public List<Outbound> outbounds() {
        check();
        return inner.outbounds();
    }
}
