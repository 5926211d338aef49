package org.fleetmesh.settlement.lightning.sim;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

/**
 * One subscriber's server stream in the simulation. All sends happen under the network's lock, so each
 * subscriber sees its updates in the order the simulated state changed; a cancelled client is dropped.
 */
final class SimulatedStream<T> {
    private final ServerCallStreamObserver<T> observer;
    private volatile boolean closed;

    SimulatedStream(StreamObserver<T> observer, Runnable onCancel) {
        this.observer = (ServerCallStreamObserver<T>) observer;
        this.observer.setOnCancelHandler(() -> {
            closed = true;
            onCancel.run();
        });
    }

    boolean isClosed() {
        return closed;
    }

    void send(T value) {
        if (closed) {
            return;
        }
        try {
            observer.onNext(value);
        } catch (RuntimeException e) {
            closed = true;
        }
    }

    void complete() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            observer.onCompleted();
        } catch (RuntimeException ignored) {
            // the client went away
        }
    }

    void fail(Throwable t) {
        if (closed) {
            return;
        }
        closed = true;
        try {
            observer.onError(t);
        } catch (RuntimeException ignored) {
            // the client went away
        }
    }
}
