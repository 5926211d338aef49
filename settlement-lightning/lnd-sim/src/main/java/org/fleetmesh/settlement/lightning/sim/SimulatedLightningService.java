package org.fleetmesh.settlement.lightning.sim;

import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11Exception;
import org.fleetmesh.settlement.lightning.bolt11.DescriptionHash;
import org.fleetmesh.settlement.lightning.bolt11.Features;
import org.fleetmesh.settlement.lightning.bolt11.Invoice;
import org.fleetmesh.settlement.lightning.bolt11.Network;
import org.fleetmesh.settlement.lightning.bolt11.PaymentHash;
import org.fleetmesh.settlement.lightning.bolt11.PaymentSecret;
import org.lightningj.lnd.proto.LightningApi;
import org.lightningj.lnd.proto.LightningGrpc;

/**
 * The simulated {@code lnrpc.Lightning} service: GetInfo, AddInvoice, LookupInvoice, DecodePayReq and
 * SubscribeInvoices, after lnd v0.17's rpcserver.go and lnrpc/invoicesrpc/addinvoice.go. Every other
 * Lightning RPC answers UNIMPLEMENTED (see {@link SimulatedMacaroonInterceptor}).
 */
final class SimulatedLightningService extends LightningGrpc.LightningImplBase {
    static final String VERSION = "0.17.0-beta commit=fleetmesh-lnd-simulation (SIMULATED lnd, not a Lightning node)";
    /** chainreg.DefaultBitcoinTimeLockDelta: the default cltv_expiry of new invoices. */
    static final long DEFAULT_CLTV_EXPIRY = 80;
    /** invoicesrpc.DefaultInvoiceExpiry: 24 hours. */
    static final long DEFAULT_INVOICE_EXPIRY = 24 * 3600;
    static final int MAX_MEMO_SIZE = 1024;
    static final int MIN_CLTV_DELTA = 18;
    static final int MAX_CLTV_DELTA = 65535;

    private final SimulatedLnd node;

    SimulatedLightningService(SimulatedLnd node) {
        this.node = node;
    }

    static <T> void run(StreamObserver<T> obs, java.util.function.Supplier<T> body) {
        T result;
        try {
            result = body.get();
        } catch (StatusRuntimeException e) {
            obs.onError(e);
            return;
        }
        obs.onNext(result);
        obs.onCompleted();
    }

    @Override
    public void getInfo(LightningApi.GetInfoRequest request, StreamObserver<LightningApi.GetInfoResponse> obs) {
        run(obs, () -> {
            SimulatedLightningNetwork net = node.net;
            net.lock.lock();
            try {
                int height = net.blockHeight();
                int active = net.activeChannels(node);
                return LightningApi.GetInfoResponse.newBuilder()
                        .setVersion(VERSION)
                        .setCommitHash("fleetmesh-lnd-simulation")
                        .setIdentityPubkey(node.identityPubkey())
                        .setAlias(node.alias())
                        .setColor("#3399ff")
                        .setNumActiveChannels(active)
                        .setNumPeers(active)
                        .setBlockHeight(height)
                        .setBlockHash(HexFormat.of().formatHex(SimulatedLnd.sha256(
                                ("fleetmesh simulated block " + height).getBytes(StandardCharsets.US_ASCII))))
                        .setBestHeaderTimestamp(net.clock().epochSeconds())
                        .setSyncedToChain(true)
                        .setSyncedToGraph(true)
                        .setTestnet(false)
                        .addChains(LightningApi.Chain.newBuilder().setChain("bitcoin").setNetwork("regtest"))
                        .putFeatures(9, SimulatedInvoice.feature("tlv-onion", false))
                        .putFeatures(14, SimulatedInvoice.feature("payment-addr", true))
                        .putFeatures(17, SimulatedInvoice.feature("multi-path-payments", false))
                        .build();
            } finally {
                net.lock.unlock();
            }
        });
    }

    @Override
    public void addInvoice(LightningApi.Invoice req, StreamObserver<LightningApi.AddInvoiceResponse> obs) {
        run(obs, () -> {
            if (req.getIsAmp()) {
                throw LndErrors.notSimulated("AMP invoices (is_amp)");
            }
            long valueMsat = LndErrors.amountMsat(req.getValue(), req.getValueMsat());
            byte[] preimage = req.getRPreimage().isEmpty() ? SimulatedLnd.random32() : LndErrors.preimage(req.getRPreimage());
            SimulatedInvoice inv = create(node, SimulatedLnd.sha256(preimage), preimage, false, valueMsat, req.getMemo(),
                    req.getDescriptionHash(), req.getExpiry(), req.getCltvExpiry(), req.getFallbackAddr(),
                    req.getPrivate());
            return LightningApi.AddInvoiceResponse.newBuilder()
                    .setRHash(ByteString.copyFrom(inv.hash))
                    .setPaymentRequest(inv.paymentRequest)
                    .setAddIndex(inv.addIndex)
                    .setPaymentAddr(ByteString.copyFrom(inv.paymentAddr))
                    .build();
        });
    }

