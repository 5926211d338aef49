package org.fleetmesh.settlement.lightning.sim;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.fleetmesh.settlement.lightning.macaroon.Caveat;
import org.fleetmesh.settlement.lightning.macaroon.Macaroon;

/**
 * Macaroons as LND bakes and checks them, simulated with fleetmesh's libmacaroons-compatible codec.
 *
 * <p>Baking (lnd.go genDefaultMacaroons, macaroon-bakery oven): location {@code lnd}, identifier =
 * version byte {@code 3} followed by the protobuf {@code MacaroonId {bytes nonce = 1; bytes storageId = 2;
 * repeated Op ops = 3}}, {@code Op {string entity = 1; repeated string actions = 2}} (macaroon-bakery's
 * internal/macaroonpb/id.proto), ops grouped by entity, entities and actions sorted; storage id {@code "0"}
 * (macaroons.DefaultRootKeyID); a 16-byte random nonce; no caveats. Permission sets are lnd's
 * readPermissions, readPermissions+writePermissions (admin) and invoicePermissions (rpcserver.go).
 *
 * <p>Checking (macaroons/service.go ValidateMacaroon + CheckMacAuth): exactly one {@code macaroon}
 * metadata value, hex-decoded, unmarshalled, first-party caveats checked, then the signature, then the
 * required {@code entity:action} (or {@code uri:<full method>}) must be among the identifier's ops.
 */
public final class SimulatedMacaroons {
    public record Op(String entity, String action) {
    }

    static final byte[] DEFAULT_ROOT_KEY_ID = "0".getBytes(StandardCharsets.US_ASCII);
    static final String LOCATION = "lnd";

    public static final List<Op> READ_PERMISSIONS = List.of(
            new Op("onchain", "read"), new Op("offchain", "read"), new Op("address", "read"),
            new Op("message", "read"), new Op("peers", "read"), new Op("info", "read"),
            new Op("invoices", "read"), new Op("signer", "read"), new Op("macaroon", "read"));
    public static final List<Op> WRITE_PERMISSIONS = List.of(
            new Op("onchain", "write"), new Op("offchain", "write"), new Op("address", "write"),
            new Op("message", "write"), new Op("peers", "write"), new Op("info", "write"),
            new Op("invoices", "write"), new Op("signer", "generate"), new Op("macaroon", "generate"),
            new Op("macaroon", "write"));
    public static final List<Op> INVOICE_PERMISSIONS = List.of(
            new Op("invoices", "read"), new Op("invoices", "write"), new Op("address", "read"),
            new Op("address", "write"), new Op("onchain", "read"));
    public static final List<Op> ADMIN_PERMISSIONS;

