package io.varve.core.rangedel;

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
        if (sources.isEmpty()) {
            return false;
        }
        byte[] bytes = key.toArray(ValueLayout.JAVA_BYTE);
        for (int i = 0; i < sources.size(); i++) {
            if (sources.get(i).hides(bytes, entrySequence, readSequence)) {
                return true;
            }
        }
        return false;
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
