package org.fleetmesh.compute.quarkus;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.fleetmesh.compute.market.Market;
import org.fleetmesh.compute.nip90.Dvm;
import org.fleetmesh.compute.nip90.DvmException;
import org.fleetmesh.compute.nip90.DvmRequest;
import org.fleetmesh.compute.nip90.RequestRate;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.relay.Ingest;
import org.fleetmesh.relay.IngestListener;
import org.fleetmesh.relay.Origin;
import org.fleetmesh.relay.quarkus.RelayRuntime;
import org.fleetmesh.settlement.quarkus.SettlementRuntime;
import org.fleetmesh.spi.schedule.Repeating;
import org.fleetmesh.spi.settlement.Invoice;
import org.fleetmesh.spi.settlement.InvoiceState;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.spi.settlement.SettlementRail;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;

/**
 * Wires the NIP-90 bridge ({@link Dvm}) into the node: kind 5600 events that clients publish to this relay go to it
 * (events from peers and syncs do not: the node that a client chose answers), what it signs is stored in the relay
 * like any event, bills are invoices on the node's preferred settlement rail, and modules are fetched only from
 * {@code fetch-hosts}.
 */
@ApplicationScoped
public class DvmBridge {
    private static final Logger LOG = Logger.getLogger(DvmBridge.class);

    @Inject
    Nip90Config config;

    @Inject
    RelayRuntime relays;

    @Inject
    org.fleetmesh.relay.quarkus.RelayConfig relayConfig;

    @Inject
    NodeIdentity identity;

    @Inject
    Instance<Market> market;

    @Inject
    SettlementRuntime settlement;

    private volatile Dvm dvm;
    private ThreadPoolExecutor requests;
    private ScheduledExecutorService ticks;
    private IngestListener listener;
    /** Requests parsed, fetched and submitted at once. */
    static final int REQUEST_THREADS = 4;
    /** "busy" answers to requests the queue had no room for, waiting to be sent. */
    static final int MAX_OVERFLOW_ANSWERS = 64;
    private final java.util.concurrent.atomic.AtomicInteger overflowing = new java.util.concurrent.atomic.AtomicInteger();
    private final Set<String> settled = ConcurrentHashMap.newKeySet();
    /** The preimages of the bills issued as hold invoices and not yet settled, by payment hash (hex). */
    private final java.util.Map<String, Preimage> held = new ConcurrentHashMap<>();
    /** The payment hashes (hex) of bills issued as hold invoices, until they are paid or forgotten. */
    private final Set<String> hold = ConcurrentHashMap.newKeySet();
    private HttpClient http;

