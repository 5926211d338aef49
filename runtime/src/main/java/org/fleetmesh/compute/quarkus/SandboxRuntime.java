package org.fleetmesh.compute.quarkus;

import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.fleetmesh.compute.JobFailure;
import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.compute.Runtimes;
import org.fleetmesh.compute.Sandbox;

import io.quarkus.runtime.StartupEvent;

/**
 * The node's {@link Sandbox} (from {@link SandboxConfig}) and the bounded pool its jobs run on:
 * {@code concurrency} threads, {@code queue} waiting jobs, and a job past that is refused at once ({@link #submit}
 * fails with {@link RejectedExecutionException}: the market answers {@code busy}).
 */
@ApplicationScoped
public class SandboxRuntime {

    @Inject
    SandboxConfig config;

    private volatile Sandbox sandbox;
    private volatile ThreadPoolExecutor jobs;
    /** Jobs accepted and not yet ended (exact: the pool's active count lags a just-started worker). */
    private final AtomicInteger pending = new AtomicInteger();

    /** Builds the sandbox at start, so that an unknown runtime id or a bad setting stops the start with its reason. */
    void start(@Observes StartupEvent e) {
        sandbox();
    }

    /** The node's sandbox, built on first use. */
    @Produces
    @Singleton
    Sandbox produceSandbox() {
        return sandbox();
    }

    public synchronized Sandbox sandbox() {
        if (sandbox == null) {
            sandbox = new Sandbox(Runtimes.get(config.runtime()), limits(config));
        }
        return sandbox;
    }

    static Sandbox.Limits limits(SandboxConfig c) {
        Sandbox.Floats floats = switch (c.floats().toLowerCase(Locale.ROOT)) {
            case "admit" -> Sandbox.Floats.ADMIT;
            case "refuse" -> Sandbox.Floats.REFUSE;
            default -> throw new IllegalArgumentException("fleetmesh.compute.sandbox.floats: admit or refuse");
        };
        return new Sandbox.Limits(c.maxFuel(), c.maxMemoryPages(), c.timeout(), c.outputLimit(), c.maxModuleBytes(),
                floats);
    }

    private synchronized ThreadPoolExecutor jobs() {
        if (jobs == null) {
            AtomicInteger n = new AtomicInteger();
            int threads = Math.max(1, config.concurrency());
            jobs = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS,
                    new ArrayBlockingQueue<>(Math.max(1, config.queue())), r -> {
                        Thread t = new Thread(r, "compute-job-" + n.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    }, new ThreadPoolExecutor.AbortPolicy());
        }
        return jobs;
    }

    /**
     * Runs the job on the pool. The future fails with the {@link JobFailure} when the job failed; this throws
     * {@link RejectedExecutionException} when every slot and the queue are taken.
     */
    public CompletableFuture<JobResult> submit(byte[] module, byte[] input, JobSpec spec) {
        Job job = new Job(sandbox(), module, input, spec);
        pending.incrementAndGet();
        try {
            jobs().execute(job);
        } catch (RuntimeException e) {
            pending.decrementAndGet();
            throw e;
        }
        job.result.whenComplete((r, t) -> pending.decrementAndGet());
        return job.result;
    }

    /** A queued job; one that never ran when the pool stopped fails with {@link RejectedExecutionException}. */
    private static final class Job implements Runnable {
        final CompletableFuture<JobResult> result = new CompletableFuture<>();
        private final Sandbox sandbox;
        private final byte[] module;
        private final byte[] input;
        private final JobSpec spec;

        Job(Sandbox sandbox, byte[] module, byte[] input, JobSpec spec) {
            this.sandbox = sandbox;
            this.module = module;
            this.input = input;
            this.spec = spec;
        }

        @Override
        public void run() {
            try {
                result.complete(sandbox.run(module, input, spec));
            } catch (JobFailure | RuntimeException | Error e) {
                result.completeExceptionally(e);
            }
        }
    }

    /** Jobs running or waiting now. */
    public int pending() {
        return pending.get();
    }

    @PreDestroy
    void stop() {
        ThreadPoolExecutor p = jobs;
        if (p != null) {
            for (Runnable r : p.shutdownNow()) {
                ((Job) r).result.completeExceptionally(new RejectedExecutionException("the node is stopping"));
            }
        }
    }
}
