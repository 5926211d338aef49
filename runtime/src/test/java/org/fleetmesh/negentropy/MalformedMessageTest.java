package org.fleetmesh.negentropy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** Whatever a peer sends, reconcile answers or throws NegentropyException; it never hangs. */
class MalformedMessageTest {
    private static final String ID = "ee".repeat(32);

    private static Negentropy responder() {
        return new Negentropy(SortedVector.builder().insert(12345, Id.ofHex(ID)).seal());
    }

    private static Negentropy initiator() {
        Negentropy ne = responder();
        ne.initiate();
        return ne;
    }

    private static byte[] hex(String h) {
        return HexFormat.of().parseHex(h);
    }

    private static String reject(Negentropy ne, String message) {
        return assertThrows(NegentropyException.class, () -> ne.reconcile(hex(message))).getMessage();
    }

    @Test
    void emptyMessageIsTruncated() {
        assertEquals("parse ends prematurely", reject(responder(), ""));
    }

    @Test
    void truncatedIdListIsRejected() {
        assertEquals("parse ends prematurely", reject(responder(), "6100000201" + "ee".repeat(31)));
    }

    @Test
    void truncatedFingerprintIsRejected() {
        assertEquals("parse ends prematurely", reject(responder(), "61000001" + "00".repeat(15)));
    }

    @Test
    void truncatedBoundIsRejected() {
        assertEquals("premature end of varint", reject(responder(), "6100"));
        assertEquals("parse ends prematurely", reject(responder(), "610004aabb"));
    }

    @Test
    void tooLongVarintIsRejected() {
        assertEquals("varint too long: more than 10 bytes", reject(responder(), "61" + "80".repeat(11) + "01"));
    }

    @Test
    void idPrefixLongerThanAnIdIsRejected() {
        assertEquals("bound id prefix too long: 33 bytes", reject(responder(), "610021" + "00".repeat(33) + "00"));
    }

    @Test
    void unknownModeIsRejected() {
        assertEquals("unexpected mode: 3", reject(responder(), "61000003"));
    }

    @Test
    void outOfOrderBoundsAreRejected() {
        // (5, "ff") then (5 + 0, "00"): the second range would end below where the first one did
        String message = "61" + "06" + "01ff" + "00" + "01" + "0100" + "00";
        assertEquals("out-of-order bound: Bound(5, 00) after Bound(5, ff)", reject(responder(), message));
    }

    @Test
    void unknownVersionIsAnsweredWithOurVersionOnly() {
        assertArrayEquals(hex("61"), responder().reconcile(hex("62aabbccddeeff")));
    }

    @Test
    void responderFallsBackAfterVersionAnswer() {
        Negentropy ne = responder();
        ne.reconcile(hex("62aabbccddeeff"));
        assertArrayEquals(hex("6100000201" + ID), ne.reconcile(hex("6100000200")));
    }

    @Test
    void initiatorRejectsAnUnknownVersion() {
        assertEquals("unsupported negentropy protocol version requested: 2", reject(initiator(), "62"));
    }

    @Test
    void byteOutsideTheVersionRangeIsRejected() {
        assertEquals("invalid negentropy protocol version byte: 0x5f", reject(responder(), "5f"));
        assertEquals("invalid negentropy protocol version byte: 0x70", reject(initiator(), "70"));
    }

    @Test
    void frameSizeLimitBelowTheMinimumIsRejected() {
        SortedVector empty = SortedVector.builder().seal();
        assertThrows(NegentropyException.class, () -> new Negentropy(empty, 4095));
        assertThrows(NegentropyException.class, () -> new Negentropy(empty, 100));
    }

    @Test
    void replyStaysWithinTheFrameSizeLimitWhateverIsAsked() {
        SortedVector.Builder items = SortedVector.builder();
        Random random = new Random(7);
        for (int i = 0; i < 5000; i++) {
            byte[] id = new byte[Id.SIZE];
            random.nextBytes(id);
            items.insert(i, Id.of(id));
        }
        // an empty id list over everything asks for all 5000 ids, 160 kB, in one 4096-byte frame
        byte[] reply = new Negentropy(items.seal(), 4096).reconcile(hex("6100000200"));
        assertEquals(true, reply.length <= 4096, reply.length + " bytes");
    }

    @Test
    void duplicateItemsAreRejectedAtSeal() {
        SortedVector.Builder items = SortedVector.builder().insert(1, Id.ofHex(ID)).insert(1, Id.ofHex(ID));
        assertEquals("duplicate item inserted: Item[timestamp=1, id=" + ID + "]",
                assertThrows(NegentropyException.class, items::seal).getMessage());
    }

    @Test
    void initiatingTwiceIsRejected() {
        Negentropy ne = initiator();
        assertThrows(NegentropyException.class, ne::initiate);
    }

    @Test
    void randomGarbageNeverHangsOrCrashes() {
        Random random = new Random(42);
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            for (int i = 0; i < 20_000; i++) {
                byte[] message = new byte[1 + random.nextInt(80)];
                random.nextBytes(message);
                message[0] = (byte) (i % 3 == 0 ? message[0] : 0x61);
                for (Negentropy ne : new Negentropy[] {responder(), initiator()}) {
                    try {
                        ne.reconcile(message);
                    } catch (NegentropyException expected) {
                        // a clear refusal is the only acceptable failure
                    }
                }
            }
        });
    }
}
