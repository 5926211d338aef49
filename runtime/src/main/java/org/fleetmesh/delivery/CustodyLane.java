package org.fleetmesh.delivery;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.fleetmesh.spi.delivery.CustodyLedger;
import org.jboss.logging.Logger;

/**
 * The one custody thread of a node: runs the custodians' and forwarders' ledger work in order, one pass at a time, on
 * the io executor. A pass prepares every job queued so far and writes all their steps in one
 * {@link CustodyLedger#append} (receipts of frames that completed together coalesce); when that fails, each job's
 * steps are retried alone so one bad pair does not fail the others.
 */
final class CustodyLane {
    private static final Logger LOG = Logger.getLogger(CustodyLane.class);
    /** Jobs per pass: bounds one transaction. */
    static final int MAX_JOBS = 64;

    /** One piece of ordered ledger work. */
    interface Job {
        /** Reads what it needs and adds the steps to write (none for a job that only reads or sends). */
        void prepare(List<CustodyLedger.Append> steps);

        /** The steps are durable (or there were none): apply the new state, send what follows. */
        void committed();

        /** Preparing or writing failed; nothing of this job was written. */
        void failed(RuntimeException e);

        /**
         * A job that reads state earlier jobs may write (a forwarder loading its pair's head after a relink): it never
         * shares a pass with jobs queued before it, so it sees their steps written. A pass prepares every job before
         * it writes any, so without this a load in the same pass would read the ledger as it was before the pass.
         */
        default boolean barrier() {
            return false;
        }
    }

    private final CustodyLedger ledger;
    private final Executor io;
    private final ConcurrentLinkedQueue<Job> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile boolean closed;
    /** Passes and ledger appends so far (tests show the coalescing). */
    private long passes;
    private long appends;

    CustodyLane(CustodyLedger ledger, Executor io) {
        this.ledger = ledger;
        this.io = io;
    }

    void submit(Job job) {
        if (closed) {
            job.failed(new IllegalStateException("delivery is closed"));
            return;
        }
        queue.add(job);
        schedule();
    }

    private void schedule() {
        if (!queue.isEmpty() && running.compareAndSet(false, true)) {
            try {
                io.execute(this::pass);
            } catch (RejectedExecutionException e) {
                running.set(false);
                LOG.warn("the delivery io executor is full or stopped; custody work waits for the next submission");
            }
        }
    }

    private void pass() {
        try {
            List<Job> jobs = new ArrayList<>();
            Job j;
            // one consumer at a time (running), so a peeked job is still the head when polled
            while (jobs.size() < MAX_JOBS && (j = queue.peek()) != null) {
                if (j.barrier() && !jobs.isEmpty()) {
                    break;
                }
                jobs.add(queue.poll());
            }
            List<List<CustodyLedger.Append>> steps = new ArrayList<>(jobs.size());
            List<CustodyLedger.Append> all = new ArrayList<>();
            for (Job job : jobs) {
                List<CustodyLedger.Append> s = new ArrayList<>(2);
                try {
                    job.prepare(s);
                } catch (RuntimeException e) {
                    LOG.warnf(e, "custody work failed while preparing");
                    job.failed(e);
                    s = null;
                }
                steps.add(s);
                if (s != null) {
                    all.addAll(s);
                }
            }
            boolean written = all.isEmpty();
            if (!written) {
                try {
                    ledger.append(all);
                    written = true;
                    count(1);
                } catch (RuntimeException e) {
                    LOG.warnf("a coalesced custody write of %d steps failed (%s); writing each job alone", all.size(),
                            e.toString());
                }
            }
            for (int i = 0; i < jobs.size(); i++) {
                List<CustodyLedger.Append> s = steps.get(i);
                if (s == null) {
                    continue;
                }
                if (!written && !s.isEmpty()) {
                    try {
                        ledger.append(s);
                        count(1);
                    } catch (RuntimeException e) {
                        LOG.warnf("a custody write failed: %s", e.toString());
                        jobs.get(i).failed(e);
                        continue;
                    }
                }
                try {
                    jobs.get(i).committed();
                } catch (RuntimeException e) {
                    LOG.errorf(e, "custody work failed after its write");
                }
            }
            synchronized (this) {
                passes++;
            }
        } finally {
            running.set(false);
            schedule();
        }
    }

    private synchronized void count(int n) {
        appends += n;
    }

    /** Ledger appends made so far. */
    synchronized long appends() {
        return appends;
    }

    /** Jobs waiting for the next pass. */
    int waiting() {
        return queue.size();
    }

    synchronized long passes() {
        return passes;
    }

    void close() {
        closed = true;
    }
}