    /** invoicesrpc.AddInvoice's checks, the signed BOLT-11 and the registry's duplicate check. */
    static SimulatedInvoice create(SimulatedLnd node, byte[] hash, byte[] preimage, boolean hold, long valueMsat,
            String memo, ByteString descriptionHash, long expiry, long cltvExpiry, String fallbackAddr,
            boolean isPrivate) {
        if (!fallbackAddr.isEmpty()) {
            throw LndErrors.notSimulated("fallback_addr (no on-chain wallet)");
        }
        byte[] memoBytes = memo.getBytes(StandardCharsets.UTF_8);
        if (memoBytes.length > MAX_MEMO_SIZE) {
            throw LndErrors.unknown("memo too large: " + memoBytes.length + " bytes (maxsize=" + MAX_MEMO_SIZE + ")");
        }
        if (!descriptionHash.isEmpty() && descriptionHash.size() != 32) {
            throw LndErrors.unknown("description hash is " + descriptionHash.size() + " bytes, must be 32");
        }
        if (valueMsat < 0) {
            throw LndErrors.unknown("payments of negative value are not allowed, value is " + valueMsat);
        }
        long maxSat = 100_000_000L * 100_000L;
        if (valueMsat / 1000 > maxSat) {
            throw LndErrors.unknown("invoice amount " + formatBtc(valueMsat / 1000) + " is too large, max is "
                    + formatBtc(maxSat));
        }
        long maxExpiry = 365L * 24 * 3600;
        if (expiry > maxExpiry) {
            throw LndErrors.unknown("expiry of " + expiry + " seconds greater than max expiry of " + maxExpiry
                    + " seconds");
        }
        long effectiveExpiry = expiry > 0 ? expiry : DEFAULT_INVOICE_EXPIRY; // lnd: not > 0 means the default
        if (cltvExpiry > MAX_CLTV_DELTA) {
            throw LndErrors.unknown("CLTV delta of " + cltvExpiry + " is too large, max accepted is: " + MAX_CLTV_DELTA);
        }
        if (cltvExpiry != 0 && cltvExpiry < MIN_CLTV_DELTA) {
            // sic: lnd v0.17 prints the two numbers the other way round
            throw LndErrors.unknown("CLTV delta of " + MIN_CLTV_DELTA + " must be greater than minimum of " + cltvExpiry);
        }
        long effectiveCltv = cltvExpiry != 0 ? cltvExpiry : DEFAULT_CLTV_EXPIRY;
        byte[] paymentAddr = SimulatedLnd.random32();

        SimulatedLightningNetwork net = node.net;
        net.lock.lock();
        try {
            long now = net.clock().epochSeconds();
            Invoice.Builder b = Invoice.builder(Network.REGTEST, new PaymentHash(hash), new PaymentSecret(paymentAddr),
                            node.nodeId())
                    .timestamp(now)
                    .expiry(effectiveExpiry)
                    .minFinalCltvExpiryDelta((int) effectiveCltv)
                    .features(Features.of(9, 14, 17));
            if (valueMsat > 0) {
                b.amountMsat(valueMsat);
            }
            if (!descriptionHash.isEmpty()) {
                b.descriptionHash(new DescriptionHash(descriptionHash.toByteArray()));
            } else {
                b.description(memo);
            }
            String payReq = Bolt11.encode(b.build(), node.nodeKey);
            if (node.invoice(hash) != null) {
                throw LndErrors.unknown(LndErrors.DUPLICATE_INVOICE);
            }
            SimulatedInvoice inv = new SimulatedInvoice(hash, preimage, hold, valueMsat, memo,
                    descriptionHash.isEmpty() ? null : descriptionHash.toByteArray(), now, effectiveExpiry,
                    effectiveCltv, payReq, paymentAddr, node.nextAddIndex(), isPrivate);
            node.addInvoice(inv);
            return inv;
        } finally {
            net.lock.unlock();
        }
    }

    private static String formatBtc(long sat) {
        return java.math.BigDecimal.valueOf(sat, 8).stripTrailingZeros().toPlainString() + " BTC";
    }

    @Override
    public void lookupInvoice(LightningApi.PaymentHash req, StreamObserver<LightningApi.Invoice> obs) {
        run(obs, () -> {
            byte[] hash;
            if (!req.getRHashStr().isEmpty()) {
                try {
                    hash = HexFormat.of().parseHex(req.getRHashStr());
                } catch (IllegalArgumentException e) {
                    throw LndErrors.unknown("encoding/hex: invalid byte in " + req.getRHashStr());
                }
            } else {
                hash = req.getRHash().toByteArray();
            }
            if (hash.length != 0 && hash.length != 32) {
                throw LndErrors.unknown("payment hash must be exactly 32 bytes, is instead " + hash.length);
            }
            node.net.lock.lock();
            try {
                SimulatedInvoice inv = hash.length == 0 ? null : node.invoice(hash);
                if (inv == null) {
                    throw LndErrors.notFound(LndErrors.INVOICE_NOT_FOUND);
                }
                return inv.toProto();
            } finally {
                node.net.lock.unlock();
            }
        });
    }

