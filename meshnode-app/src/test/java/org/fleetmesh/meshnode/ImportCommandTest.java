package org.fleetmesh.meshnode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class ImportCommandTest {

    @Test
    void linesAreSplitOnNewlinesWithTheirCarriageReturnsDropped() throws Exception {
        ImportCommand.Lines in = new ImportCommand.Lines(new StringReader("a\r\n\nbc\nlast"), 10);
        assertEquals("a", in.next());
        assertEquals("", in.next());
        assertEquals("bc", in.next());
        assertEquals("last", in.next());
        assertNull(in.next());
        assertNull(new ImportCommand.Lines(new StringReader(""), 10).next());
    }

    @Test
    void aLineOverTheBoundIsSkippedWithoutBeingKeptAndTheNextOneIsRead() throws Exception {
        ImportCommand.Lines in = new ImportCommand.Lines(new StringReader("x".repeat(10) + "\r\n" + "y".repeat(11) + "\nok\n"), 10);
        assertEquals("x".repeat(10), in.next(), "exactly the bound, with its \\r\\n");
        assertSame(ImportCommand.Lines.TOO_LONG, in.next());
        assertEquals("ok", in.next());
        assertNull(in.next());
    }

    @Test
    void aHundredMegabytesWithoutANewlineIsOneTooLongLineNotAHeapOfIt() throws Exception {
        long total = 100L << 20;
        Reader endless = new Reader() { // 100 MiB of 'a', no newline, never held anywhere
            long left = total;

            @Override
            public int read(char[] cbuf, int off, int len) {
                if (left == 0) {
                    return -1;
                }
                int n = (int) Math.min(len, left);
                java.util.Arrays.fill(cbuf, off, off + n, 'a');
                left -= n;
                return n;
            }

            @Override
            public void close() {
            }
        };
        ImportCommand.Lines in = new ImportCommand.Lines(endless, ImportCommand.MAX_LINE);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
                .getThreadMXBean();
        long before = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
        assertSame(ImportCommand.Lines.TOO_LONG, in.next());
        long allocated = mx.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertNull(in.next());
        assertTrue(allocated < 16L << 20, "allocated " + allocated + " bytes reading 100 MiB");
    }

    @Test
    void theReportListsAHundredDistinctReasonsAndCountsTheRest() {
        ImportCommand.Report r = new ImportCommand.Report();
        for (int i = 0; i < 250; i++) {
            r.rejected(i + 1, "invalid: reason " + i);
        }
        r.rejected(300, "invalid: reason 7"); // a listed one keeps counting
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        r.print(new PrintStream(out, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(ImportCommand.Report.MAX_REASONS, r.reasons.size());
        assertEquals(2L, r.reasons.get("invalid: reason 7"));
        assertTrue(text.contains("accepted 0, duplicate 0, rejected 251"), text);
        assertTrue(text.contains("  150 x (other reasons: only the first 100 distinct are listed)"), text);
        assertTrue(text.lines().count() < 130, text.lines().count() + " lines");
    }
}
