package org.fleetmesh.delivery.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Signature;
import org.junit.jupiter.api.Test;

/** Kind 11803 receipts: the tags in order, the checkpoint content, and what parse refuses. */
class ReceiptTest {
    private static final EventId PREV = TestReceiver.id(99);
    private static final byte[] ROOT = Merkle.leafHash(TestReceiver.id(1));

    private static Receipt sample(EventId prev, List<Receipt.Rejected> rejected) {
        return Receipt.sign(TestReceiver.RECEIVER_SECRET, 1_767_225_600L, TestReceiver.SENDER, prev, 7, 1, ROOT, 321,
                rejected, TestReceiver.ZERO_AUX);
    }

    /** The same event with other tags or content, re-signed by the receiver so only the form is wrong. */
    private static Event resigned(Receipt r, List<List<String>> tags, String content, int kind) {
        return Events.sign(TestReceiver.RECEIVER_SECRET, r.event().createdAt(), kind, tags, content);
    }

    private static ReceiptException refused(Event e) {
        return assertThrows(ReceiptException.class, () -> Receipt.parse(e));
    }

    @Test
    void signedReceiptHasTheTagsInOrderAndParsesBack() throws Exception {
        Receipt r = sample(PREV, List.of(new Receipt.Rejected(TestReceiver.id(2), "invalid: bad signature")));
        assertEquals(11803, r.event().kind());
        assertEquals(TestReceiver.RECEIVER, r.event().pubkey());
        assertEquals(List.of(List.of("p", TestReceiver.SENDER.hex()), List.of("prev", PREV.hex()), List.of("seq", "7"),
                List.of("bytes", "321"), List.of("events", "1"),
                List.of("rejected", TestReceiver.id(2).hex(), "invalid: bad signature")), r.event().tags());
        assertEquals(Checkpoint.origin(TestReceiver.RECEIVER, TestReceiver.SENDER) + "\n1\n"
                + java.util.Base64.getEncoder().encodeToString(ROOT) + "\n", r.event().content());
        assertNull(Events.verify(r.event()));
        assertTrue(r.signatureValid());
        Receipt back = Receipt.parse(r.event());
        assertEquals(r.checkpoint(), back.checkpoint());
        assertEquals(PREV, back.prev());
        assertEquals(7, back.seq());
        assertEquals(321, back.bytes());
        assertEquals(1, back.events());
        assertEquals(TestReceiver.SENDER, back.sender());
        assertEquals(r.rejected(), back.rejected());
        assertArrayEquals(ROOT, back.root());
    }

    @Test
    void firstReceiptHasNoPrevTag() throws Exception {
        Receipt r = sample(null, List.of());
        assertEquals("seq", r.event().tags().get(1).get(0));
        assertNull(Receipt.parse(r.event()).prev());
    }

    @Test
    void anotherKindIsNotAReceipt() {
        Receipt r = sample(PREV, List.of());
        assertEquals(CustodyBreach.Kind.SIGNATURE, refused(resigned(r, r.event().tags(), r.event().content(), 1)).breach());
    }

    @Test
    void tamperedReceiptFailsItsSignature() {
        Receipt r = sample(PREV, List.of());
        Event e = r.event();
        Event tampered = new Event(e.id(), e.pubkey(), e.createdAt(), e.kind(), e.tags(), e.content().replace("\n1\n", "\n2\n"), e.sig());
        assertFalse(new Receipt(tampered, r.checkpoint(), r.sender(), r.prev(), r.seq(), r.bytes(), r.events(), r.rejected())
                .signatureValid());
        byte[] sig = e.sig().unsafeBytes().clone();
        sig[5] ^= 1;
        Event badSig = new Event(e.id(), e.pubkey(), e.createdAt(), e.kind(), e.tags(), e.content(), new Signature(sig));
        assertFalse(new Receipt(badSig, r.checkpoint(), r.sender(), r.prev(), r.seq(), r.bytes(), r.events(), r.rejected())
                .signatureValid());
    }

    @Test
    void malformedFormsAreFormatBreaches() {
        Receipt r = sample(PREV, List.of());
        List<List<String>> t = r.event().tags();
        String c = r.event().content();
        List<List<List<String>>> badTags = new ArrayList<>();
        badTags.add(List.of(t.get(1), t.get(0), t.get(2), t.get(3), t.get(4))); // p not first
        badTags.add(List.of(t.get(0), t.get(1), t.get(3), t.get(2), t.get(4))); // seq after bytes
        badTags.add(List.of(t.get(0), t.get(1), t.get(2), t.get(3))); // no events
        badTags.add(List.of(t.get(0), t.get(1), t.get(2), t.get(3), t.get(4), List.of("x", "y"))); // unknown tag
        badTags.add(List.of(List.of("p", "ABC"), t.get(1), t.get(2), t.get(3), t.get(4))); // p not hex
        badTags.add(List.of(t.get(0), List.of("prev", "zz"), t.get(2), t.get(3), t.get(4))); // prev not hex
        badTags.add(List.of(t.get(0), t.get(1), List.of("seq", "07"), t.get(3), t.get(4))); // leading zero
        badTags.add(List.of(t.get(0), t.get(1), List.of("seq", "7", "extra"), t.get(3), t.get(4)));
        badTags.add(List.of(t.get(0), t.get(1), t.get(2), List.of("bytes", "-1"), t.get(4)));
        badTags.add(List.of(t.get(0), t.get(1), t.get(2), t.get(3), t.get(4), List.of("rejected", TestReceiver.id(3).hex())));
        badTags.add(List.of(t.get(0), t.get(1), t.get(2), t.get(3), t.get(4), List.of()));
        badTags.add(List.of(List.of("p", TestReceiver.RECEIVER.hex()), t.get(1), t.get(2), t.get(3), t.get(4))); // wrong origin
        for (List<List<String>> tags : badTags) {
            assertEquals(CustodyBreach.Kind.FORMAT, refused(resigned(r, tags, c, 11803)).breach(), tags.toString());
        }
        for (String content : new String[] { "not a checkpoint", c.replace("fleetmesh.custody/", "other/"), c + "ext\n" }) {
            assertEquals(CustodyBreach.Kind.FORMAT, refused(resigned(r, t, content, 11803)).breach(), content);
        }
    }

    @Test
    void eventsOtherThanTheTreeSizeIsACountsBreach() {
        Receipt r = sample(PREV, List.of());
        List<List<String>> t = new ArrayList<>(r.event().tags());
        t.set(4, List.of("events", "2"));
        ReceiptException e = refused(resigned(r, t, r.event().content(), 11803));
        assertEquals(CustodyBreach.Kind.COUNTS, e.breach());
        assertTrue(e.getMessage().contains("tree size"), e.getMessage());
    }

    @Test
    void fromJsonReadsTheStoredForm() throws Exception {
        Receipt r = sample(PREV, List.of());
        Receipt back = Receipt.fromJson(r.event().json());
        assertEquals(r.event(), back.event());
        assertTrue(back.signatureValid());
        assertThrows(IllegalArgumentException.class, () -> Receipt.fromJson("{\"id\":1}"));
        assertThrows(IllegalArgumentException.class, () -> Receipt.fromJson("[]"));
    }
}
