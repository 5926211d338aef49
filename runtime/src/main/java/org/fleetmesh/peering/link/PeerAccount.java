package org.fleetmesh.peering.link;

import java.util.Optional;
import java.util.function.LongSupplier;

import org.fleetmesh.peering.budget.Allowance;
import org.fleetmesh.peering.budget.Bucket;
import org.fleetmesh.peering.budget.Direction;
import org.fleetmesh.peering.budget.Verdict;
import org.fleetmesh.peering.budget.Violations;
import org.fleetmesh.peering.grant.Grant;
import org.fleetmesh.peering.grant.GrantTerms;
import org.fleetmesh.peering.grant.TierState;
import org.fleetmesh.spi.peers.PeerRecord;

/**
 * Everything this node holds about one peer DID, across its links: the inbound budget from the grant this node gave
 * it, the grant it gave this node (and the {@link Pacer} that keeps to it), its violations, tier, strain and
 * quarantine. One per peer; links of the same peer share it, so relinking refills nothing. Thread-safe.
 */
public final class PeerAccount {
    /** What {@link #admit} decided about an inbound frame. */
    public record Admission(long waitNanos, Verdict verdict, boolean tierChanged) {
        static final Admission ADMITTED = new Admission(0, Verdict.WITHIN, false);

        public boolean admitted() {
            return waitNanos == 0;
        }
    }

    private final String peer;
    private final LinkPolicy policy;
    private final LongSupplier nanoTime;
    private final LongSupplier millisTime;
    private final Violations violations;
    private final StrainLedger strain;
    private final Pacer pacer = new Pacer();
    private Bucket inBytes;
    private Bucket inEvents;
    private Allowance inAllowance;
    private TierState tier;
    private long violationsTotal;
    private long quarantinedUntil;
    private long periodStartMillis;
    private long refusedFrames;
    private long refusedBytes;
    private long refusedEvents;
    private Grant given;
    private boolean givenAccepted;
    private Grant received;
    private boolean dirty;
    /** Why this node's grant to the peer is suspended (its standing), or null. */
    private String suspended;

    /** A peer seen before ({@code record}) or fresh (tier 0). */
    public PeerAccount(String peer, Optional<PeerRecord> record, LinkPolicy policy, LongSupplier nanoTime,
            LongSupplier millisTime) {
        this.peer = peer;
        this.policy = policy;
        this.nanoTime = nanoTime;
        this.millisTime = millisTime;
        this.violations = new Violations(policy.violations());
        long now = nanoTime.getAsLong();
        long halfLife = policy.strainHalfLife().toNanos();
        if (record.isPresent()) {
            PeerRecord r = record.get();
            int top = policy.tiers().top();
            this.tier = new TierState(Math.min(r.tier(), top), r.cleanStreak(), false);
            this.violationsTotal = r.violations();
            this.quarantinedUntil = r.quarantinedUntil();
            long age = Math.max(0, millisTime.getAsLong() - r.strainAt()) * 1_000_000L;
            this.strain = StrainLedger.restore(r.strain(), age, halfLife, now);
        } else {
            this.tier = policy.tiers().fresh();
            this.strain = new StrainLedger(halfLife, now);
            this.dirty = true;
        }
        setInbound(policy.tiers().tier(tier.level()).allowance(policy.tiers().windowSeconds()), now);
    }

    public String peer() {
        return peer;
    }

    /** The terms this node grants the peer now: its tier's default (no per-peer agreement exists yet). */
    public synchronized GrantTerms termsToGive(String grantorDid, long expiration) {
        return policy.tiers().defaultTerms(tier.level(), grantorDid, peer, expiration);
    }

    /** The grant this node signed for the peer now meters what the peer sends. */
    public synchronized void gave(Grant g) {
        given = g;
        givenAccepted = false;
        setInbound(g.terms().allowance(), nanoTime.getAsLong());
    }

    /** The peer accepted the grant with this id (its DIDComm accept). */
    public synchronized boolean accepted(String grantId) {
        if (given != null && given.event().id().hex().equals(grantId)) {
            givenAccepted = true;
            return true;
        }
        return false;
    }

    /** The peer's own grant to this node: what this node paces its sending to. */
    public synchronized void received(Grant g) {
        received = g;
        pacer.retarget(g.terms().allowance(), nanoTime.getAsLong());
    }

    /** A fresh bucket pair for {@code a}, carrying over what is already spent, so a new grant refills nothing. */
    private void setInbound(Allowance a, long now) {
        long spentBytes = inBytes == null ? 0 : inBytes.used(now);
        long spentEvents = inEvents == null ? 0 : inEvents.used(now);
        inAllowance = a;
        inBytes = new Bucket(a.bytes(), a.windowNanos(), now);
        inEvents = new Bucket(a.events(), a.windowNanos(), now);
        inBytes.reserve(Math.min(spentBytes, a.bytes()), now);
        inEvents.reserve(Math.min(spentEvents, a.events()), now);
    }

