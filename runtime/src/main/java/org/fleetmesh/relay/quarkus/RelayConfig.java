package org.fleetmesh.relay.quarkus;

import org.fleetmesh.relay.RelayLimits;
import org.fleetmesh.relay.RelayPolicy;

import java.util.Optional;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Relay settings ({@code fleetmesh.relay.*}, or {@code FLEETMESH_RELAY_*} in the environment). */
@ConfigMapping(prefix = "fleetmesh.relay")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface RelayConfig {

    /** NIP-11 {@code name}. */
    @WithDefault("fleetmesh meshnode")
    String name();

    /** NIP-11 {@code description}. */
    @WithDefault("A fleetmesh node: a Nostr relay that federates with other relays.")
    String description();

    /** NIP-11 {@code pubkey}: the operator's contact pubkey (hex), not the node's own key. */
    Optional<String> pubkey();

    /** NIP-11 {@code contact}: an alternative contact (mailto: or https: URI). */
    Optional<String> contact();

    /** NIP-11 {@code icon}. */
    Optional<String> icon();

    /** NIP-11 {@code software}: the URL of the relay software's project; left out unless set. */
    Optional<String> software();

    /** This relay's public WebSocket URL (e.g. wss://relay.example.com/), which NIP-42 AUTH events must name. */
    Optional<java.net.URI> url();

    /** NIP-42: REQ and COUNT need an authenticated client. */
    @WithDefault("false")
    boolean authRequiredReads();

    /** NIP-42: EVENT needs an authenticated client. */
    @WithDefault("false")
    boolean authRequiredWrites();

    /**
     * Free bytes kept on the data dir's disk (where the embedded PostgreSQL writes): below it no event that adds to the
     * store is taken, from clients or peers ({@code error: the relay's disk is nearly full ...}); deletions still are.
     * {@code 0} turns the floor off.
     */
    @WithDefault("536870912")
    long minFreeDiskBytes();

    /** Largest client message, in characters. */
    @WithDefault("524288")
    int maxMessageLength();

    /** Open subscriptions per connection. */
    @WithDefault("32")
    int maxSubscriptions();

    /** Filters per REQ or COUNT. */
    @WithDefault("16")
    int maxFilters();

    /** Largest {@code limit} honoured; larger values are clamped. */
    @WithDefault("5000")
    int maxLimit();

    /** Stored events returned for a filter without {@code limit}. */
    @WithDefault("500")
    int defaultLimit();

    /** Tags per event. */
    @WithDefault("2500")
    int maxEventTags();

    /** Characters of event content. */
    @WithDefault("262144")
    int maxContentLength();

    /** Seconds an event's created_at may lie in the future. */
    @WithDefault("900")
    long createdAtUpperSkew();

    /** Seconds an event's created_at may lie in the past; 0 means no bound. */
    @WithDefault("0")
    long createdAtLowerSkew();

    /**
     * Bytes queued to one client before it is dropped as too slow (each message is charged its length plus
     * {@link org.fleetmesh.relay.SendBudget#MESSAGE_OVERHEAD}).
     */
    @WithDefault("8388608")
    long sendQueueBytes();

    /**
     * Bytes queued to all clients together past which a client holding more than its fair share is dropped as too slow;
     * 0: a quarter of the JVM's maximum heap.
     */
    @WithDefault("0")
    long sendQueueTotalBytes();

    /**
     * Bytes of unfinished incoming WebSocket messages all connections (clients and /mesh links) may hold together before
     * the largest holders are closed (1009); 0: a quarter of the JVM's maximum heap (Netty's direct memory defaults to
     * the heap's size, and a buffer may be twice what it holds).
     */
    @WithDefault("0")
    long receiveTotalBytes();

    /**
     * How long an incoming WebSocket message may stay unfinished (its first frame's bytes arrived, its last frame not):
     * past it the connection is closed 1008. A client that answers pings keeps its connection past the idle timeout,
     * so without this a half-sent message would hold its buffer for as long as the client likes. {@code 0s}: no limit.
     */
    @WithDefault("60s")
    java.time.Duration messageTimeout();

    /** The receive budget these settings make: one per node. */
    default org.fleetmesh.relay.ReceiveBudget receiveBudget() {
        return new org.fleetmesh.relay.ReceiveBudget(receiveTotalBytes() > 0 ? receiveTotalBytes()
                : Runtime.getRuntime().maxMemory() / 4);
    }

    /** The send budget these settings make: one per node. */
    default org.fleetmesh.relay.SendBudget sendBudget() {
        long total = sendQueueTotalBytes() > 0 ? sendQueueTotalBytes() : Runtime.getRuntime().maxMemory() / 4;
        return new org.fleetmesh.relay.SendBudget(sendQueueBytes(), total);
    }

    /** Events waiting to be committed before new ones are refused with rate-limited. */
    @WithDefault("50000")
    int writeQueueEvents();

    /** NIP-77: events one Negentropy session may cover; larger queries get NEG-ERR "blocked:". */
    @WithDefault("1000000")
    int negMaxItems();

    /** NIP-77: largest Negentropy message this relay sends, in bytes before hex encoding (0: no limit, else at least 4096). */
    @WithDefault("200000")
    int negFrameSizeLimit();

    /** NIP-77: seconds after which an idle session is closed with NEG-ERR "closed:". */
    @WithDefault("60")
    int negIdleSeconds();

    /**
     * NIP-77: filters (a JSON array of filter objects) whose Negentropy fingerprint trees are kept
     * in step with the store, so that sessions on exactly such a filter start at once and are not
     * capped by neg-max-items; {@code []} for none. Default: the whole store.
     */
    @WithDefault("[{}]")
    String negIndexes();

    /** NIP-77: how often live indexes are rebuilt from the store (picks up removals by other nodes sharing the database); 0s: never. */
    @WithDefault("1h")
    java.time.Duration negIndexRebuild();

    /** Threads answering REQ, COUNT and NEG-OPEN from the store. */
    @WithDefault("8")
    int queryThreads();

    /**
     * How often the relay pings each client connection: the pongs are the traffic that keeps a quiet subscriber
     * inside {@code quarkus.http.idle-timeout} (120s), which closes sockets that never send anything. {@code 0s}: no
     * pings (set the idle timeout far above how long clients stay quiet, then).
     */
    @WithDefault("55s")
    java.time.Duration pingInterval();

    /**
     * Client WebSocket connections open at once on the whole relay (about 10 KB each when idle); one more is told why
     * and closed as it opens (docs/spec/relay.md, "Connections").
     */
    @WithDefault("10000")
    int maxConnections();

    /** REQ, COUNT and NEG-OPEN one connection may have queued or running; more get CLOSED / NEG-ERR "rate-limited:". */
    @WithDefault("8")
    int maxInflightQueries();

    /** NIP-77: sessions open (or being opened) per connection; more get NEG-ERR "blocked:". */
    @WithDefault("8")
    int negMaxSessions();

    /** NIP-77: sessions open (or being opened) on the whole relay; more get NEG-ERR "blocked:". */
    @WithDefault("1024")
    int negMaxSessionsTotal();

    /**
     * NIP-77: items (event ids with their created_at) all per-session snapshots may hold together;
     * sessions served by a live index hold none. A NEG-OPEN that would pass it gets NEG-ERR "blocked:".
     */
    @WithDefault("2000000")
    long negMaxItemsTotal();

    /** Events waiting for live fan-out; when full, the writer waits and ephemeral events get OK false "rate-limited:". */
    @WithDefault("65536")
    int fanOutQueueEvents();

    /** Live events one subscription may hold back while its stored events are sent; past it: CLOSED "error:". */
    @WithDefault("4096")
    int maxHeldBackEvents();

    /**
     * An ephemeral event whose NIP-40 expiration is at most this many seconds ahead is stored until it expires (and
     * served to REQ); other ephemeral events only go to live subscribers. 0 (the default) stores none: NIP-40 says
     * "An expiration timestamp does not affect storage of ephemeral events".
     */
    @WithDefault("" + org.fleetmesh.relay.RelayLimits.DEFAULT_EPHEMERAL_PERSIST_SECONDS)
    long ephemeralPersistSeconds();

    default RelayPolicy policy() {
        return new RelayPolicy(authRequiredReads(), authRequiredWrites(), url(), 600);
    }

    default RelayLimits limits() {
        return new RelayLimits(maxMessageLength(), maxSubscriptions(), maxFilters(), maxLimit(), defaultLimit(),
                maxEventTags(), maxContentLength(), createdAtUpperSkew(), createdAtLowerSkew(), sendQueueBytes(),
                writeQueueEvents(), negMaxItems(), negFrameSizeLimit(), negIdleSeconds(), maxInflightQueries(),
                negMaxSessions(), negMaxSessionsTotal(), negMaxItemsTotal(), fanOutQueueEvents(), maxHeldBackEvents(),
                ephemeralPersistSeconds());
    }
}
