package org.fleetmesh.meshnode.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fleetmesh.meshnode.UsageException;
import org.junit.jupiter.api.Test;

/** The bench drivers' options: a value that is not a number is a usage error, not a NumberFormatException's trace. */
class ArgsTest {
    @Test
    void numbersAndDefaults() {
        Args a = new Args(new String[] { "--events", "5", "--seed", "-3" }, "--events", "--seed", "--runs");
        assertEquals(5, a.getInt("--events", 1));
        assertEquals(-3, a.getLong("--seed", 7));
        assertEquals(9, a.getInt("--runs", 9));
    }

    @Test
    void aValueThatIsNotANumberIsAUsageError() {
        UsageException e = assertThrows(UsageException.class,
                () -> new Args(new String[] { "--events", "abc" }, "--events").getInt("--events", 1));
        assertTrue(e.getMessage().contains("--events") && e.getMessage().contains("'abc'"), e.getMessage());
        assertThrows(UsageException.class,
                () -> new Args(new String[] { "--events", "99999999999999999999" }, "--events").getInt("--events", 1));
        assertThrows(UsageException.class,
                () -> new Args(new String[] { "--seed", "99999999999999999999" }, "--seed").getLong("--seed", 1));
    }

    /** A misspelt option was ignored and the default measured ({@code --event 5} ran 100,000 events). */
    @Test
    void anOptionTheBenchDoesNotTakeIsAUsageError() {
        UsageException e = assertThrows(UsageException.class,
                () -> new Args(new String[] { "--event", "5" }, "--events", "--seed"));
        assertEquals("unknown option '--event' (this bench takes --events, --seed)", e.getMessage());
        assertEquals("--events needs a value",
                assertThrows(UsageException.class, () -> new Args(new String[] { "--events" }, "--events")).getMessage());
        assertEquals("--events is given twice", assertThrows(UsageException.class,
                () -> new Args(new String[] { "--events", "1", "--events", "2" }, "--events")).getMessage());
        assertThrows(UsageException.class, () -> new Args(new String[] { "5" }, "--events"));
        // a driver with a mode first: the options after it
        assertEquals(5, new Args(new String[] { "query", "--runs", "5" }, 1, "--runs").getInt("--runs", 1));
    }

    @Test
    void decimalsAndBooleans() {
        Args a = new Args(new String[] { "--seconds", "0.5", "--memory", "false" }, "--seconds", "--memory");
        assertEquals(0.5, a.getDouble("--seconds", 3));
        assertEquals(false, a.getBoolean("--memory", true));
        assertEquals("--seconds takes a decimal number, not 'NaN'", assertThrows(UsageException.class,
                () -> new Args(new String[] { "--seconds", "NaN" }, "--seconds").getDouble("--seconds", 3)).getMessage());
        assertEquals("--memory takes true or false, not 'yes'", assertThrows(UsageException.class,
                () -> new Args(new String[] { "--memory", "yes" }, "--memory").getBoolean("--memory", true)).getMessage());
    }
}