    /**
     * Reserves an inbound frame's bytes and events, both or neither, before anything past its header is read. A
     * refusal is a violation: it may drop the peer a tier and, past threshold plus tolerance, say
     * {@link Verdict#DISCONNECT}.
     */
    public synchronized Admission admit(long bytes, long events) {
        long now = nanoTime.getAsLong();
        long wait = inBytes.reserve(bytes, now);
        if (wait == 0) {
            wait = inEvents.reserve(events, now);
            if (wait != 0) {
                inBytes.release(bytes, now);
            }
        }
        if (wait == 0) {
            return Admission.ADMITTED;
        }
        refusedFrames++;
        refusedBytes += bytes;
        refusedEvents += events;
        return violated(wait);
    }

    /** A violation that is not about the budget (a frame this node cannot read); the answer says why. */
    public synchronized Admission violation() {
        refusedFrames++;
        return violated(-1);
    }

    private Admission violated(long wait) {
        if (violations.inPeriod(nanoTime.getAsLong()) == 0) {
            periodStartMillis = millisTime.getAsLong();
        }
        Verdict v = violations.record(nanoTime.getAsLong());
        violationsTotal++;
        dirty = true;
        TierState before = tier;
        tier = policy.tiers().violation(tier);
        boolean changed = tier.level() != before.level();
        return new Admission(wait < 0 ? Bucket.NEVER : wait, v, changed);
    }

    /** Commits what an admitted frame really held (the header may have announced another count). */
    public synchronized void applied(long reservedBytes, long reservedEvents, long actualBytes, long actualEvents) {
        long now = nanoTime.getAsLong();
        inBytes.apply(reservedBytes, actualBytes, now);
        inEvents.apply(reservedEvents, actualEvents, now);
    }

    /** Ends a tier window: a clean one adds to the streak; true when the tier changed (the grant is re-issued). */
    public synchronized boolean windowEnded() {
        TierState before = tier;
        tier = policy.tiers().windowEnded(tier);
        dirty |= !tier.equals(before);
        return tier.level() != before.level();
    }

    /** Its standing dropped: one tier down, the streak starts again. True when the tier changed. */
    public synchronized boolean demote() {
        TierState before = tier;
        tier = new TierState(Math.max(0, tier.level() - 1), 0, tier.violatedThisWindow());
        dirty |= !tier.equals(before);
        return tier.level() != before.level();
    }

    /** Suspends (a reason) or reinstates (null) the grant this node gives the peer: suspended, its frames are refused. */
    public synchronized void suspended(String reason) {
        suspended = reason;
    }

    /** Why the grant to the peer is suspended, while it is. */
    public synchronized Optional<String> suspension() {
        return Optional.ofNullable(suspended);
    }

    /** Quarantines the peer from now for the policy's time; gives the end, epoch milliseconds. */
    public synchronized long quarantine() {
        quarantinedUntil = millisTime.getAsLong() + policy.quarantine().toMillis();
        dirty = true;
        return quarantinedUntil;
    }

    /** Epoch milliseconds the quarantine ends, when it has not yet. */
    public synchronized Optional<Long> quarantinedUntil() {
        return quarantinedUntil > millisTime.getAsLong() ? Optional.of(quarantinedUntil) : Optional.empty();
    }

    public StrainLedger strain() {
        return strain;
    }

    public Pacer pacer() {
        return pacer;
    }

    public synchronized TierState tier() {
        return tier;
    }

    public synchronized Optional<Grant> given() {
        return Optional.ofNullable(given);
    }

    public synchronized boolean givenAccepted() {
        return givenAccepted;
    }

    public synchronized Optional<Grant> received() {
        return Optional.ofNullable(received);
    }

    public synchronized Allowance inbound() {
        return inAllowance;
    }

    /** Inbound bytes and events spent and not yet refilled. */
    public synchronized long[] used() {
        long now = nanoTime.getAsLong();
        return new long[] { inBytes.used(now), inEvents.used(now) };
    }

    public synchronized long violationsTotal() {
        return violationsTotal;
    }

    public synchronized int violationsInPeriod() {
        return violations.inPeriod(nanoTime.getAsLong());
    }

    public synchronized long periodStartMillis() {
        return periodStartMillis;
    }

    /** Frames, bytes and events refused so far (for the evidence record). */
    public synchronized long[] refused() {
        return new long[] { refusedFrames, refusedBytes, refusedEvents };
    }

    /** Records what a frame from the peer cost this node. */
    public void strained(Direction d, long bytes, long events, long verifyNanos) {
        strain.add(d, bytes, events, verifyNanos, 0, nanoTime.getAsLong());
        synchronized (this) {
            dirty = true;
        }
    }

    /** The record to persist, and whether anything changed since the last one taken. */
    public synchronized Optional<PeerRecord> takeRecord(boolean always) {
        if (!dirty && !always) {
            return Optional.empty();
        }
        dirty = false;
        return Optional.of(new PeerRecord(peer, tier.level(), tier.cleanStreak(), violationsTotal, quarantinedUntil,
                strain.snapshot(nanoTime.getAsLong()), millisTime.getAsLong()));
    }
}
