package io.varve.core.iterator;

import io.varve.core.base.InternalIterator;
import io.varve.core.base.InternalKey;

import java.lang.foreign.MemorySegment;
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
 */
public final class MergingIterator implements InternalIterator {

    private final InternalIterator[] children;
    private InternalIterator current;
    private boolean forward = true;

    public MergingIterator(List<? extends InternalIterator> children) {
        this.children = children.toArray(new InternalIterator[0]);
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
