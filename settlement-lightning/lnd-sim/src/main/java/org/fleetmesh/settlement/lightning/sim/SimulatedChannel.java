package org.fleetmesh.settlement.lightning.sim;

/**
 * A simulated direct channel between two simulated nodes: a short channel id and each side's local
 * balance in msat. HTLCs in flight are taken off the sender's balance when offered and credited to the
 * receiver on settle or back to the sender on failure. No commitment transactions, reserves or fees.
 */
final class SimulatedChannel {
    final SimulatedLnd a;
    final SimulatedLnd b;
    final long chanId;
    private long balanceA;
    private long balanceB;

    SimulatedChannel(SimulatedLnd a, SimulatedLnd b, long chanId, long balanceEachMsat) {
        this.a = a;
        this.b = b;
        this.chanId = chanId;
        this.balanceA = balanceEachMsat;
        this.balanceB = balanceEachMsat;
    }

    boolean has(SimulatedLnd n) {
        return n == a || n == b;
    }

    SimulatedLnd other(SimulatedLnd n) {
        return n == a ? b : a;
    }

    /** Both ends are running: LND only routes over channels whose peer is online. */
    boolean active() {
        return a.isRunning() && b.isRunning();
    }

    long local(SimulatedLnd n) {
        return n == a ? balanceA : balanceB;
    }

    void setLocal(SimulatedLnd n, long msat) {
        if (msat < 0) {
            throw new IllegalArgumentException("a balance is not negative");
        }
        if (n == a) {
            balanceA = msat;
        } else {
            balanceB = msat;
        }
    }

    void add(SimulatedLnd n, long msat) {
        setLocal(n, local(n) + msat);
    }

    long capacitySat() {
        return (balanceA + balanceB) / 1000;
    }
}
