package org.fleetmesh.identity;

import java.util.Arrays;
import java.util.HexFormat;

import org.fleetmesh.identity.multiformats.Multibase;
import org.fleetmesh.identity.multiformats.Multicodec;
import org.fleetmesh.nostr.PubKey;

/** Keys the tests share, and builders for malformed Multikey strings. */
final class TestKeys {
    /** did:key spec example key. */
    static final String ED25519 = "z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
    /** Its X25519 counterpart, as the did:key spec example gives it. */
    static final String ED25519_AS_X25519 = "z6LSj72tK8brWgZja8NLRwPigth2T9QRiG1uH9oKZuKjdh9p";
    /** did:key x25519 vector key. */
    static final String X25519 = "z6LSeu9HkTHSfLLeUs2nnzUSNedgDUevfNQgQjQC23ZCit6F";
    /** did:key secp256k1 vector key. */
    static final String SECP256K1 = "zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme";
    /** did:nostr draft example key. */
    static final PubKey NOSTR = PubKey.ofHex("124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2");

    private TestKeys() {
    }

    /** base58btc of {@code codec ‖ raw}, whatever the raw bytes are. */
    static String multikey(Multicodec codec, byte[] raw) {
        return Multibase.BASE58BTC.encode(codec.wrap(raw));
    }

    /** An ed25519-pub value with y = 2, for which no x exists on edwards25519. */
    static String ed25519OffCurve() {
        byte[] y = new byte[32];
        y[0] = 2;
        return multikey(Multicodec.ED25519_PUB, y);
    }

    /** A secp256k1-pub value with x = 0: x^3 + 7 = 7 is not a square mod p. */
    static String secp256k1OffCurve() {
        byte[] key = new byte[33];
        key[0] = 2;
        return multikey(Multicodec.SECP256K1_PUB, key);
    }

    /** An ed25519-pub value one byte short. */
    static String ed25519TooShort() {
        return multikey(Multicodec.ED25519_PUB, Arrays.copyOf(Multikey.decode(ED25519).keyBytes(), 31));
    }

    static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }
}
