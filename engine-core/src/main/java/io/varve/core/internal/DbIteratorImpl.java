package io.varve.core.internal;

import io.varve.core.DbIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.iterator.MergingIterator;
import io.varve.core.merge.LongMergeOperator;
import io.varve.core.merge.MergeOperator;
import io.varve.core.internal.merge.Merges;
import io.varve.core.internal.rangedel.Cover;
import io.varve.core.internal.rangedel.RangeDeletions;
import io.varve.core.internal.version.ReadView;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Turns the merged stream of internal entries into the user's view: for each user key, the newest entry at
 * or below the snapshot sequence, hidden if it is a tombstone, within the bounds.
 *
 * <p>Moving forward, the internal iterator rests on the entry being shown, so key and value are zero-copy
 * views. Moving backward it must look past a key's older entries to find its newest one, so it rests before
 * the key, and the shown key and value are copies in reusable buffers. Switching direction repositions the
 * internal iterator accordingly.
 *
 * <p>An entry hidden by a range tombstone also tells how far the tombstone reaches: the sources wholly older
 * than it are moved past that stretch in one seek each (see {@link MergingIterator}), so a scan across a
 * deleted range does not step through every hidden entry.
 *
 * <p>Each call runs inside the database's {@link ReadGate}: once the database closes, calls throw the closed
 * state, and the database releases this iterator's view and tables only while no call is running.
 */
public final class DbIteratorImpl implements DbIterator {

    private final ReadPath owner;
    private final ReadGate gate;
    private final ReadView view;
    private final MergingIterator internal;
    private final long sequence;
    private final MemorySegment lower;
    private final MemorySegment upper;
    private final RangeDeletions rangeDeletions;
    private final MergeOperator mergeOperator;

    private final AtomicBoolean released = new AtomicBoolean();

    private boolean valid;
    private boolean forward = true;
    private volatile boolean closed;
    /** The current key in reverse mode, and the key being skipped in forward mode. */
    private byte[] savedKey = new byte[64];
    private int savedKeyLength;
    private byte[] savedValue = new byte[64];
    private int savedValueLength;
    /**
     * Moving forward, the shown entry was a merge: key and merged value are in the saved buffers and the
     * internal iterator rests somewhere after the key's operands (still within or past the key).
     */
    private boolean mergedForward;
    /** Moving backward: the base value (null for none) and operands, oldest first, of the key being scanned. */
    private byte[] backwardBase;
    private final List<byte[]> backwardOperands = new ArrayList<>();

    DbIteratorImpl(ReadPath owner, ReadView view, MergingIterator internal, long sequence, byte[] lower,
                   byte[] upper, RangeDeletions rangeDeletions, MergeOperator mergeOperator) {
        this.rangeDeletions = rangeDeletions;
        this.mergeOperator = mergeOperator;
        this.owner = owner;
        this.gate = owner.gate();
        this.view = view;
        this.internal = internal;
        this.sequence = sequence;
        this.lower = lower == null ? null : MemorySegment.ofArray(lower);
        this.upper = upper == null ? null : MemorySegment.ofArray(upper);
    }

    @Override
    public void seekToFirst() {
        gate.enter();
        try {
            checkOpen();
            if (lower != null) {
                internal.seek(lower, InternalKey.seekTrailer(sequence));
            } else {
                internal.seekToFirst();
            }
            forward = true;
            findNextUserEntry(false);
        } finally {
            gate.exit();
        }
    }

    @Override
    public void seekToLast() {
        gate.enter();
        try {
            checkOpen();
            if (upper != null) {
                // (upper, all ones) sorts before every entry of upper: lands on the last key below it.
                internal.seekForPrev(upper, -1L);
            } else {
                internal.seekToLast();
            }
            forward = false;
            findPrevUserEntry();
        } finally {
            gate.exit();
        }
    }

    @Override
    public void seek(byte[] key) {
        gate.enter();
        try {
            checkOpen();
            MemorySegment target = MemorySegment.ofArray(key);
            if (lower != null && Keys.compare(target, lower) < 0) {
                target = lower;
            }
            internal.seek(target, InternalKey.seekTrailer(sequence));
            forward = true;
            findNextUserEntry(false);
        } finally {
            gate.exit();
        }
    }

    @Override
    public void seekForPrev(byte[] key) {
        gate.enter();
        try {
            checkOpen();
            MemorySegment target = MemorySegment.ofArray(key);
            if (upper != null && Keys.compare(target, upper) >= 0) {
                seekToLast();
                return;
            }
            // (key, 0) sorts after every entry of key.
            internal.seekForPrev(target, 0L);
            forward = false;
            findPrevUserEntry();
        } finally {
            gate.exit();
        }
    }

    @Override
    public boolean valid() {
        gate.enter();
        try {
            checkOpen();
            return valid;
        } finally {
            gate.exit();
        }
    }

