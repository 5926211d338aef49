package org.fleetmesh.identity.capability;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Revoked token and block ids. Immutable: {@link #with} gives a new list, which a verifier takes by {@link CapabilityVerifier#revoking}. */
public final class RevocationList {
    private static final RevocationList EMPTY = new RevocationList(Set.of());

    private final Set<RevocationId> revoked;

    private RevocationList(Set<RevocationId> revoked) {
        this.revoked = revoked;
    }

    public static RevocationList empty() {
        return EMPTY;
    }

    public static RevocationList of(Collection<RevocationId> revoked) {
        return new RevocationList(Set.copyOf(revoked));
    }

    public RevocationList with(RevocationId id) {
        Set<RevocationId> more = new HashSet<>(revoked);
        more.add(id);
        return new RevocationList(Set.copyOf(more));
    }

    public boolean contains(RevocationId id) {
        return revoked.contains(id);
    }

    /** The index of the first block of {@code chain} whose id is revoked. */
    Optional<Integer> firstRevoked(List<RevocationId> chain) {
        for (int i = 0; i < chain.size(); i++) {
            if (revoked.contains(chain.get(i))) {
                return Optional.of(i);
            }
        }
        return Optional.empty();
    }

    public Set<RevocationId> ids() {
        return revoked;
    }

    public int size() {
        return revoked.size();
    }

    @Override
    public String toString() {
        return "RevocationList[" + revoked.size() + " ids]";
    }
}
