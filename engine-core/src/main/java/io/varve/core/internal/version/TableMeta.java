package io.varve.core.internal.version;

import io.varve.core.internal.keys.Keys;

import java.lang.foreign.MemorySegment;
import io.varve.core.internal.rangedel.RangeTombstone;

import java.util.Arrays;
import java.util.List;

/**
 * What a version knows about one table file: its number, size, key range and sequence range. Immutable.
 *
 * @param globalSequence the sequence every entry stored at sequence 0 is read as (ingested files), or -1
 */
public record TableMeta(long fileNumber, long fileSize, byte[] smallestKey, long smallestTrailer,
                        byte[] largestKey, long largestTrailer, long smallestSequence, long largestSequence,
                        long globalSequence) {

    /** Trailers sort descending: all ones sorts before, and zero after, every entry of a user key. */
    private static final long FIRST_TRAILER = -1L;
    private static final long LAST_TRAILER = 0L;

    public TableMeta {
        if (fileNumber <= 0) {
            throw new IllegalArgumentException("file number must be positive: " + fileNumber);
        }
        smallestKey = smallestKey.clone();
        largestKey = largestKey.clone();
    }

    /** True when {@code userKey} lies within the table's user-key range. */
    public boolean covers(MemorySegment userKey) {
        return Keys.compare(smallestKey, userKey) <= 0 && Keys.compare(largestKey, userKey) >= 0;
    }

    /** True when the table's user-key range intersects {@code [begin, end]} (null = unbounded). */
    public boolean overlaps(byte[] begin, byte[] end) {
        return (end == null || Keys.compare(smallestKey, end) <= 0)
                && (begin == null || Keys.compare(largestKey, begin) >= 0);
    }

    /**
     * This table's description with its key range widened to take in its range tombstones, so that level
     * lookups and compaction picking find them. An end key is exclusive, but the range records it as the
     * largest key (with the trailer that sorts last): it may include one key too many, never one too few.
     */
    public TableMeta widenedTo(List<RangeTombstone> tombstones) {
        byte[] smallest = smallestKey;
        long smallestAt = smallestTrailer;
        byte[] largest = largestKey;
        long largestAt = largestTrailer;
        for (RangeTombstone t : tombstones) {
            if (Keys.compare(t.begin(), smallest) < 0) {
                smallest = t.begin();
                smallestAt = FIRST_TRAILER;
            }
            if (Keys.compare(t.end(), largest) > 0) {
                largest = t.end();
                largestAt = LAST_TRAILER;
            }
        }
        return new TableMeta(fileNumber, fileSize, smallest, smallestAt, largest, largestAt, smallestSequence,
                largestSequence, globalSequence);
    }

    /** The newest sequence a read of this table can see, global sequence applied. */
    public long effectiveLargestSequence() {
        return globalSequence >= 0 ? Math.max(largestSequence, globalSequence) : largestSequence;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TableMeta t && t.fileNumber == fileNumber;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(fileNumber);
    }

    @Override
    public String toString() {
        return "table " + fileNumber + " (" + fileSize + " B, keys " + Arrays.toString(smallestKey) + ".."
                + Arrays.toString(largestKey) + ", seq " + smallestSequence + ".." + largestSequence + ")";
    }
}
