package org.fleetmesh.negentropy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One side of a Negentropy v1 reconciliation over a {@link Storage}. The side that calls
 * {@link #initiate()} is the initiator: it feeds each reply to {@link #reconcile(byte[])} and
 * collects {@link #haveIds()} and {@link #needIds()} until {@code reconcile} returns null. The
 * other side only answers: {@code reconcile} returns its reply to every message.
 *
 * <p>Every choice that shapes a message (16 buckets, id lists below 32 items, the 200-byte frame
 * margin) follows hoytech/negentropy so that messages are byte-identical to the reference.
 */
public final class Negentropy {
    /** Protocol version 1. */
    public static final int PROTOCOL_VERSION = 0x61;
    /** The smallest frame size limit the reference accepts; 0 means unlimited. */
    public static final long MIN_FRAME_SIZE_LIMIT = 4096;

    private static final int BUCKETS = 16;
    /** Room kept below the frame limit for the closing fingerprint range. */
    private static final int FRAME_MARGIN = 200;

    private final Storage storage;
    private final long frameSizeLimit;
    private final List<Id> haveIds = new ArrayList<>();
    /**
     * The local indices already in {@link #haveIds}: frame-limited rounds can list a range again, and a relay may
     * repeat ranges on purpose; each local item is reported once, so the have set never exceeds the storage.
     */
    private final java.util.BitSet haveIndices = new java.util.BitSet();
    private final List<Id> needIds = new ArrayList<>();
    /** Where the ids in {@link #needIds} were listed: ranges in the order found, each from its first index on. */
    private final List<NeedRange> needRanges = new ArrayList<>();

    /** The range [lower, upper) an id list covered; its ids sit at {@code needIds[from ..]} up to the next range. */
    private record NeedRange(int from, Bound lower, Bound upper) {
    }

    private boolean initiator;
    private long lastTimestampIn;
    private long lastTimestampOut;

    public Negentropy(Storage storage) {
        this(storage, 0);
    }

    /** @param frameSizeLimit the largest message this side sends, in bytes; 0 for unlimited */
    public Negentropy(Storage storage, long frameSizeLimit) {
        if (frameSizeLimit != 0 && (frameSizeLimit < MIN_FRAME_SIZE_LIMIT)) {
            throw new NegentropyException("frameSizeLimit too small: " + frameSizeLimit + " < " + MIN_FRAME_SIZE_LIMIT);
        }
        // a session is used by one thread at a time: let a tree snapshot keep its finger in place
        this.storage = storage instanceof FingerprintTree.Snapshot tree ? tree.confined() : storage;
        this.frameSizeLimit = frameSizeLimit;
    }

    public boolean isInitiator() {
        return initiator;
    }

    /** The first message: the version byte and the whole space split into ranges. */
    public byte[] initiate() {
        if (initiator) {
            throw new NegentropyException("already initiated");
        }
        initiator = true;
        lastTimestampOut = 0;
        MessageWriter output = new MessageWriter().write(PROTOCOL_VERSION);
        splitRange(0, storage.size(), Bound.END, output);
        return checkedFrame(output);
    }

    /**
     * Answers a message. For the initiator: the next message, or null when reconciliation is
     * complete; ids found missing on either side are added to {@link #haveIds()} and
     * {@link #needIds()}. For the responder: the reply, which is the bare version byte when the
     * message asks for a version this side does not speak.
     */
    public byte[] reconcile(byte[] message) {
        byte[] output = reconcileAux(new MessageReader(message));
        return initiator && output.length == 1 ? null : output;
    }

    /** Ids this side has and the other lacks, in the order found, over all rounds so far. */
    public List<Id> haveIds() {
        return Collections.unmodifiableList(haveIds);
    }

    /** Ids the other side has and this side lacks, in the order found, over all rounds so far. */
    public List<Id> needIds() {
        return Collections.unmodifiableList(needIds);
    }

    /**
     * Whether an event with {@code createdAt} and {@code id} lies in the range the other side announced when it
     * listed {@code needIds().get(needIndex)}: its (created_at, id) must sort at or above the range's lower bound
     * and below its upper bound, else the other side announced one timestamp and serves another. Only the range
     * is known (an id list carries no per-id timestamps), so this is as exact as the protocol allows.
     */
    public boolean inAnnouncedRange(int needIndex, long createdAt, Id id) {
        if (needIndex < 0 || needIndex >= needIds.size() || createdAt < 0 || createdAt == Bound.INFINITY) {
            return false;
        }
        int lo = 0;
        int hi = needRanges.size() - 1;
        while (lo < hi) { // the last range starting at or before needIndex
            int mid = (lo + hi + 1) >>> 1;
            if (needRanges.get(mid).from() <= needIndex) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        NeedRange r = needRanges.get(lo);
        Item item = new Item(createdAt, id);
        return r.lower().compareToItem(item) <= 0 && r.upper().compareToItem(item) > 0;
    }

    /** Forgets the ids found so far: a long session hands them on round by round instead of keeping them all. */
    public void forgetFound() {
        haveIds.clear();
        needIds.clear();
        needRanges.clear();
    }

    private byte[] reconcileAux(MessageReader query) {
        lastTimestampIn = 0;
        lastTimestampOut = 0;

        MessageWriter fullOutput = new MessageWriter().write(PROTOCOL_VERSION);

        int protocolVersion = query.readByte();
        if (protocolVersion < 0x60 || protocolVersion > 0x6F) {
            throw new NegentropyException("invalid negentropy protocol version byte: 0x" + Integer.toHexString(protocolVersion));
        }
        if (protocolVersion != PROTOCOL_VERSION) {
            if (initiator) {
                throw new NegentropyException("unsupported negentropy protocol version requested: " + (protocolVersion - 0x60));
            }
            // our version byte alone tells the initiator which version to fall back to
            return fullOutput.toBytes();
        }

        int storageSize = storage.size();
        Bound prevBound = Bound.ZERO;
        int prevIndex = 0;
        boolean skip = false;

        while (!query.isEmpty()) {
            MessageWriter o = new MessageWriter();

            Bound currBound = decodeBound(query);
            Mode mode = Mode.ofCode(Varint.decode(query));
            if (currBound.compareTo(prevBound) < 0) {
                throw new NegentropyException("out-of-order bound: " + currBound + " after " + prevBound);
            }

            int lower = prevIndex;
            int upper = storage.findLowerBound(prevIndex, storageSize, currBound);

            switch (mode) {
                case SKIP -> skip = true;
                case FINGERPRINT -> {
                    byte[] theirFingerprint = query.readBytes(Fingerprint.SIZE);
                    Fingerprint ourFingerprint = storage.fingerprint(lower, upper);
                    if (!Arrays.equals(theirFingerprint, ourFingerprint.raw())) {
                        if (skip) {
                            skip = false;
                            encodeSkip(prevBound, o);
                        }
                        splitRange(lower, upper, currBound, o);
                    } else {
                        skip = true;
                    }
                }
                case ID_LIST -> {
                    long numIds = Varint.decode(query);
                    // insertion order keeps needIds in the order the peer listed them, as the JS reference does
                    Set<Id> theirIds = new LinkedHashSet<>();
                    for (long i = 0; i < numIds; i++) {
                        byte[] id = query.readBytes(Id.SIZE);
                        if (initiator) {
                            theirIds.add(Id.of(id));
                        }
                    }

                    if (initiator) {
                        skip = true;
                        if (storage instanceof FingerprintTree.Snapshot tree) {
                            int index = lower;
                            for (Id id : tree.ids(lower, upper)) {
                                if (!theirIds.remove(id)) {
                                    addHave(index, id);
                                }
                                index++;
                            }
                        } else {
                            storage.iterate(lower, upper, (item, index) -> {
                                if (!theirIds.remove(item.id())) {
                                    addHave(index, item.id());
                                }
                                return true;
                            });
                        }
                        if (!theirIds.isEmpty()) {
                            needRanges.add(new NeedRange(needIds.size(), prevBound, currBound));
                            needIds.addAll(theirIds);
                        }
                    } else {
                        if (skip) {
                            skip = false;
                            encodeSkip(prevBound, o);
                        }
                        upper = answerIdList(lower, upper, currBound, fullOutput, o);
                        o = new MessageWriter();
                    }
                }
            }

            if (exceedsFrameSizeLimit(fullOutput.size() + o.size())) {
                // out of room: stop here and send one fingerprint for everything not yet covered
                Fingerprint remaining = storage.fingerprint(upper, storageSize);
                encodeBound(Bound.END, fullOutput);
                fullOutput.writeVarint(Mode.FINGERPRINT.code());
                fullOutput.write(remaining.raw());
                break;
            }
            fullOutput.write(o);

            prevIndex = upper;
            prevBound = currBound;
        }

        return checkedFrame(fullOutput);
    }

    /**
     * The responder's id list for [lower, upper), cut short when the frame fills up; appends
     * {@code o} and the list to {@code fullOutput} and returns where the listed ids end.
     */
    private int answerIdList(int lower, int upper, Bound currBound, MessageWriter fullOutput, MessageWriter o) {
        // the reference checks the frame before each id: id k goes in while fullOutput + 32 k fits
        int count = upper - lower;
        if (frameSizeLimit != 0) {
            long room = frameSizeLimit - FRAME_MARGIN - fullOutput.size();
            count = room < 0 ? 0 : (int) Math.min(count, room / Id.SIZE + 1);
        }
        int end = lower + count;
        Bound endBound = end < upper ? Bound.of(storage.item(end)) : currBound; // the rest gets the closing fingerprint

        MessageWriter responseIds = new MessageWriter();
        writeIds(lower, end, responseIds);

        encodeBound(endBound, o);
        o.writeVarint(Mode.ID_LIST.code());
        o.writeVarint(count);
        o.write(responseIds);
        fullOutput.write(o);
        return end;
    }

    /** Appends the ids of items [begin, end), 32 bytes each. */
    private void writeIds(int begin, int end, MessageWriter o) {
        if (storage instanceof FingerprintTree.Snapshot tree) {
            tree.writeIds(begin, end, o);
            return;
        }
        storage.iterate(begin, end, (item, index) -> {
            o.write(item.id().raw());
            return true;
        });
    }

    /** Lists a small range outright, else cuts it into 16 fingerprinted buckets of near-equal size. */
    private void splitRange(int lower, int upper, Bound upperBound, MessageWriter o) {
        int numElems = upper - lower;

        if (numElems < BUCKETS * 2) {
            encodeBound(upperBound, o);
            o.writeVarint(Mode.ID_LIST.code());
            o.writeVarint(numElems);
            writeIds(lower, upper, o);
            return;
        }

        int itemsPerBucket = numElems / BUCKETS;
        int bucketsWithExtra = numElems % BUCKETS;
        int curr = lower;

        for (int i = 0; i < BUCKETS; i++) {
            int bucketSize = itemsPerBucket + (i < bucketsWithExtra ? 1 : 0);
            Fingerprint ourFingerprint = storage.fingerprint(curr, curr + bucketSize);
            curr += bucketSize;

            Bound nextBound = curr == upper
                    ? upperBound
                    : storage instanceof FingerprintTree.Snapshot tree
                            ? tree.boundBetween(curr)
                            : Bound.between(storage.item(curr - 1), storage.item(curr));

            encodeBound(nextBound, o);
            o.writeVarint(Mode.FINGERPRINT.code());
            o.write(ourFingerprint.raw());
        }
    }

    private boolean exceedsFrameSizeLimit(long n) {
        return frameSizeLimit != 0 && n > frameSizeLimit - FRAME_MARGIN;
    }

    private byte[] checkedFrame(MessageWriter output) {
        if (frameSizeLimit != 0 && output.size() > frameSizeLimit) {
            throw new NegentropyException("frameSizeLimit exceeded: " + output.size() + " > " + frameSizeLimit);
        }
        return output.toBytes();
    }

    // Decoding

    private void addHave(int index, Id id) {
        if (!haveIndices.get(index)) {
            haveIndices.set(index);
            haveIds.add(id);
        }
    }

    private long decodeTimestampIn(MessageReader encoded) {
        long timestamp = Varint.decode(encoded);
        timestamp = timestamp == 0 ? Bound.INFINITY : timestamp - 1;
        timestamp += lastTimestampIn;
        if (Long.compareUnsigned(timestamp, lastTimestampIn) < 0) {
            timestamp = Bound.INFINITY; // an offset past infinity saturates there
        }
        lastTimestampIn = timestamp;
        return timestamp;
    }

    private Bound decodeBound(MessageReader encoded) {
        long timestamp = decodeTimestampIn(encoded);
        long length = Varint.decode(encoded);
        if (Long.compareUnsigned(length, Id.SIZE) > 0) {
            throw new NegentropyException("bound id prefix too long: " + Long.toUnsignedString(length) + " bytes");
        }
        return Bound.of(timestamp, encoded.readBytes(length));
    }

    // Encoding

    private void encodeTimestampOut(long timestamp, MessageWriter o) {
        if (timestamp == Bound.INFINITY) {
            lastTimestampOut = Bound.INFINITY;
            o.writeVarint(0);
            return;
        }
        long offset = timestamp - lastTimestampOut;
        lastTimestampOut = timestamp;
        o.writeVarint(offset + 1);
    }

    private void encodeBound(Bound bound, MessageWriter o) {
        encodeTimestampOut(bound.timestamp(), o);
        o.writeVarint(bound.idPrefixLength());
        o.write(bound.rawIdPrefix());
    }

    private void encodeSkip(Bound bound, MessageWriter o) {
        encodeBound(bound, o);
        o.writeVarint(Mode.SKIP.code());
    }
}
