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
        Args a = new Args(new String[] { "--events", "5", "--seed", "-3" });
        assertEquals(5, a.getInt("--events", 1));
        assertEquals(-3, a.getLong("--seed", 7));
        assertEquals(9, a.getInt("--runs", 9));
    }

    @Test
    void aValueThatIsNotANumberIsAUsageError() {
        UsageException e = assertThrows(UsageException.class,
                () -> new Args(new String[] { "--events", "abc" }).getInt("--events", 1));
        assertTrue(e.getMessage().contains("--events") && e.getMessage().contains("'abc'"), e.getMessage());
        assertThrows(UsageException.class,
                () -> new Args(new String[] { "--events", "99999999999999999999" }).getInt("--events", 1));
        assertThrows(UsageException.class,
                () -> new Args(new String[] { "--seed", "99999999999999999999" }).getLong("--seed", 1));
    }
}
