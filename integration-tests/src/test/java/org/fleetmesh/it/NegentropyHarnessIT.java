package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * {@code ./meshnode negentropy-harness}: two harness processes reconcile two sets through the
 * reference test-harness stdio protocol, as the reference drivers run them, and end with exactly
 * the symmetric difference as have/need.
 */
class NegentropyHarnessIT {

    static Process harness() throws Exception {
        return new ProcessBuilder(MeshnodeProcess.projectRoot().resolve("meshnode").toString(), "negentropy-harness")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    static String id(int n) {
        return String.format("%064x", n);
    }

    @Test
    void twoHarnessesReconcileToTheSymmetricDifference() throws Exception {
        Process a = harness(), b = harness();
        var aIn = a.getOutputStream();
        var bIn = b.getOutputStream();
        var aOut = new java.io.BufferedReader(new java.io.InputStreamReader(a.getInputStream(), StandardCharsets.US_ASCII));
        var bOut = new java.io.BufferedReader(new java.io.InputStreamReader(b.getInputStream(), StandardCharsets.US_ASCII));
        for (int i = 0; i < 300; i++) {
            if (i % 10 != 3) {
                write(aIn, "item," + (1000 + i) + "," + id(i)); // a lacks i % 10 == 3
            }
            if (i % 10 != 7) {
                write(bIn, "item," + (1000 + i) + "," + id(i)); // b lacks i % 10 == 7
            }
        }
        write(aIn, "seal");
        write(bIn, "seal");
        write(aIn, "initiate");
        List<String> have = new ArrayList<>(), need = new ArrayList<>();
        for (int round = 0; round < 100; round++) {
            String line;
            String msg = null;
            while ((line = aOut.readLine()) != null) {
                if (line.startsWith("have,")) {
                    have.add(line.substring(5));
                } else if (line.startsWith("need,")) {
                    need.add(line.substring(5));
                } else if (line.startsWith("msg,") || line.equals("done")) {
                    msg = line;
                    break;
                }
            }
            if (msg == null || msg.equals("done")) {
                break;
            }
            write(bIn, msg);
            String reply = bOut.readLine();
            assertTrue(reply != null && reply.startsWith("msg,61"), "responder reply: " + reply);
            write(aIn, reply);
        }
        aIn.close();
        bIn.close();
        assertTrue(a.waitFor(30, TimeUnit.SECONDS) && b.waitFor(30, TimeUnit.SECONDS));
        List<String> expectHave = new ArrayList<>(), expectNeed = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            if (i % 10 == 7) {
                expectHave.add(id(i));
            }
            if (i % 10 == 3) {
                expectNeed.add(id(i));
            }
        }
        have.sort(null);
        need.sort(null);
        assertEquals(expectHave, have, "a has what b lacks");
        assertEquals(expectNeed, need, "a needs what it lacks");
    }

    static void write(OutputStream out, String line) throws Exception {
        out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }
}
