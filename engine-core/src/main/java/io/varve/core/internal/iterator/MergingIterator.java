package io.varve.core.internal.iterator;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.Keys;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * Merges several internal iterators into one, in internal-key order, in both directions.
 *
 * <p>Moving forward, every child is positioned at its first entry after the current key and the current
 * child is the smallest; moving backward, every child is at its last entry before the current key and the
 * current child is the largest. Changing direction re-seeks the other children around the current key,
 * which is what makes {@code prev} after {@code next} correct. Internal keys are unique across children (each
 * write has its own sequence), so no tie-breaking rule is needed.
 *
 * <p>Children are scanned linearly to find the smallest or largest: a read view merges a handful of sources
 * (memtables and one iterator per level), where a heap would cost more than it saves.
 *
 * <p>Each child may come with the newest sequence it can hold. A reader that meets a range tombstone asks
 * the children whose every entry is older than the tombstone to jump to the tombstone's edge, so a deleted
 * stretch costs a seek per such child instead of a step per hidden entry. A child without a known bound
 * ({@link Long#MAX_VALUE}) is never jumped, which is always correct.
 */
public final class MergingIterator implements InternalIterator {

    /** Sorts before every entry of a user key: the trailer of the newest possible write. */
    private static final long BEFORE_EVERY_ENTRY = -1L;

    private final InternalIterator[] children;
    /** Per child, the newest sequence any of its entries can carry. */
    private final long[] newestSequences;
    private InternalIterator current;
    private boolean forward = true;

    public MergingIterator(List<? extends InternalIterator> children) {
        this(children, null);
    }

    /** {@code newestSequences[i]} bounds child i's sequences; null means no child has a known bound. */
    public MergingIterator(List<? extends InternalIterator> children, long[] newestSequences) {
        this.children = children.toArray(new InternalIterator[0]);
        if (newestSequences == null) {
            this.newestSequences = new long[this.children.length];
            Arrays.fill(this.newestSequences, Long.MAX_VALUE);
        } else if (newestSequences.length != this.children.length) {
            throw new IllegalArgumentException("one newest sequence per child");
        } else {
            this.newestSequences = newestSequences.clone();
        }
    }

    @Override
    public boolean valid() {
        return current != null;
    }

    @Override
    public void seekToFirst() {
        for (InternalIterator child : children) {
            child.seekToFirst();
        }
        forward = true;
        pickSmallest();
    }

    @Override
    public void seekToLast() {
        for (InternalIterator child : children) {
            child.seekToLast();
        }
        forward = false;
        pickLargest();
    }

    @Override
    public void seek(MemorySegment userKey, long trailer) {
        for (InternalIterator child : children) {
            child.seek(userKey, trailer);
        }
        forward = true;
        pickSmallest();
    }

    @Override
    public void seekForPrev(MemorySegment userKey, long trailer) {
        for (InternalIterator child : children) {
            child.seekForPrev(userKey, trailer);
        }
        forward = false;
        pickLargest();
    }

    @Override
    public void next() {
        requireValid();
        if (!forward) {
            // Other children sit before the current key; move each to its first entry after it.
            MemorySegment key = current.userKey();
            long trailer = current.trailer();
            for (InternalIterator child : children) {
                if (child != current) {
                    child.seek(key, trailer);
                    if (child.valid() && InternalKey.compare(child.userKey(), child.trailer(), key, trailer) == 0) {
                        child.next();
                    }
                }
            }
            forward = true;
        }
        current.next();
        pickSmallest();
    }

    @Override
    public void prev() {
        requireValid();
        if (forward) {
            MemorySegment key = current.userKey();
            long trailer = current.trailer();
            for (InternalIterator child : children) {
                if (child != current) {
                    child.seekForPrev(key, trailer);
                    if (child.valid() && InternalKey.compare(child.userKey(), child.trailer(), key, trailer) == 0) {
                        child.prev();
                    }
                }
            }
            forward = false;
        }
        current.prev();
        pickLargest();
    }

    /**
     * Moving forward: moves every child whose entries are all older than {@code sequence} to its first entry
     * at or after {@code end}, skipping what a tombstone at {@code sequence} reaching to {@code end} hides.
     * The caller has already moved past the entry that showed the tombstone.
     */
    public void skipCoveredForward(long sequence, MemorySegment end) {
        if (!forward) {
            throw new IllegalStateException("skipping forward while moving backward");
        }
        boolean moved = false;
        for (int i = 0; i < children.length; i++) {
            InternalIterator child = children[i];
            if (newestSequences[i] < sequence && child.valid() && Keys.compare(child.userKey(), end) < 0) {
                child.seek(end, BEFORE_EVERY_ENTRY);
                moved = true;
            }
        }
        if (moved) {
            pickSmallest();
        }
    }

    /**
     * Moving backward: moves every child whose entries are all older than {@code sequence} to its last entry
     * before {@code begin}, skipping what a tombstone at {@code sequence} starting at {@code begin} hides.
     */
    public void skipCoveredBackward(long sequence, MemorySegment begin) {
        if (forward) {
            throw new IllegalStateException("skipping backward while moving forward");
        }
        boolean moved = false;
        for (int i = 0; i < children.length; i++) {
            InternalIterator child = children[i];
            if (newestSequences[i] < sequence && child.valid() && Keys.compare(child.userKey(), begin) >= 0) {
                child.seekForPrev(begin, BEFORE_EVERY_ENTRY);
                moved = true;
            }
        }
        if (moved) {
            pickLargest();
        }
    }

    @Override
    public MemorySegment userKey() {
        requireValid();
        return current.userKey();
    }

    @Override
    public long trailer() {
        requireValid();
        return current.trailer();
    }

    @Override
    public MemorySegment value() {
        requireValid();
        return current.value();
    }

    @Override
    public int copyUserKey(byte[] dest) {
        requireValid();
        return current.copyUserKey(dest);
    }

    @Override
    public int copyValue(byte[] dest) {
        requireValid();
        return current.copyValue(dest);
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (InternalIterator child : children) {
            try {
                child.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        current = null;
        if (first != null) {
            throw first;
        }
    }

    private void pickSmallest() {
        InternalIterator best = null;
        for (InternalIterator child : children) {
            if (child.valid() && (best == null
                    || InternalKey.compare(child.userKey(), child.trailer(), best.userKey(), best.trailer()) < 0)) {
                best = child;
            }
        }
        current = best;
    }

    private void pickLargest() {
        InternalIterator best = null;
        for (InternalIterator child : children) {
            if (child.valid() && (best == null
                    || InternalKey.compare(child.userKey(), child.trailer(), best.userKey(), best.trailer()) > 0)) {
                best = child;
            }
        }
        current = best;
    }

    private void requireValid() {
        if (current == null) {
            throw new IllegalStateException("iterator is not positioned on an entry");
        }
    }
}