    @Override
    public void next() {
        gate.enter();
        try {
            checkOpen();
            requireValid();
            if (forward) {
                if (!mergedForward) {
                    saveKey(internal.userKey());
                    internal.next();
                }
            } else {
                // Land on the current key's first entry, then skip its entries. Stepping forward from where the
                // backward scan rests is not enough: a skip over a range-deleted stretch may have left older
                // sources before that point, and their hidden entries would come back first.
                internal.seek(savedKeySegment(), InternalKey.seekTrailer(InternalKey.MAX_SEQUENCE));
                forward = true;
            }
            findNextUserEntry(true);
        } finally {
            gate.exit();
        }
    }

    @Override
    public void prev() {
        gate.enter();
        try {
            checkOpen();
            requireValid();
            if (forward) {
                // Step back past every entry of the current key, so the scan below starts at the previous key.
                if (mergedForward) {
                    if (!internal.valid()) {
                        internal.seekToLast();
                    }
                } else {
                    saveKey(internal.userKey());
                }
                mergedForward = false;
                while (internal.valid() && Keys.compare(internal.userKey(), savedKeySegment()) >= 0) {
                    internal.prev();
                }
                forward = false;
            }
            findPrevUserEntry();
        } finally {
            gate.exit();
        }
    }

    @Override
    public byte[] key() {
        // The copy too runs inside the gate: close() must not free the memory while it is being read.
        gate.enter();
        try {
            return Keys.toArray(keySegment());
        } finally {
            gate.exit();
        }
    }

    @Override
    public byte[] value() {
        gate.enter();
        try {
            return Keys.toArray(valueSegment());
        } finally {
            gate.exit();
        }
    }

    @Override
    public int key(byte[] dest) {
        gate.enter();
        try {
            checkOpen();
            requireValid();
            return forward && !mergedForward ? internal.copyUserKey(dest)
                    : copy(savedKey, savedKeyLength, dest);
        } finally {
            gate.exit();
        }
    }

    @Override
    public int value(byte[] dest) {
        gate.enter();
        try {
            checkOpen();
            requireValid();
            return forward && !mergedForward ? internal.copyValue(dest)
                    : copy(savedValue, savedValueLength, dest);
        } finally {
            gate.exit();
        }
    }

    @Override
    public MemorySegment keySegment() {
        gate.enter();
        try {
            checkOpen();
            requireValid();
            return forward && !mergedForward ? internal.userKey() : savedKeySegment();
        } finally {
            gate.exit();
        }
    }

    @Override
    public MemorySegment valueSegment() {
        gate.enter();
        try {
            checkOpen();
            requireValid();
            return forward && !mergedForward ? internal.value()
                    : MemorySegment.ofArray(savedValue).asSlice(0, savedValueLength);
        } finally {
            gate.exit();
        }
    }

    @Override
    public void close() {
        // The database's close() also closes open iterators (between calls, never during one): release once.
        if (!released.compareAndSet(false, true)) {
            return;
        }
        closed = true;
        valid = false;
        try {
            internal.close();
        } finally {
            view.release();
            owner.iteratorClosed(this);
        }
    }

    /** Skips invisible entries, tombstoned keys and (when {@code skipping}) the rest of the saved key. */
    private void findNextUserEntry(boolean skipping) {
        mergedForward = false;
        while (internal.valid()) {
            long trailer = internal.trailer();
            if (InternalKey.sequence(trailer) <= sequence) {
                MemorySegment key = internal.userKey();
                if (upper != null && Keys.compare(key, upper) >= 0) {
                    break;
                }
                if (InternalKey.kindCode(trailer) == ValueKind.DELETE.code()) {
                    saveKey(key);
                    skipping = true;
                } else if (!skipping || Keys.compare(key, savedKeySegment()) > 0) {
                    Cover cover = rangeDeletions.coverHiding(key, InternalKey.sequence(trailer));
                    if (cover == null) {
                        if (InternalKey.kindCode(trailer) == ValueKind.MERGE.code()) {
                            // Not positioned if the operator throws: the caller must seek again.
                            valid = false;
                            mergeForward(key);
                        }
                        valid = true;
                        return;
                    }
                    saveKey(key);
                    skipping = true;
                    internal.next();
                    internal.skipCoveredForward(cover.sequence(), MemorySegment.ofArray(cover.end()));
                    continue;
                }
            }
            internal.next();
        }
        valid = false;
    }

