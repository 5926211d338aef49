package org.fleetmesh.settlement.lightning.sim;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;

/**
 * lnd's macaroon check (rpcperms/interceptor.go, macaroons/service.go) for the simulated RPCs, with the
 * required permission of each RPC as in lnd v0.17's rpcserver.go MainRPCServerPermissions and the
 * invoicesrpc / routerrpc macPermissions. RPCs the simulation does not serve are refused with
 * UNIMPLEMENTED before any macaroon check. Macaroon failures are plain errors in lnd: gRPC UNKNOWN.
 */
final class SimulatedMacaroonInterceptor implements ServerInterceptor {
    static final Map<String, SimulatedMacaroons.Op> PERMISSIONS = Map.ofEntries(
            Map.entry("lnrpc.Lightning/GetInfo", new SimulatedMacaroons.Op("info", "read")),
            Map.entry("lnrpc.Lightning/AddInvoice", new SimulatedMacaroons.Op("invoices", "write")),
            Map.entry("lnrpc.Lightning/LookupInvoice", new SimulatedMacaroons.Op("invoices", "read")),
            Map.entry("lnrpc.Lightning/SubscribeInvoices", new SimulatedMacaroons.Op("invoices", "read")),
            Map.entry("lnrpc.Lightning/DecodePayReq", new SimulatedMacaroons.Op("offchain", "read")),
            Map.entry("invoicesrpc.Invoices/AddHoldInvoice", new SimulatedMacaroons.Op("invoices", "write")),
            Map.entry("invoicesrpc.Invoices/SettleInvoice", new SimulatedMacaroons.Op("invoices", "write")),
            Map.entry("invoicesrpc.Invoices/CancelInvoice", new SimulatedMacaroons.Op("invoices", "write")),
            Map.entry("invoicesrpc.Invoices/SubscribeSingleInvoice", new SimulatedMacaroons.Op("invoices", "read")),
            // sic: lnd v0.17 requires invoices:write for LookupInvoiceV2
            Map.entry("invoicesrpc.Invoices/LookupInvoiceV2", new SimulatedMacaroons.Op("invoices", "write")),
            Map.entry("routerrpc.Router/SendPaymentV2", new SimulatedMacaroons.Op("offchain", "write")),
            Map.entry("routerrpc.Router/TrackPaymentV2", new SimulatedMacaroons.Op("offchain", "read")));

    private static final Metadata.Key<String> MACAROON = Metadata.Key.of("macaroon", Metadata.ASCII_STRING_MARSHALLER);

    private final SimulatedLnd node;

    SimulatedMacaroonInterceptor(SimulatedLnd node) {
        this.node = node;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
            ServerCallHandler<Q, R> next) {
        String method = call.getMethodDescriptor().getFullMethodName();
        SimulatedMacaroons.Op required = PERMISSIONS.get(method);
        if (required == null) {
            call.close(Status.UNIMPLEMENTED.withDescription(
                    "not simulated by fleetmesh's LND simulation (SimulatedLnd): /" + method), new Metadata());
            return new ServerCall.Listener<>() {
            };
        }
        Iterable<String> values = headers.getAll(MACAROON);
        java.util.List<String> list = new java.util.ArrayList<>();
        if (values != null) {
            values.forEach(list::add);
        }
        String error = SimulatedMacaroons.check(list, node.rootKey, required, "/" + method, peer(call),
                node.net.clock().now());
        if (error != null) {
            call.close(Status.UNKNOWN.withDescription(error), new Metadata());
            return new ServerCall.Listener<>() {
            };
        }
        return next.startCall(call, headers);
    }

    private static InetAddress peer(ServerCall<?, ?> call) {
        SocketAddress a = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        return a instanceof InetSocketAddress isa ? isa.getAddress() : null;
    }
}
