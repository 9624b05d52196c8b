package io.varve.core;

import io.varve.core.base.InternalKey;
import io.varve.core.base.Keys;
import io.varve.core.base.ValueKind;
import io.varve.core.iterator.MergingIterator;
import io.varve.core.rangedel.Cover;
import io.varve.core.rangedel.RangeDeletions;
import io.varve.core.version.ReadView;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
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
final class DbIteratorImpl implements DbIterator {

    private final ReadPath owner;
    private final ReadGate gate;
    private final ReadView view;
    private final MergingIterator internal;
    private final long sequence;
    private final MemorySegment lower;
    private final MemorySegment upper;
    private final RangeDeletions rangeDeletions;

    private final AtomicBoolean released = new AtomicBoolean();

    private boolean valid;
    private boolean forward = true;
    private volatile boolean closed;
    /** The current key in reverse mode, and the key being skipped in forward mode. */
    private byte[] savedKey = new byte[64];
    private int savedKeyLength;
    private byte[] savedValue = new byte[64];
    private int savedValueLength;

    DbIteratorImpl(ReadPath owner, ReadView view, MergingIterator internal, long sequence, byte[] lower,
                   byte[] upper, RangeDeletions rangeDeletions) {
        this.rangeDeletions = rangeDeletions;
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
                saveKey(internal.userKey());
                internal.next();
            } else {
                // The internal iterator rests before the current key's entries; step onto them, then skip them.
                if (internal.valid()) {
                    internal.next();
                } else {
                    internal.seekToFirst();
                }
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
                saveKey(internal.userKey());
                do {
                    internal.prev();
                } while (internal.valid() && Keys.compare(internal.userKey(), savedKeySegment()) >= 0);
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
    public MemorySegment keySegment() {
        gate.enter();
        try {
            checkOpen();
            requireValid();
            return forward ? internal.userKey() : savedKeySegment();
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
            return forward ? internal.value() : MemorySegment.ofArray(savedValue).asSlice(0, savedValueLength);
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
                if (InternalKey.kindCode(trailer) == ValueKind.DELETE.code()) {
                    haveEntry = false;
                } else if (rangeDeletions.coverHiding(key, InternalKey.sequence(trailer)) instanceof Cover cover) {
                    haveEntry = false;
                    internal.prev();
                    internal.skipCoveredBackward(cover.sequence(), MemorySegment.ofArray(cover.begin()));
                    continue;
                } else {
                    saveKey(key);
                    saveValue(internal.value());
                    haveEntry = true;
                }
            }
            internal.prev();
        }
        valid = haveEntry;
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
