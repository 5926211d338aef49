package org.fleetmesh.peering;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import org.fleetmesh.nostr.Hex;

/**
 * Proofs this node has accepted recently, by SHA-256 of their Ed25519 signature, so that none is accepted twice.
 * Bounded: an entry is forgotten once its proof's time has left the skew window (the time check refuses it from
 * then on) or when the cache is full, oldest first. Shared by all links of a node; thread-safe.
 */
public final class SeenProofs {
    public static final int DEFAULT_CAPACITY = 4096;

    private final int capacity;
    /** Proof hash to the epoch second after which the time check alone refuses the proof; insertion order. */
    private final LinkedHashMap<String, Long> seen = new LinkedHashMap<>();

    public SeenProofs(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("the replay cache needs room for at least one proof");
        }
        this.capacity = capacity;
    }

    public SeenProofs() {
        this(DEFAULT_CAPACITY);
    }

    /**
     * Records a verified proof; false when it was already recorded (a replay).
     *
     * @param staleAfter epoch second after which the proof is refused as expired anyway
     * @param now this node's clock, epoch seconds
     */
    public synchronized boolean firstSight(Ed25519Signature sig, long staleAfter, long now) {
        String key = Hex.encode(Transcript.sha256(sig.bytes()));
        if (seen.containsKey(key)) {
            return false;
        }
        Iterator<Map.Entry<String, Long>> oldest = seen.entrySet().iterator();
        while (oldest.hasNext()) {
            Map.Entry<String, Long> e = oldest.next();
            if (e.getValue() >= now && seen.size() < capacity) {
                break;
            }
            oldest.remove();
        }
        seen.put(key, staleAfter);
        return true;
    }

    public synchronized int size() {
        return seen.size();
    }
}