    @Override
    public void decodePayReq(LightningApi.PayReqString req, StreamObserver<LightningApi.PayReq> obs) {
        run(obs, () -> {
            Invoice inv = decode(req.getPayReq());
            LightningApi.PayReq.Builder b = LightningApi.PayReq.newBuilder()
                    .setDestination(inv.payee().hex())
                    .setPaymentHash(inv.paymentHash().hex())
                    .setNumSatoshis(inv.amountMsat().orElse(0) / 1000)
                    .setNumMsat(inv.amountMsat().orElse(0))
                    .setTimestamp(inv.timestamp())
                    .setExpiry(inv.expiry())
                    .setDescription(inv.description().orElse(""))
                    .setDescriptionHash(inv.descriptionHash().map(DescriptionHash::hex).orElse(""))
                    .setCltvExpiry(inv.minFinalCltvExpiryDelta())
                    .setPaymentAddr(ByteString.copyFrom(inv.paymentSecret().bytes()));
            for (int bit : inv.features().bits()) {
                b.putFeatures(bit, featureOf(bit));
            }
            return b.build();
        });
    }

    private static LightningApi.Feature featureOf(int bit) {
        String name = switch (bit & ~1) {
            case 8 -> "tlv-onion";
            case 14 -> "payment-addr";
            case 16 -> "multi-path-payments";
            case 30 -> "amp";
            default -> "unknown";
        };
        return LightningApi.Feature.newBuilder().setName(name).setIsRequired((bit & 1) == 0)
                .setIsKnown(!name.equals("unknown")).build();
    }

    /** zpay32.Decode against lnd's active network (regtest). */
    static Invoice decode(String payReq) {
        Invoice inv;
        try {
            inv = Bolt11.decode(payReq);
        } catch (Bolt11Exception e) {
            throw LndErrors.unknown(e.getMessage());
        }
        if (inv.network() != Network.REGTEST) {
            throw LndErrors.unknown("invoice not for current active network 'regtest'");
        }
        return inv;
    }

    /** Go's time.Time String() for a UTC instant, as in "invoice expired. Valid until ...". */
    static String goTime(long epochSeconds) {
        return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC)
                .format(java.time.Instant.ofEpochSecond(epochSeconds)) + " +0000 UTC";
    }

    @Override
    public void subscribeInvoices(LightningApi.InvoiceSubscription req, StreamObserver<LightningApi.Invoice> obs) {
        SimulatedLightningNetwork net = node.net;
        net.lock.lock();
        try {
            SimulatedLnd.AllInvoicesSubscriber[] holder = new SimulatedLnd.AllInvoicesSubscriber[1];
            SimulatedStream<LightningApi.Invoice> stream = new SimulatedStream<>(obs, () -> {
                net.lock.lock();
                try {
                    node.allInvoicesSubscribers.remove(holder[0]);
                } finally {
                    net.lock.unlock();
                }
            });
            SimulatedLnd.AllInvoicesSubscriber sub = new SimulatedLnd.AllInvoicesSubscriber(stream,
                    req.getAddIndex(), req.getSettleIndex());
            holder[0] = sub;
            // lnd's backlog: adds after add_index, then settles after settle_index (only when given).
            if (req.getAddIndex() > 0) {
                for (SimulatedInvoice inv : node.invoices.values()) {
                    if (inv.addIndex > req.getAddIndex()) {
                        stream.send(inv.toProto());
                        sub.addIndex = Math.max(sub.addIndex, inv.addIndex);
                    }
                }
            }
            if (req.getSettleIndex() > 0) {
                node.invoices.values().stream()
                        .filter(inv -> inv.state == SimulatedInvoice.State.SETTLED && inv.settleIndex > req.getSettleIndex())
                        .sorted(java.util.Comparator.comparingLong(inv -> inv.settleIndex))
                        .forEach(inv -> {
                            stream.send(inv.toProto());
                            sub.settleIndex = Math.max(sub.settleIndex, inv.settleIndex);
                        });
            }
            if (req.getAddIndex() == 0) {
                sub.addIndex = node.lastAddIndex;
            }
            if (req.getSettleIndex() == 0) {
                sub.settleIndex = node.lastSettleIndex;
            }
            node.allInvoicesSubscribers.add(sub);
        } finally {
            net.lock.unlock();
        }
    }
}
