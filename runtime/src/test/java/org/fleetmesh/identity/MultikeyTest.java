package org.fleetmesh.identity;

import static org.fleetmesh.identity.DocumentAssertions.errorOf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;

import org.fleetmesh.identity.multiformats.Multibase;
import org.fleetmesh.identity.multiformats.Multicodec;
import org.junit.jupiter.api.Test;

class MultikeyTest {
    @Test
    void writesEachKeyTypeWithItsWellKnownPrefix() {
        assertEquals(KeyType.ED25519, Multikey.decode(TestKeys.ED25519).type());
        assertEquals("z6Mk", TestKeys.ED25519.substring(0, 4));
        assertEquals(KeyType.X25519, Multikey.decode(TestKeys.X25519).type());
        assertEquals("z6LS", TestKeys.X25519.substring(0, 4));
        assertEquals(KeyType.SECP256K1, Multikey.decode(TestKeys.SECP256K1).type());
        assertEquals("zQ3s", TestKeys.SECP256K1.substring(0, 4));
    }

    @Test
    void encodesWhatItDecodes() {
        for (String key : new String[] { TestKeys.ED25519, TestKeys.X25519, TestKeys.SECP256K1 }) {
            assertEquals(key, Multikey.decode(key).encode());
        }
    }

    @Test
    void carriesTheRawKeyAfterTheMulticodecPrefix() {
        Multikey key = Multikey.decode(TestKeys.SECP256K1);
        assertEquals(33, key.keyBytes().length);
        assertEquals(key, Multikey.secp256k1(key.keyBytes()));
    }

    @Test
    void derivesTheX25519KeyTheDidKeySpecExampleShows() {
        assertEquals(TestKeys.ED25519_AS_X25519, Multikey.decode(TestKeys.ED25519).x25519FromEd25519().encode());
    }

    @Test
    void readsTheBase16FormDidNostrWrites() {
        Multikey key = Multikey.decode("fe70102124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2");
        assertEquals(Multikey.nostr(TestKeys.NOSTR), key);
    }

    @Test
    void givesANostrKeyEvenParityAndBackItsXOnlyForm() {
        Multikey key = Multikey.nostr(TestKeys.NOSTR);
        assertEquals(2, key.keyBytes()[0]);
        assertEquals(TestKeys.NOSTR, key.xOnly());
    }

    @Test
    void refusesAKeyOfTheWrongLength() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_LENGTH, errorOf(() -> Multikey.decode(TestKeys.ed25519TooShort())));
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_LENGTH,
                errorOf(() -> Multikey.x25519(new byte[33])));
    }

    @Test
    void refusesAnEd25519KeyThatDoesNotDecodeToAPoint() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY, errorOf(() -> Multikey.decode(TestKeys.ed25519OffCurve())));
    }

    @Test
    void refusesTheEd25519NeutralPoint() {
        byte[] neutral = new byte[32];
        neutral[0] = 1; // y = 1, x = 0: small order
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY, errorOf(() -> Multikey.ed25519(neutral)));
    }

    @Test
    void refusesASecp256k1XThatIsNotOnTheCurve() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY, errorOf(() -> Multikey.decode(TestKeys.secp256k1OffCurve())));
    }

    @Test
    void refusesASecp256k1XAboveTheFieldPrime() {
        byte[] key = new byte[33];
        key[0] = 2;
        System.arraycopy(TestKeys.hex("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc30"), 0, key, 1, 32);
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY, errorOf(() -> Multikey.secp256k1(key)));
    }

    @Test
    void refusesASecp256k1KeyThatIsNotCompressed() {
        byte[] key = Multikey.decode(TestKeys.SECP256K1).keyBytes();
        key[0] = 4;
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY, errorOf(() -> Multikey.secp256k1(key)));
    }

    @Test
    void refusesAMulticodecThatIsNotAKeyType() {
        String json = TestKeys.multikey(Multicodec.JSON, new byte[32]);
        DidResolutionException e = assertThrows(DidResolutionException.class, () -> Multikey.decode(json));
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_TYPE, e.error());
        assertEquals("invalidPublicKeyType: multicodec 0x200 (json) is not ed25519-pub, x25519-pub, secp256k1-pub,"
                + " p256-pub or p384-pub", e.getMessage());
    }

    @Test
    void refusesCharactersOutsideBase58() {
        String bad = TestKeys.ED25519.substring(0, 10) + "0" + TestKeys.ED25519.substring(11);
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> Multikey.decode(bad)));
    }

    @Test
    void refusesAnUnsupportedMultibase() {
        byte[] bytes = Multicodec.ED25519_PUB.wrap(Multikey.decode(TestKeys.ED25519).keyBytes());
        String base64 = "m" + java.util.Base64.getEncoder().withoutPadding().encodeToString(bytes);
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> Multikey.decode(base64)));
    }

    @Test
    void keepsItsBytesToItself() {
        byte[] raw = Multikey.decode(TestKeys.X25519).keyBytes();
        Multikey key = Multikey.x25519(raw);
        Arrays.fill(raw, (byte) 0);
        assertArrayEquals(Multibase.BASE58BTC.decode(TestKeys.X25519), Multicodec.X25519_PUB.wrap(key.keyBytes()));
    }
}
