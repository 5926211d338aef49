package org.fleetmesh.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.Random;

import org.junit.jupiter.api.Test;

class FrameMeterTest {
    /** A client frame (masked): FIN, opcode, the payload's length in the shortest form, a mask key, the payload. */
    static byte[] frame(boolean fin, int opcode, int length) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write((fin ? 0x80 : 0) | opcode);
        if (length < 126) {
            out.write(0x80 | length);
        } else if (length < 65536) {
            out.write(0x80 | 126);
            out.write(length >> 8);
            out.write(length & 0xff);
        } else {
            out.write(0x80 | 127);
            for (int k = 7; k >= 0; k--) {
                out.write((int) (((long) length >> (8 * k)) & 0xff));
            }
        }
        out.writeBytes(new byte[] {1, 2, 3, 4});
        out.writeBytes(new byte[length]);
        return out.toByteArray();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** Feeds {@code bytes} in chunks of random sizes; false as soon as the meter refuses. */
    static boolean feed(FrameMeter m, byte[] bytes, long seed) {
        Random r = new Random(seed);
        int i = 0;
        while (i < bytes.length) {
            int n = Math.min(bytes.length - i, 1 + r.nextInt(r.nextBoolean() ? 7 : 70_000));
            int from = i;
            if (!m.feed(k -> bytes[from + k], n)) {
                return false;
            }
            i += n;
        }
        return true;
    }

    @Test
    void wholeMessagesLeaveNothingHeldWhateverTheChunking() {
        byte[] stream = concat(frame(true, 1, 10), frame(false, 1, 300), frame(true, 9, 4), frame(false, 0, 70_000),
                frame(true, 0, 0), frame(true, 2, 125), frame(true, 1, 126), frame(true, 1, 65_536));
        for (long seed = 0; seed < 50; seed++) {
            ReceiveBudget b = new ReceiveBudget(1 << 20);
            ReceiveBudget.Account a = b.open();
            assertTrue(feed(new FrameMeter(a), stream, seed));
            assertEquals(0, b.held(), "seed " + seed);
            assertEquals(0, b.holders());
        }
    }

    @Test
    void anUnfinishedMessageIsHeldUntilItsLastFrameAndControlFramesInBetweenDoNotCount() {
        ReceiveBudget b = new ReceiveBudget(1 << 20);
        ReceiveBudget.Account a = b.open();
        FrameMeter m = new FrameMeter(a);
        byte[] first = frame(false, 1, 1000);
        assertTrue(m.feed(k -> first[k], first.length));
        byte[] ping = frame(true, 9, 5);
        assertTrue(m.feed(k -> ping[k], ping.length));
        assertEquals(1000, a.holding());
        assertEquals(2048, b.held(), "charged what a doubling buffer allocates for 1,000 bytes and 64 of overhead");
        byte[] half = frame(true, 0, 4000);
        assertTrue(m.feed(k -> half[k], 8 + 1500)); // the header (2 + 2 + 4) and 1,500 bytes of the payload
        assertEquals(2500, a.holding());
        assertTrue(m.feed(k -> half[8 + 1500 + k], half.length - 8 - 1500));
        assertEquals(0, b.held(), "its last frame is whole");
    }

    @Test
    void pastAFullBudgetTheConnectionOverItsShareIsRefusedAndSmallOnesAreNot() {
        ReceiveBudget b = new ReceiveBudget(1 << 20); // 1 MiB
        int big = 600_000;
        FrameMeter one = new FrameMeter(b.open());
        FrameMeter two = new FrameMeter(b.open());
        FrameMeter three = new FrameMeter(b.open());
        byte[] stall = frame(true, 1, big);
        int sent = 14 + 500_000;
        assertTrue(one.feed(k -> stall[k], sent));
        assertTrue(two.feed(k -> stall[k], sent));
        assertEquals(1 << 20, b.held(), "each charged the 512 KiB a buffer allocates for it");
        assertFalse(three.feed(k -> stall[k], sent), "the budget is full and the third is past 1 MiB / 3");
        // a small message from a fourth goes through however full the budget
        FrameMeter small = new FrameMeter(b.open());
        byte[] note = frame(true, 1, 4000);
        assertTrue(small.feed(k -> note[k], note.length));
    }

    @Test
    void aMessageOverTheMostIsRefusedAsItsHeaderAnnouncesItOneFrameOrFragmented() {
        ReceiveBudget b = new ReceiveBudget(1L << 30);
        ReceiveBudget.Account first = b.open();
        FrameMeter whole = new FrameMeter(first, 10_000);
        byte[] ok = concat(frame(true, 1, 10_000), frame(false, 1, 6_000), frame(true, 9, 4), frame(true, 0, 4_000));
        assertTrue(feed(whole, ok, 1), "10,000 bytes in one frame, and in two fragments with a ping between");
        byte[] one = frame(true, 1, 10_001);
        assertFalse(whole.feed(k -> one[k], 14), "refused at its header, before any payload");
        assertTrue(whole.tooLarge());

        ReceiveBudget.Account second = b.open();
        FrameMeter parts = new FrameMeter(second, 10_000);
        byte[] fragments = concat(frame(false, 2, 4_000), frame(false, 0, 4_000), frame(true, 0, 2_001));
        assertFalse(feed(parts, fragments, 2), "the third fragment takes the message past 10,000");
        assertTrue(parts.tooLarge());
        first.closed();
        second.closed();
        assertEquals(0, b.held(), "both refused connections give back what they held as they close");

        ReceiveBudget small = new ReceiveBudget(1 << 20);
        FrameMeter full = new FrameMeter(small.open(), 0);
        FrameMeter other = new FrameMeter(small.open(), 0);
        byte[] stall = frame(true, 1, 900_000);
        assertTrue(full.feed(k -> stall[k], 14 + 800_000));
        assertFalse(other.feed(k -> stall[k], 14 + 800_000), "the budget refuses: not a message too large");
        assertFalse(other.tooLarge());
    }
}
