package org.fleetmesh.delivery.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.fleetmesh.delivery.log.TestReceiver.Answer;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.junit.jupiter.api.Test;

/** Chain exports: an honest chain verifies; each kind of damage is reported at its first bad line. */
class ChainFileTest {

    private static List<String> honestChain() {
        TestReceiver rx = new TestReceiver();
        rx.take(TestReceiver.frame(1, 0, 1, 2));
        rx.take(TestReceiver.frame(2, 2, 3), Set.of(TestReceiver.id(3)));
        rx.take(TestReceiver.frame(3, 4, 5, 6, 7, 8));
        rx.take(TestReceiver.frame(4, 9));
        List<String> lines = new ArrayList<>();
        for (Answer a : rx.chain) {
            lines.add(ChainFile.line(a.receipt().event().json(), a.consistency()));
        }
        return lines;
    }

    private static ChainFile.Result verify(List<String> lines) throws IOException {
        return ChainFile.verify(new BufferedReader(new StringReader(String.join("\n", lines) + "\n")));
    }

    private static void assertBadAt(long line, String contains, List<String> lines) throws IOException {
        ChainFile.Result r = verify(lines);
        assertFalse(r.ok(), "verified: " + r.why());
        assertEquals(line, r.badLine(), r.why());
        assertTrue(r.why().contains(contains), r.why());
    }

    @Test
    void anHonestChainVerifies() throws IOException {
        ChainFile.Result r = verify(honestChain());
        assertTrue(r.ok(), r.why());
        assertEquals(4, r.lines());
        assertTrue(verify(List.of()).ok(), "an empty chain");
    }

    @Test
    void lineFormIsReceiptThenConsistency() {
        String line = honestChain().get(1);
        assertTrue(line.startsWith("{\"receipt\":{\"id\":\""), line);
        assertTrue(line.matches(".*,\"consistency\":\\[(\"[0-9a-f]{64}\",?)*\\]\\}$"), line);
    }

    @Test
    void aTamperedReceiptIsReportedAtItsLine() throws IOException {
        List<String> lines = honestChain();
        lines.set(2, lines.get(2).replace("\"content\":\"fleetmesh.custody/", "\"content\":\"fleetmesh.custodY/"));
        assertBadAt(3, "id does not match", lines);
    }

    @Test
    void aMissingLineBreaksThePrevLink() throws IOException {
        List<String> lines = honestChain();
        lines.remove(1);
        assertBadAt(2, "prev", lines);
    }

    @Test
    void swappedLinesBreakThePrevLink() throws IOException {
        List<String> lines = honestChain();
        String l = lines.get(1);
        lines.set(1, lines.get(2));
        lines.set(2, l);
        assertBadAt(2, "prev", lines);
    }

    @Test
    void aChainThatDoesNotStartAtTheFirstReceiptIsRefused() throws IOException {
        List<String> lines = honestChain();
        assertBadAt(1, "first receipt", lines.subList(1, lines.size()));
    }

    @Test
    void aBentConsistencyProofIsAFork() throws IOException {
        List<String> lines = honestChain();
        String l = lines.get(2);
        int at = l.indexOf("\"consistency\":[\"") + 16;
        char c = l.charAt(at);
        lines.set(2, l.substring(0, at) + (c == '0' ? '1' : '0') + l.substring(at + 1));
        assertBadAt(3, "fork", lines);
        List<String> dropped = honestChain();
        dropped.set(2, dropped.get(2).replaceAll("\"consistency\":\\[.*\\]", "\"consistency\":[]"));
        assertBadAt(3, "fork", dropped);
    }

    @Test
    void aReceiptOfAnotherSignerInTheChainIsRefused() throws IOException {
        List<String> lines = honestChain();
        Event e = LogJson.event(LogJson.read(lines.get(3), "line").get("receipt"), "receipt");
        Event other = Events.sign(TestReceiver.SENDER_SECRET, e.createdAt(), e.kind(), e.tags(),
                e.content().replace(TestReceiver.RECEIVER.hex(), TestReceiver.SENDER.hex()));
        lines.set(3, ChainFile.line(other.json(), List.of()));
        assertBadAt(4, "signature", lines);
    }

    @Test
    void garbageIsReportedAtItsLine() throws IOException {
        List<String> lines = new ArrayList<>(honestChain());
        lines.add(2, "{\"receipt\": 5}");
        assertBadAt(3, "receipt", lines);
        List<String> notJson = new ArrayList<>(honestChain());
        notJson.set(0, "not json");
        assertBadAt(1, "JSON", notJson);
        List<String> noProof = new ArrayList<>(honestChain());
        noProof.set(0, noProof.get(0).replaceAll(",\"consistency\":\\[.*\\]", ""));
        assertBadAt(1, "consistency", noProof);
    }
}
