package org.fleetmesh.status.quarkus;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.fleetmesh.peering.quarkus.MeshAdminRoutes;
import org.fleetmesh.standing.Views;
import org.fleetmesh.standing.quarkus.FindingsRuntime;
import org.fleetmesh.standing.quarkus.StandingRuntime;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.vertx.core.http.HttpServerResponse;

/**
 * One snapshot that fails with an Error (an OutOfMemoryError while the heap is short) does not end the status page's
 * ticks: before, the tick caught RuntimeException only, and a periodic task that throws is never run again, so every
 * open page went stale until the node restarted.
 */
class StatusTickSurvivesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void anErrorInOneSnapshotDoesNotStopTheNextOnes() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        StatusPageRoutes r = new StatusPageRoutes();
        r.admin = new MeshAdminRoutes() {
            @Override
            public ObjectNode statusDocument() {
                if (calls.incrementAndGet() == 1) {
                    throw new OutOfMemoryError("Java heap space (test)");
                }
                ObjectNode s = JSON.createObjectNode().put("did", "did:peer:4zSelf");
                s.putArray("peers");
                return s;
            }
        };
        r.standing = new StandingRuntime() {
            @Override
            public Views views() {
                return Views.NONE;
            }

            @Override
            public Views current() {
                return Views.NONE;
            }
        };
        r.findings = new FindingsRuntime() {
            @Override
            public Map<String, Object> counters() {
                return Map.of();
            }
        };
        r.config = new StatusConfig() {
            public int maxStreams() {
                return 8;
            }

            public Duration streamInterval() {
                return Duration.ofMillis(250);
            }

            public Duration streamMaxAge() {
                return Duration.ofMinutes(10);
            }

            public Duration sampleInterval() {
                return Duration.ofHours(1); // no sampling in this test
            }

            public int samples() {
                return 10;
            }

            public boolean metricsPublic() {
                return false;
            }
        };
        r.init();
        set(r, "health", JSON.createObjectNode().put("status", "UP").set("checks", JSON.createArrayNode()));
        set(r, "healthAt", Long.MAX_VALUE / 2);

        // one open stream, whose response only counts the snapshots written to it
        AtomicInteger snapshots = new AtomicInteger();
        HttpServerResponse response = (HttpServerResponse) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] { HttpServerResponse.class }, (proxy, method, args) -> {
                    if (method.getName().equals("write") && args != null && args[0] instanceof String s
                            && s.startsWith("event: status")) {
                        snapshots.incrementAndGet();
                    }
                    Class<?> t = method.getReturnType();
                    if (t == boolean.class) {
                        return false;
                    }
                    return t == int.class ? (Object) 0 : null;
                });
        Class<?> streamClass = List.of(StatusPageRoutes.class.getDeclaredClasses()).stream()
                .filter(c -> c.getSimpleName().equals("Stream")).findFirst().orElseThrow();
        Constructor<?> make = streamClass.getDeclaredConstructor(StatusPageRoutes.class, HttpServerResponse.class);
        make.setAccessible(true);
        Field f = StatusPageRoutes.class.getDeclaredField("streams");
        f.setAccessible(true);
        @SuppressWarnings("unchecked")
        Set<Object> streams = (Set<Object>) f.get(r);
        Field slots = StatusPageRoutes.class.getDeclaredField("slots");
        slots.setAccessible(true);
        assertTrue(((org.fleetmesh.status.StreamSlots) slots.get(r)).tryAcquire());
        streams.add(make.newInstance(r, response));

        r.start(null);
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (snapshots.get() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(calls.get() >= 2, "no snapshot was tried after the one that failed: " + calls.get());
            assertTrue(snapshots.get() >= 2, "snapshots sent after the failed one: " + snapshots.get() + " of " + calls.get() + " tried");
        } finally {
            r.stop(null);
        }
    }

    private static void set(Object o, String name, Object value) throws Exception {
        Field f = StatusPageRoutes.class.getDeclaredField(name);
        f.setAccessible(true);
        f.set(o, value);
    }
}
