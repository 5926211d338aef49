package org.fleetmesh.settlement.lightning.lnd;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.Test;
import org.lightningj.lnd.proto.LightningApi;
import org.lightningj.lnd.proto.LightningGrpc;
import org.lightningj.lnd.wrapper.SynchronousLndAPI;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SmokeTest {
    @Test
    void getInfo() throws Exception {
        Server server = NettyServerBuilder.forPort(0).addService(new LightningGrpc.LightningImplBase() {
            @Override
            public void getInfo(LightningApi.GetInfoRequest request, StreamObserver<LightningApi.GetInfoResponse> obs) {
                obs.onNext(LightningApi.GetInfoResponse.newBuilder().setAlias("sim").build());
                obs.onCompleted();
            }
        }).build().start();
        var ch = io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
        var api = new SynchronousLndAPI(ch);
        assertEquals("sim", api.getInfo().getAlias());
        ch.shutdownNow();
        server.shutdownNow();
    }
}
