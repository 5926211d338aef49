package org.fleetmesh.meshnode.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.fleetmesh.meshnode.UsageException;
import org.fleetmesh.negentropy.NegInitiator;
import org.junit.jupiter.api.Test;

/** The sync command's options for its bounds (no relay, no store: these stop at the command line). */
class SyncCommandTest {
    private static int run(String... args) {
        PrintStream err = System.err;
        System.setErr(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        try {
            return SyncCommand.run(args);
        } finally {
            System.setErr(err);
        }
    }

    @Test
    void boundOptionsAreCheckedAsUsage() {
        assertEquals(SyncCommand.USAGE, run("sync", "ws://127.0.0.1:1/", "--max-need", "0"));
        assertEquals(SyncCommand.USAGE, run("sync", "ws://127.0.0.1:1/", "--max-rounds", "-1"));
        assertEquals(SyncCommand.USAGE, run("sync", "ws://127.0.0.1:1/", "--max-message", "1000"));
        assertEquals(SyncCommand.USAGE, run("sync", "ws://127.0.0.1:1/", "--max-message", String.valueOf(128L << 20)));
        assertEquals(SyncCommand.USAGE, run("sync", "ws://127.0.0.1:1/", "--max-need", "many"));
    }

    @Test
    void aFilterWithTrailingTextIsAUsageError() {
        // as export and delete refuse it; before, the first JSON value was used and the rest ignored
        for (String f : List.of("{\"kinds\":[1]} junk", "{\"kinds\":[1]},{\"kinds\":[2]}", "{}{}")) {
            UsageException e = assertThrows(UsageException.class,
                    () -> new SyncCommand().parse(List.of("ws://127.0.0.1:1/", "--filter", f)), f);
            assertTrue(e.getMessage().startsWith("bad --filter"), e.getMessage());
        }
        new SyncCommand().parse(List.of("ws://127.0.0.1:1/", "--filter", " {\"kinds\":[1]}\n"));
    }

    @Test
    void theNeedBoundIsTheLargerOfTheOptionAndTheLocalEvents() {
        NegInitiator.Limits small = SyncCommand.limits(NegInitiator.Limits.DEFAULT_MAX_NEED, 0, 300);
        assertEquals(1_000_000, small.maxNeed());
        assertEquals(300, small.maxHave());
        assertEquals(64, small.roundsAllowed(0));
        assertEquals(2_500_000, SyncCommand.limits(NegInitiator.Limits.DEFAULT_MAX_NEED, 0, 2_500_000).maxNeed());
        assertEquals(10, SyncCommand.limits(10, 7, 0).maxNeed());
        assertEquals(7, SyncCommand.limits(10, 7, 0).roundsAllowed(1_000_000));
    }

    @Test
    void theUsageNamesTheBoundsAndExitCodeFour() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        SyncCommand.usage(new PrintStream(b, true, StandardCharsets.UTF_8));
        String u = b.toString(StandardCharsets.UTF_8);
        assertTrue(u.contains("--max-need") && u.contains("--max-rounds") && u.contains("--max-message"), u);
        assertTrue(u.contains("4 the relay's answers went past"), u);
        assertEquals(4, SyncCommand.EXCEEDED);
    }
}
