package org.fleetmesh.relay;

import java.util.HashMap;
import java.util.Map;

/**
 * Client connections held to a total, and to a number per source address (docs/spec/relay.md, "Connections"). An idle
 * connection costs the node about 10 KB (8 KB of heap: the WebSocket's state, the client's budgets and challenge; the
 * rest Netty's buffers), so without a bound a stranger's sockets would take the heap. A connection past either bound is
 * told why and closed as it opens, before it costs anything more. The per-address table holds only addresses with a
 * connection open, so it is bounded by the total.
 */
public final class ConnectionGate {
    /** Client connections at most, by default: about 100 MB when every one is open. */
    static final int DEFAULT_MAX_TOTAL = 10_000;

    private final String holder;
    private final int maxTotal;
    private final int maxPerAddress;
    private final Map<String, Integer> perAddress = new HashMap<>(); // guarded by this
    private int open; // guarded by this

    /** The relay's WebSocket connections: refusals say "the relay holds ...". */
    public ConnectionGate(int maxTotal, int maxPerAddress) {
        this("the relay", maxTotal, maxPerAddress);
    }

    /**
     * @param holder what holds the connections, as a refusal names it ("the relay", "the node")
     * @param maxTotal connections at most (at least 1)
     * @param maxPerAddress connections at most from one address (as {@link Connection#address()} keys it); 0: no bound
     */
    public ConnectionGate(String holder, int maxTotal, int maxPerAddress) {
        if (maxTotal < 1 || maxPerAddress < 0) {
            throw new IllegalArgumentException("connections at most: a total of at least 1 and a per-address bound of at "
                    + "least 0 (none), not " + maxTotal + " and " + maxPerAddress);
        }
        this.holder = holder;
        this.maxTotal = maxTotal;
        this.maxPerAddress = maxPerAddress;
    }

    /** Counts a connection from {@code address} (null: unknown, one shared key) and returns null, or says why not. */
    public synchronized String admit(String address) {
        if (open >= maxTotal) {
            return "rate-limited: " + holder + " holds its " + maxTotal + " connections; try again later";
        }
        if (maxPerAddress > 0) {
            String key = address == null ? "" : address;
            int n = perAddress.getOrDefault(key, 0);
            if (n >= maxPerAddress) {
                return "rate-limited: this address holds its " + maxPerAddress + " connections; close one first";
            }
            perAddress.put(key, n + 1);
        }
        open++;
        return null;
    }

    /**
     * Counts a connection held to the total only (a trusted proxy's, which carries many clients; one from this host) and
     * returns null, or says why not.
     */
    public synchronized String admitUnkeyed() {
        if (open >= maxTotal) {
            return "rate-limited: " + holder + " holds its " + maxTotal + " connections; try again later";
        }
        open++;
        return null;
    }

    /** Gives back a connection {@link #admitUnkeyed} counted. */
    public synchronized void releaseUnkeyed() {
        if (open > 0) {
            open--;
        }
    }

    /** Gives back a connection {@link #admit} counted. */
    public synchronized void release(String address) {
        if (open > 0) {
            open--;
        }
        if (maxPerAddress > 0) {
            perAddress.computeIfPresent(address == null ? "" : address, (k, n) -> n > 1 ? n - 1 : null);
        }
    }

    public synchronized int open() {
        return open;
    }

    /** Addresses with a connection open (0 without a per-address bound). */
    synchronized int addresses() {
        return perAddress.size();
    }

    int maxTotal() {
        return maxTotal;
    }

    int maxPerAddress() {
        return maxPerAddress;
    }
}
