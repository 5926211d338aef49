package org.fleetmesh.meshnode;

/** A command line that does not make sense: the message is printed with the usage, exit code 2. */
public final class UsageException extends RuntimeException {
    public UsageException(String message) {
        super(message);
    }
}
