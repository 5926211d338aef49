package org.fleetmesh.settlement.lightning.sim;

import java.io.File;
import java.nio.file.Path;
import org.lightningj.lnd.wrapper.AsynchronousLndAPI;
import org.lightningj.lnd.wrapper.SynchronousLndAPI;
import org.lightningj.lnd.wrapper.invoices.AsynchronousInvoicesAPI;
import org.lightningj.lnd.wrapper.invoices.SynchronousInvoicesAPI;
import org.lightningj.lnd.wrapper.router.AsynchronousRouterAPI;
import org.lightningj.lnd.wrapper.router.SynchronousRouterAPI;

/** LightningJ clients of one simulated node, over TLS with the node's tls.cert and a macaroon file. */
final class LndClients implements AutoCloseable {
    final SynchronousLndAPI lnd;
    final AsynchronousLndAPI lndAsync;
    final SynchronousInvoicesAPI invoices;
    final AsynchronousInvoicesAPI invoicesAsync;
    final SynchronousRouterAPI router;
    final AsynchronousRouterAPI routerAsync;

    LndClients(SimulatedLnd node, Path macaroon) throws Exception {
        File cert = node.tlsCertPath().toFile();
        File mac = macaroon.toFile();
        lnd = new SynchronousLndAPI(node.host(), node.port(), cert, mac);
        lndAsync = new AsynchronousLndAPI(node.host(), node.port(), cert, mac);
        invoices = new SynchronousInvoicesAPI(node.host(), node.port(), cert, mac);
        invoicesAsync = new AsynchronousInvoicesAPI(node.host(), node.port(), cert, mac);
        router = new SynchronousRouterAPI(node.host(), node.port(), cert, mac);
        routerAsync = new AsynchronousRouterAPI(node.host(), node.port(), cert, mac);
    }

    static LndClients admin(SimulatedLnd node) throws Exception {
        return new LndClients(node, node.adminMacaroonPath());
    }

    @Override
    public void close() throws Exception {
        lnd.close();
        lndAsync.close();
        invoices.close();
        invoicesAsync.close();
        router.close();
        routerAsync.close();
    }
}
