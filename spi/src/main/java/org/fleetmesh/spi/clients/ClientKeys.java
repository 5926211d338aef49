package org.fleetmesh.spi.clients;

import java.util.List;

/**
 * The key a client's budgets are held to, as the node decides it (docs/OPERATING.md, "Client limits"): the TCP peer's
 * address, or, from one of {@code fleetmesh.clients.trusted-proxies}, the address that proxy vouches for in its
 * header; IPv6 keyed by its /64. Adapters that bound what a stranger can make them do per address (an invoice, a
 * query) key it so, the same as the core's relay does. Thread-safe.
 */
public interface ClientKeys {
    /** The header trusted proxies name the client in (e.g. {@code X-Forwarded-For}). */
    String header();

    /** The key of a request from {@code remoteHost} (an IP literal) that carried {@code headerValues} of {@link #header()}. */
    String of(String remoteHost, List<String> headerValues);
}
