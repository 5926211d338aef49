package org.fleetmesh.negentropy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Two sides exchange messages until the initiator is done and knows the symmetric difference. */
class ReconciliationTest {
    private static final int MAX_ROUNDS = 10_000;

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    @Test
    void firstMessageOfTheWorkedExample() {
        SortedVector items = SortedVector.builder()
                .insert(1000, Id.ofHex("aa".repeat(32)))
                .insert(1001, Id.ofHex("bb".repeat(32)))
                .insert(1002, Id.ofHex("cc".repeat(32)))
                .seal();
        // transcribed from the reference JS implementation: version, infinity bound, id list of 3
        assertEquals("61" + "00" + "00" + "02" + "03" + "aa".repeat(32) + "bb".repeat(32) + "cc".repeat(32),
                hex(new Negentropy(items).initiate()));
    }

    @Test
    void replyOfTheWorkedExample() {
        SortedVector theirs = SortedVector.builder()
                .insert(1001, Id.ofHex("bb".repeat(32)))
                .insert(1003, Id.ofHex("dd".repeat(32)))
                .seal();
        byte[] query = HexFormat.of().parseHex("6100000203" + "aa".repeat(32) + "bb".repeat(32) + "cc".repeat(32));
        // transcribed from the reference JS implementation
        assertEquals("6100000202" + "bb".repeat(32) + "dd".repeat(32), hex(new Negentropy(theirs).reconcile(query)));
    }

    @Test
    void initiatorLearnsHaveAndNeedOfTheWorkedExample() {
        Negentropy client = new Negentropy(SortedVector.builder()
                .insert(1000, Id.ofHex("aa".repeat(32)))
                .insert(1001, Id.ofHex("bb".repeat(32)))
                .insert(1002, Id.ofHex("cc".repeat(32)))
                .seal());
        Negentropy server = new Negentropy(SortedVector.builder()
                .insert(1001, Id.ofHex("bb".repeat(32)))
                .insert(1003, Id.ofHex("dd".repeat(32)))
                .seal());
        assertNull(client.reconcile(server.reconcile(client.initiate())));
        assertEquals(List.of(Id.ofHex("aa".repeat(32)), Id.ofHex("cc".repeat(32))), client.haveIds());
        assertEquals(List.of(Id.ofHex("dd".repeat(32))), client.needIds());
    }

    @ParameterizedTest(name = "{0} items, {1}% shared, frame limit {2}")
    @CsvSource({
        "0, 0, 0", "0, 100, 4096",
        "1, 0, 0", "1, 100, 0", "1, 0, 4096",
        "10, 0, 0", "10, 50, 0", "10, 100, 0", "10, 50, 4096",
        "1000, 0, 0", "1000, 50, 0", "1000, 90, 0", "1000, 100, 0",
        "1000, 0, 4096", "1000, 50, 4096", "1000, 99, 60000",
        "20000, 0, 0", "20000, 50, 0", "20000, 99, 0", "20000, 100, 0",
        "20000, 0, 4096", "20000, 50, 4096", "20000, 95, 4096",
        "20000, 0, 60000", "20000, 50, 60000", "20000, 100, 60000",
        "100000, 0, 0", "100000, 50, 4096", "100000, 90, 60000", "100000, 99, 0", "100000, 100, 4096",
    })
    void endsWithExactlyTheSymmetricDifference(int count, int sharedPercent, long frameSizeLimit) {
        Random random = new Random(count * 1000L + sharedPercent * 10L + frameSizeLimit);
        SortedVector.Builder ours = SortedVector.builder();
        SortedVector.Builder theirs = SortedVector.builder();
        Set<Id> onlyOurs = new HashSet<>();
        Set<Id> onlyTheirs = new HashSet<>();

        for (int i = 0; i < count; i++) {
            byte[] raw = new byte[Id.SIZE];
            random.nextBytes(raw);
            Id id = Id.of(raw);
            // few distinct timestamps, so many bounds need an id prefix
            Item item = new Item(1_677_970_534L + random.nextInt(Math.max(1, count / 4)), id);
            if (random.nextInt(100) < sharedPercent) {
                ours.insert(item);
                theirs.insert(item);
            } else if (random.nextBoolean()) {
                ours.insert(item);
                onlyOurs.add(id);
            } else {
                theirs.insert(item);
                onlyTheirs.add(id);
            }
        }

        Negentropy client = new Negentropy(ours.seal(), frameSizeLimit);
        Negentropy server = new Negentropy(theirs.seal(), frameSizeLimit);

        byte[] message = client.initiate();
        int rounds = 0;
        while (message != null) {
            if (++rounds > MAX_ROUNDS) {
                fail("no end after " + MAX_ROUNDS + " rounds");
            }
            assertWithinLimit(message, frameSizeLimit);
            byte[] reply = server.reconcile(message);
            assertWithinLimit(reply, frameSizeLimit);
            message = client.reconcile(reply);
        }

        assertEquals(onlyOurs, new HashSet<>(client.haveIds()));
        assertEquals(onlyTheirs, new HashSet<>(client.needIds()));
        if (frameSizeLimit == 0) {
            // with a frame limit a range may be listed twice (as in the reference); without, never
            assertEquals(onlyOurs.size(), client.haveIds().size());
            assertEquals(onlyTheirs.size(), client.needIds().size());
        }
    }

    private static void assertWithinLimit(byte[] message, long frameSizeLimit) {
        assertTrue(frameSizeLimit == 0 || message.length <= frameSizeLimit,
                () -> message.length + " bytes > " + frameSizeLimit);
    }
}
