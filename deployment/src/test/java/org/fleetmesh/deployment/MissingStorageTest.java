package org.fleetmesh.deployment;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/** The core without a storage extension must fail at build time, not at the first write. */
class MissingStorageTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .assertException(t -> {
                Throwable c = t;
                while (c != null) {
                    if (String.valueOf(c.getMessage()).contains("fleetmesh needs a storage extension")) {
                        return;
                    }
                    c = c.getCause();
                }
                fail("expected the missing-storage build error, got " + t);
            });

    @Test
    void buildFails() {
        fail("the application must not start without a storage extension");
    }
}
