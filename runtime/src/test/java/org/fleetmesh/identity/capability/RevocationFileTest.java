package org.fleetmesh.identity.capability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class RevocationFileTest {
    static final String A = "a".repeat(128);
    static final String B = "0123456789abcdef".repeat(8);

    @Test
    void idsNotesCommentsAndBlankLines() {
        RevocationFile.Read r = RevocationFile.parse("# revoked by the operator\n" + A + " revoked 2026-12-07: lost laptop\n\n"
                + B + "\r\n");
        assertEquals(2, r.revoked().size());
        assertTrue(r.revoked().contains(RevocationId.fromHex(A)));
        assertTrue(r.revoked().contains(RevocationId.fromHex(B)));
        assertEquals(List.of(), r.skipped());
    }

    @Test
    void aLineThatDoesNotReadIsSkippedAndTheOthersStayInForce() {
        RevocationFile.Read r = RevocationFile.parse(A + "\n" + A.toUpperCase() + "\nabc\n" + B.substring(2) + "\n" + B);
        assertEquals(2, r.revoked().size());
        assertEquals(List.of("line 2: not a revocation id (128 lower-case hex digits)",
                "line 3: not a revocation id (128 lower-case hex digits)",
                "line 4: not a revocation id (128 lower-case hex digits)"), r.skipped());
    }

    @Test
    void aLineIsOneLineWhateverTheNote() {
        assertEquals(A + " x y\n", RevocationFile.line(RevocationId.fromHex(A), "x\ny"));
        assertEquals(A + "\n", RevocationFile.line(RevocationId.fromHex(A), null));
        assertEquals(1, RevocationFile.parse(RevocationFile.line(RevocationId.fromHex(A), "a\nb")).revoked().size());
    }
}
