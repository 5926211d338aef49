package org.fleetmesh.peering;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How many {@code /mesh} connections this node holds, in total and per remote address, so that no stranger (and no
 * crowd of them) can make it hold more. {@link #admit} takes a place or says why not ({@code busy}); every admitted
 * connection gives its place back with {@link #release} when it closes. Thread-safe.
 */
public final class MeshAdmission {
    private final int maxTotal;
    private final int maxPerAddress;
    private final Map<String, Integer> perAddress = new HashMap<>();
    private int total;

    public MeshAdmission(int maxTotal, int maxPerAddress) {
        if (maxTotal < 1 || maxPerAddress < 1) {
            throw new IllegalArgumentException("the /mesh connection caps must be at least 1");
        }
        this.maxTotal = maxTotal;
        this.maxPerAddress = maxPerAddress;
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
