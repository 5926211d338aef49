package org.fleetmesh.spi.storage;

import java.time.Duration;

/**
 * A read ({@code query}, {@code count}, {@code enumerate}) ran longer than the store's statement
 * timeout and was cancelled; nothing was changed. The relay answers it with {@code CLOSED}
 * {@code "error: ..."} (the client may retry with a narrower filter).
 */
public class QueryTimeoutException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final Duration timeout;

    public QueryTimeoutException(Duration timeout, Throwable cause) {
        super("the query ran longer than " + timeout.toMillis() + " ms and was cancelled", cause);
        this.timeout = timeout;
    }

    public Duration timeout() {
        return timeout;
    }
}
