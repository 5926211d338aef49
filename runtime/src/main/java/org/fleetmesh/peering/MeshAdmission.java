package org.fleetmesh.peering;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How many {@code /mesh} connections this node holds, in total and per remote address, so that no stranger (and no
 * crowd of them) can make it hold more. {@link #admit} takes a place or says why not ({@code busy}); every admitted
 * connection gives its place back with {@link #release} when it closes. Of the places, {@code reserved} are kept for
 * the peers this node declared or trusts: once its handshake tells who it is, a link of a stranger (a peer without
 * standing here) takes a stranger's place ({@link #stranger}) or is refused {@code busy}, so that a crowd of strangers
 * holds at most {@code maxTotal - reserved} places for longer than a handshake. Thread-safe.
 */
public final class MeshAdmission {
    private final int maxTotal;
    private final int maxPerAddress;
    private final int reserved;
    private final Map<String, Integer> perAddress = new HashMap<>();
    private int total;
    private int strangers;

    public MeshAdmission(int maxTotal, int maxPerAddress) {
        this(maxTotal, maxPerAddress, 0);
    }

    /** {@code reserved}: places strangers' links cannot hold (at most {@code maxTotal - 1}). */
    public MeshAdmission(int maxTotal, int maxPerAddress, int reserved) {
        if (maxTotal < 1 || maxPerAddress < 1) {
            throw new IllegalArgumentException("the /mesh connection caps must be at least 1");
        }
        if (reserved < 0 || reserved >= maxTotal) {
            throw new IllegalArgumentException("the /mesh places kept for known peers must be at least 0 and fewer than"
                    + " the " + maxTotal + " places in all, not " + reserved);
        }
        this.maxTotal = maxTotal;
        this.maxPerAddress = maxPerAddress;
        this.reserved = reserved;
    }

    /**
     * An admitted connection authenticated a peer without standing here: takes one of the places strangers may hold,
     * or gives the {@code busy} refusal to end its link with. A place taken is given back with {@link #strangerLeft}.
     */
    public synchronized Optional<Refusal> stranger() {
        int theirs = maxTotal - reserved;
        if (strangers >= theirs) {
            return Optional.of(Refusal.of(Refusal.Kind.BUSY, "this node keeps " + reserved + " of its " + maxTotal
                    + " /mesh places for peers it declared or trusts; new peers hold the rest; try again later"));
        }
        strangers++;
        return Optional.empty();
    }

    /** Gives back a place {@link #stranger} took. */
    public synchronized void strangerLeft() {
        if (strangers == 0) {
            throw new IllegalStateException("no stranger's /mesh place was taken");
        }
        strangers--;
    }

    public synchronized int strangers() {
        return strangers;
    }

    /** Takes a place for a connection from {@code address}, or gives the {@code busy} refusal to send instead. */
    public synchronized Optional<Refusal> admit(String address) {
        if (total >= maxTotal) {
            return Optional.of(Refusal.of(Refusal.Kind.BUSY, "this node holds " + total
                    + " /mesh connections, its limit; try again later"));
        }
        int mine = perAddress.getOrDefault(address, 0);
        if (mine >= maxPerAddress) {
            return Optional.of(Refusal.of(Refusal.Kind.BUSY, "this node holds " + mine
                    + " /mesh connections from your address, its limit per address"));
        }
        perAddress.put(address, mine + 1);
        total++;
        return Optional.empty();
    }

    /** Gives back the place of an admitted connection from {@code address}. */
    public synchronized void release(String address) {
        Integer mine = perAddress.get(address);
        if (mine == null) {
            throw new IllegalStateException("no /mesh connection from " + address + " was admitted");
        }
        if (mine == 1) {
            perAddress.remove(address);
        } else {
            perAddress.put(address, mine - 1);
        }
        total--;
    }

    public synchronized int total() {
        return total;
    }
}
