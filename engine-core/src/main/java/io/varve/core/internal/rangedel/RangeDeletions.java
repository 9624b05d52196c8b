package io.varve.core.internal.rangedel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The range tombstones of every source in one read view (memtables and tables), gathered when an iterator is
 * created: an entry is hidden when any source holds a tombstone newer than it and visible to the reader.
 * Sources are kept apart rather than re-fragmented together, so creating an iterator costs no sort.
 * Immutable once built; for one iterator's thread.
 */
public final class RangeDeletions {

    private final List<FragmentedTombstones> sources = new ArrayList<>();
    private final long readSequence;

    public RangeDeletions(long readSequence) {
        this.readSequence = readSequence;
    }

    /** Adds one source's tombstones; empty ones are dropped so the common case checks nothing. */
    public void add(FragmentedTombstones tombstones) {
        if (!tombstones.isEmpty()) {
            sources.add(tombstones);
        }
    }

    public boolean isEmpty() {
        return sources.isEmpty();
    }

    /** Whether an entry of {@code key} written at {@code entrySequence} is deleted by a range for this reader. */
    public boolean hides(MemorySegment key, long entrySequence) {
        return coverHiding(key, entrySequence) != null;
    }

    /**
     * The newest covering fragment that hides an entry of {@code key} written at {@code entrySequence}, or
     * null when the entry is visible. Of several sources' fragments the newest is chosen: it hides the most.
     */
    public Cover coverHiding(MemorySegment key, long entrySequence) {
        if (sources.isEmpty()) {
            return null;
        }
        byte[] bytes = key.toArray(ValueLayout.JAVA_BYTE);
        Cover newest = null;
        for (int i = 0; i < sources.size(); i++) {
            Cover cover = sources.get(i).cover(bytes, readSequence);
            if (cover != null && cover.sequence() > entrySequence
                    && (newest == null || cover.sequence() > newest.sequence())) {
                newest = cover;
            }
        }
        return newest;
    }

    /**
     * The newest sequence visible to this reader of a tombstone covering {@code key} in any source, or 0: every
     * entry of the key below it is deleted. One call serves a whole walk down a key's entries.
     */
    public long coveringSequence(MemorySegment key) {
        if (sources.isEmpty()) {
            return 0;
        }
        byte[] bytes = key.toArray(ValueLayout.JAVA_BYTE);
        long covering = 0;
        for (int i = 0; i < sources.size(); i++) {
            covering = Math.max(covering, sources.get(i).coveringSequence(bytes, readSequence));
        }
        return covering;
    }
}
