package org.fleetmesh.settlement.lightning.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.settlement.EscrowAgent;
import org.fleetmesh.settlement.EscrowBook;
import org.fleetmesh.settlement.lightning.lnd.LndConnection;
import org.fleetmesh.settlement.lightning.lnd.LndRail;
import org.fleetmesh.settlement.lightning.sim.SimulatedLightningNetwork;
import org.fleetmesh.settlement.lightning.sim.SimulatedLnd;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.Invoice;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.PaymentResult;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.storage.postgres.PostgresStorage;
import org.fleetmesh.storage.postgres.ledger.PgLedgerStore;

/**
 * Escrow round trips against two SIMULATED LND nodes over real gRPC/TLS with macaroons: the seller
 * seals and issues a hold invoice (ledger first, PostgreSQL, fsync on), the buyer pays it, the
 * seller sees it ACCEPTED (PAID in the ledger), releases the key (settle), the buyer learns the
 * preimage. Baseline in the same run: bare GetInfo round trips (unary gRPC over the same kind of channel).
 *
 * <p>Run by {@code bench/escrow.sh [--escrows N] [--parallel P]}; it lives outside the packaged node, which
 * never carries the simulated LND.
 */
public final class EscrowBench {

    public static void main(String[] args) throws Exception {
        int n = option(args, "--escrows", 300);
        int parallel = option(args, "--parallel", 1);
        Path dir = Files.createTempDirectory("fleetmesh-escrow-bench");
        try (PostgresStorage storage = PostgresStorage.openFromConfig(dir.resolve("db"), Optional.empty(), Optional.empty(),
                Optional.empty());
                SimulatedLightningNetwork net = new SimulatedLightningNetwork(dir.resolve("lnd"))) {
            SimulatedLnd sellerNode = net.startNode("seller");
            SimulatedLnd buyerNode = net.startNode("buyer");
            LndRail.Options opts = new LndRail.Options(Duration.ofSeconds(30), Duration.ofSeconds(60), 80,
                    Optional.empty(), Duration.ofMillis(200));
            try (LndRail seller = new LndRail(LndConnection.open(sellerNode.host(), sellerNode.port(), sellerNode.tlsCertPath(),
                    sellerNode.invoiceMacaroonPath(), Duration.ZERO), opts, Clock.systemUTC());
                    LndRail buyer = new LndRail(LndConnection.open(buyerNode.host(), buyerNode.port(), buyerNode.tlsCertPath(),
                            buyerNode.adminMacaroonPath(), Duration.ZERO), opts, Clock.systemUTC())) {
                EscrowBook book = new EscrowBook(new PgLedgerStore(storage.dataSource()), Clock.systemUTC());
                Map<PaymentHash, CountDownLatch> paid = new ConcurrentHashMap<>();
                EscrowAgent agent = new EscrowAgent(book, seller, Duration.ofMinutes(10), e -> {
                    if (e.state() == EscrowState.PAID) {
                        CountDownLatch l = paid.get(e.paymentHash());
                        if (l != null) {
                            l.countDown();
                        }
                    }
                });
                // baseline: unary gRPC round trips on the same kind of channel
                for (int i = 0; i < 200; i++) {
                    buyer.info();
                }
                int infos = Math.max(1000, n * 3);
                long b0 = System.nanoTime();
                for (int i = 0; i < infos; i++) {
                    buyer.info();
                }
                double infoPerS = infos / ((System.nanoTime() - b0) / 1e9);

                ExecutorService pool = Executors.newFixedThreadPool(parallel * 2);
                Runnable one = () -> {
                    Preimage k = Preimage.random();
                    CountDownLatch latch = new CountDownLatch(1);
                    paid.put(k.hash(), latch);
                    Invoice inv = agent.open(k.hash(), "did:key:z6Mkbench", 10_000, "bench");
                    CompletableFuture<PaymentResult> paying = CompletableFuture.supplyAsync(() -> buyer.pay(inv.paymentRequest(), 100), pool);
                    try {
                        if (!latch.await(30, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("not accepted in time");
                        }
                        agent.release(k, 0);
                        PaymentResult r = paying.get(30, TimeUnit.SECONDS);
                        if (!r.succeeded() || !r.preimage().orElseThrow().equals(k)) {
                            throw new IllegalStateException("payer did not learn the key: " + r);
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    } finally {
                        paid.remove(k.hash());
                    }
                };
                for (int i = 0; i < Math.min(50, n); i++) { // warm-up
                    one.run();
                }
                ExecutorService drivers = Executors.newFixedThreadPool(parallel);
                long[] lat = new long[n];
                List<CompletableFuture<Void>> all = new ArrayList<>();
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    int idx = i;
                    all.add(CompletableFuture.runAsync(() -> {
                        long s = System.nanoTime();
                        one.run();
                        lat[idx] = System.nanoTime() - s;
                    }, drivers));
                }
                CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get();
                double seconds = (System.nanoTime() - t0) / 1e9;
                drivers.shutdown();
                pool.shutdown();
                Arrays.sort(lat);
                double perS = n / seconds;
                double p50 = lat[n / 2] / 1e6, p99 = lat[Math.min(n - 1, (int) (n * 0.99))] / 1e6;
                System.err.printf("escrow round trips: %,.1f/s (p50 %.1f ms, p99 %.1f ms, %d in parallel); GetInfo %,.0f/s%n",
                        perS, p50, p99, parallel, infoPerS);
                System.out.printf("{\"escrows\":%d,\"parallel\":%d,\"round_trips_per_s\":%.1f,\"p50_ms\":%.2f,\"p99_ms\":%.2f,"
                        + "\"getinfo_per_s\":%.0f,\"ratio\":%.4f}%n", n, parallel, perS, p50, p99, infoPerS, perS / infoPerS);
            }
        }
        System.exit(0); // gRPC and PostgreSQL threads would keep the JVM alive
    }

    private static int option(String[] args, String name, int def) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return Integer.parseInt(args[i + 1]);
            }
        }
        return def;
    }
}
