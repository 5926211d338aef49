package org.fleetmesh.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;

import org.fleetmesh.spi.delivery.CustodyLedger;
import org.fleetmesh.spi.delivery.CustodyLedger.Side;
import org.junit.jupiter.api.Test;

/**
 * The custody lane prepares every job of a pass before it writes any: a job that reads what earlier jobs write (a
 * forwarder loading its pair's head after a relink) is a barrier and runs in a pass of its own, after them.
 */
class CustodyLaneTest {
    /** An executor the test runs by hand, so that jobs queue up for one pass. */
    static final class Manual implements Executor {
        final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

        @Override
        public void execute(Runnable r) {
            tasks.add(r);
        }

        void runAll() {
            Runnable r;
            while ((r = tasks.poll()) != null) {
                r.run();
            }
        }
    }

    static CustodyLane.Job writer(String peer) {
        return new CustodyLane.Job() {
            @Override
            public void prepare(List<CustodyLedger.Append> steps) {
                steps.add(new CustodyLedger.Append(Side.SENT, peer, MemoryCustodyLedgerTest.leaves(0, "e1"),
                        MemoryCustodyLedgerTest.receipt(0, 1, 1), Optional.empty()));
            }

            @Override
            public void committed() {
            }

            @Override
            public void failed(RuntimeException e) {
                throw e;
            }
        };
    }

    static final class Reader implements CustodyLane.Job {
        final CustodyLedger ledger;
        final boolean barrier;
        long seen = -1;

        Reader(CustodyLedger ledger, boolean barrier) {
            this.ledger = ledger;
            this.barrier = barrier;
        }

        @Override
        public void prepare(List<CustodyLedger.Append> steps) {
            seen = ledger.head(Side.SENT, "p").map(CustodyLedger.Receipt::treeSize).orElse(0L);
        }

        @Override
        public void committed() {
        }

        @Override
        public void failed(RuntimeException e) {
            throw e;
        }

        @Override
        public boolean barrier() {
            return barrier;
        }
    }

    @Test
    void aBarrierSeesWhatTheJobsBeforeItWrote() {
        MemoryCustodyLedger ledger = new MemoryCustodyLedger();
        Manual io = new Manual();
        CustodyLane lane = new CustodyLane(ledger, io);
        lane.submit(writer("p"));
        Reader load = new Reader(ledger, true);
        lane.submit(load);
        io.runAll();
        assertEquals(1, load.seen, "the load ran after the write");
        assertEquals(2, lane.passes());
    }

    @Test
    void jobsThatAreNoBarrierShareOnePass() {
        MemoryCustodyLedger ledger = new MemoryCustodyLedger();
        Manual io = new Manual();
        CustodyLane lane = new CustodyLane(ledger, io);
        lane.submit(writer("p"));
        Reader plain = new Reader(ledger, false);
        lane.submit(plain);
        io.runAll();
        assertEquals(0, plain.seen, "prepared in the same pass, before the write");
        assertEquals(1, lane.passes());
    }
}
