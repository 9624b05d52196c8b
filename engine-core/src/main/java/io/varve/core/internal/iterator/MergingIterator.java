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
 * <p>The positioned children sit in a binary heap ordered by their current keys: a min-heap moving forward,
 * a max-heap moving backward, rebuilt whenever a seek, a change of direction or a skip moves several
 * children at once. A step moves only the root (the current child), so the heap below it stays as it was,
 * and which of the root's two children comes first is remembered until one of them changes. A step after
 * which the current child still comes before that runner-up therefore costs one key comparison, whatever the
 * number of children, and a child alone costs none; only when another child takes over does the heap sift
 * (logarithmic in the children). Sequential reads of compacted data, where one child supplies long runs,
 * mostly take the one-comparison path.
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
    /** The positioned children; the first {@link #size} slots form the heap, the current child at 0. */
    private final InternalIterator[] heap;
    private int size;
    /** 1 or 2: the slot of the root's child that comes first (the runner-up); 0 when not known. */
    private int runnerUpSlot;
    private boolean forward = true;

    public MergingIterator(List<? extends InternalIterator> children) {
        this(children, null);
    }

    /** {@code newestSequences[i]} bounds child i's sequences; null means no child has a known bound. */
    public MergingIterator(List<? extends InternalIterator> children, long[] newestSequences) {
        this.children = children.toArray(new InternalIterator[0]);
        this.heap = new InternalIterator[this.children.length];
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
        return size > 0;
    }

    @Override
    public void seekToFirst() {
        for (InternalIterator child : children) {
            child.seekToFirst();
        }
        forward = true;
        rebuild();
    }

    @Override
    public void seekToLast() {
        for (InternalIterator child : children) {
            child.seekToLast();
        }
        forward = false;
        rebuild();
    }

    @Override
    public void seek(MemorySegment userKey, long trailer) {
        for (InternalIterator child : children) {
            child.seek(userKey, trailer);
        }
        forward = true;
        rebuild();
    }

    @Override
    public void seekForPrev(MemorySegment userKey, long trailer) {
        for (InternalIterator child : children) {
            child.seekForPrev(userKey, trailer);
        }
        forward = false;
        rebuild();
    }

    @Override
    public void next() {
        requireValid();
        InternalIterator current = heap[0];
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
            current.next();
            rebuild();
            return;
        }
        current.next();
        rootMoved();
    }

    @Override
    public void prev() {
        requireValid();
        InternalIterator current = heap[0];
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
            current.prev();
            rebuild();
            return;
        }
        current.prev();
        rootMoved();
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
            rebuild();
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
            rebuild();
        }
    }

    @Override
    public MemorySegment userKey() {
        requireValid();
        return heap[0].userKey();
    }

    @Override
    public long trailer() {
        requireValid();
        return heap[0].trailer();
    }

    @Override
    public MemorySegment value() {
        requireValid();
        return heap[0].value();
    }

    @Override
    public int copyUserKey(byte[] dest) {
        requireValid();
        return heap[0].copyUserKey(dest);
    }

    @Override
    public int copyValue(byte[] dest) {
        requireValid();
        return heap[0].copyValue(dest);
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
        Arrays.fill(heap, null);
        size = 0;
        if (first != null) {
            throw first;
        }
    }

    /** Puts every positioned child into a heap for the current direction. */
    private void rebuild() {
        size = 0;
        for (InternalIterator child : children) {
            if (child.valid()) {
                heap[size++] = child;
            }
        }
        for (int i = size / 2 - 1; i >= 0; i--) {
            siftDown(i);
        }
        runnerUpSlot = 0;
    }

    /** Restores the heap after the root child stepped; the rest of the heap has not moved. */
    private void rootMoved() {
        InternalIterator top = heap[0];
        if (!top.valid()) {
            size--;
            heap[0] = heap[size];
            heap[size] = null;
            runnerUpSlot = 0;
            siftDown(0);
            return;
        }
        if (size == 1) {
            return;
        }
        int slot = runnerUpSlot();
        if (comesFirst(top, heap[slot])) {
            return;
        }
        heap[0] = heap[slot];
        heap[slot] = top;
        runnerUpSlot = 0;
        siftDown(slot);
    }

    private int runnerUpSlot() {
        if (size == 2) {
            return 1;
        }
        if (runnerUpSlot == 0) {
            runnerUpSlot = comesFirst(heap[2], heap[1]) ? 2 : 1;
        }
        return runnerUpSlot;
    }

    private void siftDown(int slot) {
        if (slot >= size) {
            return;
        }
        InternalIterator item = heap[slot];
        while (true) {
            int child = 2 * slot + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && comesFirst(heap[child + 1], heap[child])) {
                child++;
            }
            if (!comesFirst(heap[child], item)) {
                break;
            }
            heap[slot] = heap[child];
            slot = child;
        }
        heap[slot] = item;
    }

    /** Whether {@code a}'s entry is met before {@code b}'s in the current direction. */
    private boolean comesFirst(InternalIterator a, InternalIterator b) {
        int c = InternalKey.compare(a.userKey(), a.trailer(), b.userKey(), b.trailer());
        return forward ? c < 0 : c > 0;
    }

    private void requireValid() {
        if (size == 0) {
            throw new IllegalStateException("iterator is not positioned on an entry");
        }
    }
}