    static {
        List<Op> admin = new ArrayList<>(READ_PERMISSIONS);
        admin.addAll(WRITE_PERMISSIONS);
        ADMIN_PERMISSIONS = List.copyOf(admin);
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    private SimulatedMacaroons() {
    }

    /** Bakes a macaroon for {@code ops} with {@code rootKey}, as LND's bakery does. */
    public static Macaroon bake(byte[] rootKey, List<Op> ops) {
        byte[] nonce = new byte[16];
        RANDOM.nextBytes(nonce);
        return Macaroon.mint(rootKey, LOCATION, identifier(nonce, DEFAULT_ROOT_KEY_ID, ops));
    }

    /** Version byte 3 and the protobuf MacaroonId. */
    static byte[] identifier(byte[] nonce, byte[] storageId, List<Op> ops) {
        TreeMap<String, TreeSet<String>> grouped = new TreeMap<>();
        for (Op op : ops) {
            grouped.computeIfAbsent(op.entity(), e -> new TreeSet<>()).add(op.action());
        }
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            bytes.write(3);
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            out.writeByteArray(1, nonce);
            out.writeByteArray(2, storageId);
            for (Map.Entry<String, TreeSet<String>> e : grouped.entrySet()) {
                ByteArrayOutputStream opBytes = new ByteArrayOutputStream();
                CodedOutputStream op = CodedOutputStream.newInstance(opBytes);
                op.writeString(1, e.getKey());
                for (String action : e.getValue()) {
                    op.writeString(2, action);
                }
                op.flush();
                out.writeByteArray(3, opBytes.toByteArray());
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The decoded identifier: storage id and the permitted ops. */
    record MacaroonId(byte[] storageId, Set<Op> ops) {
    }

    static MacaroonId parseIdentifier(byte[] id) {
        if (id.length == 0 || id[0] != 3) {
            throw new IllegalArgumentException("unsupported macaroon identifier version");
        }
        try {
            CodedInputStream in = CodedInputStream.newInstance(id, 1, id.length - 1);
            byte[] storageId = new byte[0];
            Set<Op> ops = new java.util.HashSet<>();
            int tag;
            while ((tag = in.readTag()) != 0) {
                switch (tag >>> 3) {
                    case 2 -> storageId = in.readByteArray();
                    case 3 -> {
                        CodedInputStream op = CodedInputStream.newInstance(in.readByteArray());
                        String entity = "";
                        List<String> actions = new ArrayList<>();
                        int t;
                        while ((t = op.readTag()) != 0) {
                            switch (t >>> 3) {
                                case 1 -> entity = op.readStringRequireUtf8();
                                case 2 -> actions.add(op.readStringRequireUtf8());
                                default -> op.skipField(t);
                            }
                        }
                        for (String a : actions) {
                            ops.add(new Op(entity, a));
                        }
                    }
                    default -> in.skipField(tag);
                }
            }
            return new MacaroonId(storageId, ops);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot decode macaroon identifier: " + e.getMessage());
        }
    }

    /**
     * Checks a macaroon the way LND's interceptor does; returns null if allowed, else the error text
     * LND would return.
     */
    static String check(List<String> hexValues, byte[] rootKey, Op required, String fullMethod,
            InetAddress peer, Instant now) {
        if (hexValues == null || hexValues.size() != 1) {
            return "expected 1 macaroon, got " + (hexValues == null ? 0 : hexValues.size());
        }
        String hex = hexValues.get(0);
        String hexError = goHexError(hex);
        if (hexError != null) {
            return hexError;
        }
        byte[] raw = HexFormat.of().parseHex(hex);
        Macaroon mac;
        MacaroonId id;
        try {
            mac = Macaroon.deserialize(raw);
            id = parseIdentifier(mac.identifier());
        } catch (RuntimeException e) {
            return "verification failed: cannot unmarshal macaroon: " + e.getMessage();
        }
        if (!Arrays.equals(id.storageId(), DEFAULT_ROOT_KEY_ID)) {
            return "verification failed: macaroon not found in storage";
        }
        for (Caveat c : mac.caveats()) {
            if (!c.isFirstParty()) {
                return "verification failed: cannot find discharge macaroon for caveat";
            }
            String err = checkCaveat(c.predicate(), peer, now);
            if (err != null) {
                return "verification failed: caveat \"" + c.predicate() + "\" not satisfied: " + err;
            }
        }
        if (!mac.verifySignature(rootKey)) {
            return LndErrors.SIGNATURE_MISMATCH;
        }
        if (id.ops().contains(required) || id.ops().contains(new Op("uri", fullMethod))) {
            return null;
        }
        return LndErrors.PERMISSION_DENIED;
    }

    /** Go's hex.DecodeString errors. */
    static String goHexError(String hex) {
        for (int i = 0; i < hex.length(); i++) {
            char c = hex.charAt(i);
            if (Character.digit(c, 16) < 0) {
                return String.format("encoding/hex: invalid byte: U+%04X '%c'", (int) c, c);
            }
        }
        return hex.length() % 2 == 0 ? null : "encoding/hex: odd length hex string";
    }

    private static String checkCaveat(String predicate, InetAddress peer, Instant now) {
        int sp = predicate.indexOf(' ');
        String cond = sp < 0 ? predicate : predicate.substring(0, sp);
        String arg = sp < 0 ? "" : predicate.substring(sp + 1);
        switch (cond) {
            case "time-before" -> {
                try {
                    return now.isBefore(Instant.parse(arg)) ? null : "macaroon has expired";
                } catch (DateTimeParseException e) {
                    return "cannot parse \"" + arg + "\" as RFC 3339";
                }
            }
            case "ipaddr" -> {
                try {
                    InetAddress want = InetAddress.getByName(arg);
                    return want.equals(peer) ? null : "macaroon locked to different IP address";
                } catch (java.net.UnknownHostException e) {
                    return "unable to parse IP address " + arg;
                }
            }
            case "lnd-custom" -> {
                String name = arg.contains(" ") ? arg.substring(0, arg.indexOf(' ')) : arg;
                return "cannot accept macaroon with custom caveat '" + name
                        + "', no middleware registered to handle it";
            }
            default -> {
                return "caveat not recognized";
            }
        }
    }

    static ByteString bytes(byte[] b) {
        return ByteString.copyFrom(b);
    }
}