    /**
     * Scans backward over one user key's entries, oldest to newest, remembering the newest visible one; stops
     * on reaching a smaller key once something is remembered.
     */
    private void findPrevUserEntry() {
        boolean haveEntry = false;
        backwardBase = null;
        backwardOperands.clear();
        while (internal.valid()) {
            long trailer = internal.trailer();
            if (InternalKey.sequence(trailer) <= sequence) {
                MemorySegment key = internal.userKey();
                if (haveEntry && Keys.compare(key, savedKeySegment()) < 0) {
                    break;
                }
                if (lower != null && Keys.compare(key, lower) < 0) {
                    break;
                }
                int kind = InternalKey.kindCode(trailer);
                if (kind == ValueKind.DELETE.code()) {
                    haveEntry = false;
                    backwardBase = null;
                    backwardOperands.clear();
                } else if (rangeDeletions.coverHiding(key, InternalKey.sequence(trailer)) instanceof Cover cover) {
                    // Hidden like a point delete at the tombstone's sequence: what comes after (newer) starts
                    // the key afresh, operands with no base.
                    haveEntry = false;
                    backwardBase = null;
                    backwardOperands.clear();
                    internal.prev();
                    internal.skipCoveredBackward(cover.sequence(), MemorySegment.ofArray(cover.begin()));
                    continue;
                } else if (kind == ValueKind.MERGE.code()) {
                    if (!haveEntry) {
                        backwardBase = null;
                        backwardOperands.clear();
                    } else if (backwardOperands.isEmpty()) {
                        backwardBase = Keys.toArray(savedValueSegment());
                    }
                    saveKey(key);
                    backwardOperands.add(Keys.toArray(internal.value()));
                    haveEntry = true;
                } else {
                    saveKey(key);
                    saveValue(internal.value());
                    backwardBase = null;
                    backwardOperands.clear();
                    haveEntry = true;
                }
            }
            internal.prev();
        }
        if (haveEntry && !backwardOperands.isEmpty()) {
            valid = false;
            saveValue(MemorySegment.ofArray(Merges.fullMerge(mergeOperator, Keys.toArray(savedKeySegment()),
                    backwardBase, backwardOperands)));
            backwardBase = null;
            backwardOperands.clear();
        }
        valid = haveEntry;
    }

    /**
     * The newest visible entry of {@code key} is an operand: collects the key's operands forward (newest first)
     * down to a put, a delete, an entry a range tombstone hides, or the next key, and shows the merged value
     * from the saved buffers.
     */
    private void mergeForward(MemorySegment key) {
        saveKey(key);
        MemorySegment current = savedKeySegment();
        long covering = rangeDeletions.coveringSequence(current);
        if (mergeOperator instanceof LongMergeOperator folding) {
            if (foldForward(folding, current, covering)) {
                mergedForward = true;
                return;
            }
            // The operator rejected something: back to the key's newest visible entry, the general way.
            internal.seek(current, InternalKey.seekTrailer(sequence));
        }
        List<byte[]> operands = new ArrayList<>();
        byte[] base = null;
        for (; internal.valid() && Keys.compare(internal.userKey(), current) == 0; internal.next()) {
            long trailer = internal.trailer();
            if (InternalKey.sequence(trailer) < covering) {
                break;
            }
            int kind = InternalKey.kindCode(trailer);
            if (kind == ValueKind.MERGE.code()) {
                operands.add(Keys.toArray(internal.value()));
                continue;
            }
            if (kind == ValueKind.PUT.code()) {
                base = Keys.toArray(internal.value());
            }
            break;
        }
        Collections.reverse(operands);
        byte[] merged = Merges.fullMerge(mergeOperator, Keys.toArray(current), base, operands);
        saveValue(MemorySegment.ofArray(merged));
        mergedForward = true;
    }

    /**
     * {@link #mergeForward}'s walk for a {@link LongMergeOperator}: folds the operands where they are stored.
     * False if the operator rejected a value or an operand (then the internal iterator has moved).
     */
    private boolean foldForward(LongMergeOperator folding, MemorySegment current, long covering) {
        try {
            long folded = folding.identity();
            int operands = 0;
            for (; internal.valid() && Keys.compare(internal.userKey(), current) == 0; internal.next()) {
                long trailer = internal.trailer();
                if (InternalKey.sequence(trailer) < covering) {
                    break;
                }
                int kind = InternalKey.kindCode(trailer);
                if (kind == ValueKind.MERGE.code()) {
                    folded = folding.combine(folded, folding.decode(internal.value()));
                    operands++;
                    continue;
                }
                if (kind == ValueKind.PUT.code()) {
                    folded = folding.combine(folded, folding.decode(internal.value()));
                }
                break;
            }
            saveValue(MemorySegment.ofArray(folding.encode(folded)));
            return operands > 0;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private MemorySegment savedValueSegment() {
        return MemorySegment.ofArray(savedValue).asSlice(0, savedValueLength);
    }

    private void saveKey(MemorySegment key) {
        int length = (int) key.byteSize();
        if (length > savedKey.length) {
            savedKey = new byte[Math.max(length, savedKey.length * 2)];
        }
        MemorySegment.copy(key, ValueLayout.JAVA_BYTE, 0, savedKey, 0, length);
        savedKeyLength = length;
    }

    private void saveValue(MemorySegment value) {
        int length = (int) value.byteSize();
        if (length > savedValue.length) {
            savedValue = Arrays.copyOf(savedValue, Math.max(length, savedValue.length * 2));
        }
        MemorySegment.copy(value, ValueLayout.JAVA_BYTE, 0, savedValue, 0, length);
        savedValueLength = length;
    }

    private static int copy(byte[] source, int length, byte[] dest) {
        System.arraycopy(source, 0, dest, 0, Math.min(length, dest.length));
        return length;
    }

    private MemorySegment savedKeySegment() {
        return MemorySegment.ofArray(savedKey).asSlice(0, savedKeyLength);
    }

    private void requireValid() {
        if (!valid) {
            throw new IllegalStateException("iterator is not positioned on a key");
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("iterator is closed");
        }
    }
}
