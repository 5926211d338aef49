package org.fleetmesh.compute.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;

import org.fleetmesh.compute.JobFailure;
import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.Sandbox;
import org.fleetmesh.compute.TestModules;
import org.junit.jupiter.api.Test;

/** The node's sandbox from its settings, and the job pool that refuses past concurrency + queue. */
class SandboxRuntimeTest {

    static SandboxConfig config(String floats, int concurrency, int queue, Duration timeout) {
        return new SandboxConfig() {
            public String runtime() {
                return "chicory";
            }

            public long maxFuel() {
                return 1L << 50;
            }

            public int maxMemoryPages() {
                return 64;
            }

            public Duration timeout() {
                return timeout;
            }

            public int outputLimit() {
                return 1000;
            }

            public int maxModuleBytes() {
                return 1 << 20;
            }

            public String floats() {
                return floats;
            }

            public int concurrency() {
                return concurrency;
            }

            public int queue() {
                return queue;
            }
        };
    }

    @Test
    void theSettingsBecomeTheSandboxsLimits() {
        SandboxRuntime r = new SandboxRuntime();
        r.config = config("refuse", 1, 1, Duration.ofSeconds(3));
        Sandbox s = r.sandbox();
        assertEquals("chicory", s.runtime().id());
        assertEquals(new Sandbox.Limits(1L << 50, 64, Duration.ofSeconds(3), 1000, 1 << 20, Sandbox.Floats.REFUSE),
                s.limits());
        assertThrows(IllegalArgumentException.class, () -> SandboxRuntime.limits(config("maybe", 1, 1,
                Duration.ofSeconds(1))));
    }

    @Test
    void jobsPastConcurrencyAndQueueAreRefusedAtOnce() throws Exception {
        SandboxRuntime r = new SandboxRuntime();
        r.config = config("admit", 1, 1, Duration.ofMinutes(2));
        byte[] spin = TestModules.load("spin");
        byte[] in = new byte[0];
        var spec = TestModules.spec(spin, in, List.of(), 1L << 50, 16);
        CompletableFuture<JobResult> running = r.submit(spin, in, spec);
        CompletableFuture<JobResult> queued = r.submit(spin, in, spec);
        assertThrows(RejectedExecutionException.class, () -> r.submit(spin, in, spec));
        assertEquals(2, r.pending());
        r.stop(); // interrupts the running job: Chicory ends it
        ExecutionException e = assertThrows(ExecutionException.class, running::get);
        assertTrue(e.getCause() instanceof JobFailure, String.valueOf(e.getCause()));
        ExecutionException q = assertThrows(ExecutionException.class, queued::get);
        assertTrue(q.getCause() instanceof RejectedExecutionException, String.valueOf(q.getCause()));
        assertEquals(0, r.pending(), "an ended or dropped job is no longer pending");
    }

    @Test
    void aJobRunsOnThePool() throws Exception {
        SandboxRuntime r = new SandboxRuntime();
        r.config = config("admit", 2, 4, Duration.ofSeconds(30));
        byte[] m = TestModules.load("upper");
        byte[] in = TestModules.utf8("abc");
        assertEquals("ABC", new String(r.submit(m, in, TestModules.spec(m, in, List.of(), 1_000_000, 16)).get().stdout()));
        r.stop();
    }
}
