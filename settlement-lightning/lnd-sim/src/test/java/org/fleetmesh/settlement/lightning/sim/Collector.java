package org.fleetmesh.settlement.lightning.sim;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.lightningj.lnd.wrapper.StatusException;

/** Collects a server stream's events in order; every wait times out so a broken simulation fails the test. */
final class Collector<T> implements StreamObserver<T> {
    private static final Object COMPLETED = new Object();
    private final BlockingQueue<Object> events = new LinkedBlockingQueue<>();

    @Override
    public void onNext(T value) {
        events.add(value);
    }

    @Override
    public void onError(Throwable t) {
        events.add(t);
    }

    @Override
    public void onCompleted() {
        events.add(COMPLETED);
    }

    private Object poll() throws InterruptedException {
        Object o = events.poll(10, TimeUnit.SECONDS);
        if (o == null) {
            throw new AssertionError("no stream event within 10 s");
        }
        return o;
    }

    @SuppressWarnings("unchecked")
    T next() throws InterruptedException {
        Object o = poll();
        if (o == COMPLETED) {
            throw new AssertionError("stream completed, a value was expected");
        }
        if (o instanceof Throwable t) {
            throw new AssertionError("stream failed, a value was expected", t);
        }
        return (T) o;
    }

    void awaitCompleted() throws InterruptedException {
        Object o = poll();
        if (o != COMPLETED) {
            throw new AssertionError("expected the stream to complete, got " + o);
        }
    }

    Status awaitError() throws InterruptedException {
        Object o = poll();
        if (!(o instanceof Throwable t)) {
            throw new AssertionError("expected the stream to fail, got " + o);
        }
        return status(t);
    }

    /** Nothing further arrives within {@code millis}. */
    void assertQuiet(long millis) throws InterruptedException {
        Object o = events.poll(millis, TimeUnit.MILLISECONDS);
        if (o != null) {
            throw new AssertionError("unexpected stream event " + o);
        }
    }

    static Status status(Throwable t) {
        if (t instanceof StatusException se) {
            return se.getStatus();
        }
        return Status.fromThrowable(t);
    }
}