    void onStart(@Observes StartupEvent e) {
        if (!config.enabled()) {
            return;
        }
        if (!market.isResolvable()) {
            LOG.warn("NIP-90 bridge is on but this node has no compute market: kind 5600 requests go unanswered");
            return;
        }
        http = HttpClient.newBuilder().connectTimeout(config.fetchTimeout()).followRedirects(HttpClient.Redirect.NEVER)
                .build();
        // NIP-90 clients pay bolt11 invoices: the Lightning rail when there is one, else the preferred rail
        SettlementRail rail = settlement.rail("ln").or(() -> settlement.rail()).orElse(null);
        Dvm.Config c = new Dvm.Config(config.worker(), config.fuel(), config.maxFuel(), config.memoryPages(),
                config.maxTime(), config.maxPriceMsat(), config.pricePerKfuel(), config.maxPending(), config.billExpiry(),
                relayConfig.maxContentLength(), config.billYield());
        dvm = new Dvm(market.get(), rail == null ? null : payments(rail), this::fetch, this::sign, this::publish,
                System::currentTimeMillis, c, new RequestRate(config.ratePerMinute(), config.rateKeys()),
                identity.secrets().publicKeys().nostr().hex());
        // parsing, fetching and submitting happen here, never on the relay's writer thread
        // a few at once, so that one module fetched slowly (up to fetch-timeout) does not hold every request behind it
        requests = new ThreadPoolExecutor(REQUEST_THREADS, REQUEST_THREADS, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(config.maxPending() * 4), r -> daemon(r, "fleetmesh-nip90"));
        requests.allowCoreThreadTimeOut(true);
        ticks = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "fleetmesh-nip90-tick"));
        long tick = Math.max(10, config.tick().toMillis());
        ticks.scheduleWithFixedDelay(Repeating.surviving("the NIP-90 bridge's tick", this::tick), tick, tick, TimeUnit.MILLISECONDS);
        listener = this::completed;
        relays.relay().ingest().addListener(listener);
        LOG.infof("NIP-90 bridge on: kind %d requests run on %s, %s", DvmRequest.KIND, config.worker(),
                rail == null ? "free jobs only (no settlement rail)" : "billed on rail " + rail.id());
    }

    /** Counters for status, empty when the bridge is off. */
    public Map<String, Long> counters() {
        Dvm d = dvm;
        return d == null ? Map.of() : d.counters();
    }

    private void completed(Origin origin, List<Event> batch, List<Ingest.Outcome> outcomes) {
        if (!(origin instanceof Origin.Client)) {
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            Event e = batch.get(i);
            if (e.kind() == DvmRequest.KIND && outcomes.get(i).status() == Ingest.Status.ACCEPTED) {
                try {
                    requests.execute(() -> dvm.request(e));
                } catch (RejectedExecutionException full) {
                    overflow(e);
                }
            }
        }
    }

    /**
     * A request the queue had no room for: its "busy" answer is signed and published on the tick thread (not the
     * writer's), at most {@link #MAX_OVERFLOW_ANSWERS} waiting; past that it is dropped unanswered.
     */
    private void overflow(Event e) {
        if (overflowing.incrementAndGet() > MAX_OVERFLOW_ANSWERS) {
            overflowing.decrementAndGet();
            LOG.debugf("NIP-90 request %s dropped: the request queue is full", e.id().hex());
            return;
        }
        try {
            ticks.execute(() -> {
                try {
                    dvm.overflow(e);
                } finally {
                    overflowing.decrementAndGet();
                }
            });
        } catch (RejectedExecutionException stopped) {
            overflowing.decrementAndGet();
        }
    }

    private void tick() {
        try {
            dvm.tick();
        } catch (RuntimeException e) {
            LOG.error("NIP-90 bridge tick failed", e);
        }
    }

    private Event sign(int kind, List<List<String>> tags, String content) {
        byte[] secret = identity.secrets().nostr().bytes();
        try {
            return Events.sign(secret, System.currentTimeMillis() / 1000, kind, tags, content);
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
    }

    private void publish(Event e) {
        relays.relay().ingest().submit(List.of(e), new Origin.Import()).thenAccept(outcomes -> {
            if (!outcomes.get(0).accepted()) {
                LOG.warnf("NIP-90 event %s (kind %d) was not stored: %s", e.id().hex(), e.kind(),
                        outcomes.get(0).message());
            }
        });
    }

    private Dvm.Payments payments(SettlementRail rail) {
        return new Dvm.Payments() {
            @Override
            public Dvm.Bill bill(long msat, String memo, java.time.Duration expiry) throws DvmException {
                try {
                    Preimage k = Preimage.random();
                    Invoice inv;
                    if (rail.capabilities().contains(org.fleetmesh.spi.settlement.Capability.HOLD_INVOICE)) {
                        // a hold invoice: the customer's payment is only taken (settled) by this bridge, while it holds
                        // the request; one paid after a restart forgot it is never settled and returns to the customer
                        // when its HTLC times out (before, a plain invoice took the money with nobody to serve it)
                        inv = rail.holdInvoice(k.hash(), msat, memo, expiry);
                        held.put(k.hash().hex(), k);
                        hold.add(k.hash().hex());
                    } else {
                        inv = rail.invoice(k, msat, memo, expiry);
                    }
                    String hash = inv.paymentHash().hex();
                    rail.watch(inv.paymentHash(), state -> {
                        if (state == InvoiceState.SETTLED || state == InvoiceState.ACCEPTED) {
                            settled.add(hash);
                        } else if (state == InvoiceState.CANCELED || state == InvoiceState.EXPIRED) {
                            settled.remove(hash); // first: a canceled hold invoice is never taken for paid
                            held.remove(hash);
                        }
                    });
                    return new Dvm.Bill(inv.paymentRequest(), hash);
                } catch (RuntimeException e) {
                    LOG.errorf(e, "NIP-90 bill of %d msat failed on rail %s", msat, rail.id());
                    throw new DvmException("this node cannot bill now: " + e.getMessage());
                }
            }

            @Override
            public java.util.OptionalLong expiresAtMillis(String railId, String invoice) {
                try {
                    return settlement.rail(railId).map(r -> java.util.OptionalLong.of(r.decode(invoice).expiresAt()
                            .toEpochMilli())).orElse(java.util.OptionalLong.empty());
                } catch (RuntimeException e) {
                    return java.util.OptionalLong.empty();
                }
            }

            @Override
            public boolean paymentArrived(String paymentHash) {
                return settled.contains(paymentHash); // held (ACCEPTED) or taken (SETTLED)
            }

            @Override
            public boolean paid(String paymentHash) {
                // a bill is asked about until it is paid or expires; then it is forgotten
                if (!settled.contains(paymentHash)) {
                    return false;
                }
                Preimage k = held.get(paymentHash);
                if (k == null && hold.contains(paymentHash)) {
                    settled.remove(paymentHash); // a hold invoice canceled or given up meanwhile: not paid
                    return false;
                }
                if (k != null) {
                    try {
                        rail.settle(k); // the customer's payment is taken now, by the bridge that will serve it
                    } catch (org.fleetmesh.spi.settlement.SettlementException e) {
                        if (e.reason() != org.fleetmesh.spi.settlement.SettlementException.Reason.ALREADY_SETTLED) {
                            LOG.warnf("NIP-90 bill %s is paid but could not be settled (%s); tried again", paymentHash,
                                    e.getMessage());
                            return false; // asked again at the next tick, until the bill's deadline
                        }
                    } catch (RuntimeException e) {
                        LOG.warnf("NIP-90 bill %s is paid but could not be settled (%s); tried again", paymentHash,
                                e.toString());
                        return false;
                    }
                    held.remove(paymentHash);
                }
                settled.remove(paymentHash);
                hold.remove(paymentHash);
                return true;
            }

            @Override
            public void forget(String paymentHash) {
                settled.remove(paymentHash);
                if (held.remove(paymentHash) != null) {
                    try {
                        rail.cancel(org.fleetmesh.spi.settlement.PaymentHash.ofHex(paymentHash)); // a held payment returns now
                    } catch (RuntimeException e) {
                        LOG.debugf("NIP-90 bill %s not canceled (%s): a held payment returns when its HTLC times out",
                                paymentHash, e.toString());
                    }
                }
                hold.remove(paymentHash);
            }
        };
    }

    /** Fetches a module from a url whose host is in {@code fetch-hosts}, at most {@code fetch-max-bytes}. */
    private byte[] fetch(String url) throws DvmException {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new DvmException("url: not a URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
        List<String> allowed = config.fetchHosts().orElse(List.of());
        if (!(scheme.equals("https") || scheme.equals("http")) || !allowed.contains(host)) {
            throw new DvmException("module is not stored here and its url's host " + (host.isEmpty() ? "(none)" : host)
                    + " is not one this node fetches from");
        }
        try {
            HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(uri).timeout(config.fetchTimeout()).GET()
                    .build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = r.body()) {
                if (r.statusCode() != 200) {
                    throw new DvmException("module fetch: HTTP " + r.statusCode() + " from " + host);
                }
                byte[] b = in.readNBytes(config.fetchMaxBytes() + 1);
                if (b.length > config.fetchMaxBytes()) {
                    throw new DvmException("module fetch: over " + config.fetchMaxBytes() + " bytes");
                }
                return b;
            }
        } catch (IOException e) {
            throw new DvmException("module fetch from " + host + " failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DvmException("module fetch interrupted");
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    @PreDestroy
    void stop() {
        if (listener != null) {
            relays.relay().ingest().removeListener(listener);
        }
        if (ticks != null) {
            ticks.shutdownNow();
        }
        if (requests != null) {
            requests.shutdownNow();
        }
    }
}
