package org.fleetmesh.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.Test;

/** The writer's promise: every submit that returned true is answered exactly once, also when it closes meanwhile. */
class GroupCommitTest {

    @Test
    void everySubmitTakenIsAnsweredOnceWhileTheWriterClosesUnderIt() throws Exception {
        byte[] key = Schnorr.newSecretKey();
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            events.add(Events.sign(key, 1_700_000_000L + i, 1, List.of(), "closing " + i));
        }
        long total = 0;
        for (int round = 0; round < 200; round++) {
            GroupCommit writes = new GroupCommit(new MemoryStore(), 100_000, 100, stored -> {
            });
            AtomicInteger taken = new AtomicInteger();
            AtomicInteger answered = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> submitters = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread th = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; ; i++) {
                        if (!writes.submit(events.get(i % events.size()), (e, o) -> answered.incrementAndGet())) {
                            return;
                        }
                        taken.incrementAndGet();
                    }
                });
                th.start();
                submitters.add(th);
            }
            go.countDown();
            Thread.sleep(round % 3);
            writes.close();
            for (Thread th : submitters) {
                th.join(10_000);
            }
            total += taken.get();
            assertEquals(taken.get(), answered.get(), "round " + round + ": every submit taken is answered");
        }
    }
}
