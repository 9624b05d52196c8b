package io.varve.core.internal.version;

import io.varve.core.internal.keys.Keys;

import java.lang.foreign.MemorySegment;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;

/**
 * The tables of one level of a {@link Version}, in read order: level 0 newest first (its tables may overlap),
 * every deeper level sorted by key with no two tables overlapping. Immutable, a read-only {@link List}.
 *
 * <p>Kept twice, in read order and by file number, each a {@link ChunkedSortedSet}: an edit names the tables
 * it removes by number only, so the number index finds each one in O(log n) and the read order is then
 * searched by the table's own key. {@link #applied} therefore copies a few chunks and the two directories,
 * never the level. The level's byte total is kept as a field because compaction scores read it often.
 */
public final class LevelFiles extends AbstractList<TableMeta> {

    /** Level 0 newest first: by largest sequence, then file number, both descending. */
    private static final Comparator<TableMeta> NEWEST_FIRST = Comparator
            .comparingLong(TableMeta::effectiveLargestSequence).thenComparingLong(TableMeta::fileNumber).reversed();
    /**
     * Smallest internal key: user key ascending, then trailer descending. On the byte arrays directly: wrapping
     * them in memory segments for every comparison was most of an edit's garbage.
     */
    private static final Comparator<TableMeta> BY_SMALLEST_KEY = (a, b) -> {
        int c = Keys.compare(a.smallestKey(), b.smallestKey());
        return c != 0 ? c : Long.compareUnsigned(b.smallestTrailer(), a.smallestTrailer());
    };
    private static final Comparator<TableMeta> BY_NUMBER = Comparator.comparingLong(TableMeta::fileNumber);

    private final int level;
    private final ChunkedSortedSet<TableMeta> inOrder;
    private final ChunkedSortedSet<TableMeta> byNumber;
    private final long totalBytes;

    private LevelFiles(int level, ChunkedSortedSet<TableMeta> inOrder, ChunkedSortedSet<TableMeta> byNumber,
                       long totalBytes) {
        this.level = level;
        this.inOrder = inOrder;
        this.byNumber = byNumber;
        this.totalBytes = totalBytes;
    }

    static LevelFiles empty(int level) {
        return empty(level, ChunkedSortedSet.DEFAULT_MAX_CHUNK);
    }

    /** An empty level with chunks of at most {@code maxChunk} tables; tests use small chunks to force splits. */
    static LevelFiles empty(int level, int maxChunk) {
        Version.checkLevel(level);
        Comparator<TableMeta> order = level == 0 ? NEWEST_FIRST : BY_SMALLEST_KEY;
        return new LevelFiles(level, ChunkedSortedSet.empty(order, maxChunk), ChunkedSortedSet.empty(BY_NUMBER, maxChunk), 0);
    }

    /**
     * This level without the tables numbered {@code removed} and with {@code added}; removals apply first.
     *
     * @throws IllegalArgumentException if a removed table is not at this level, an added file number is
     *     already here, or (below level 0) an added table overlaps a neighbour
     */
    LevelFiles applied(Collection<Long> removed, List<TableMeta> added) {
        if (removed.isEmpty() && added.isEmpty()) {
            return this;
        }
        int[] numberPositions = new int[removed.size()];
        int[] orderPositions = new int[removed.size()];
        long bytes = totalBytes;
        int k = 0;
        for (long number : removed) {
            int at = byNumber.firstIndex(t -> t.fileNumber() >= number);
            TableMeta table = at < byNumber.size() ? byNumber.get(at) : null;
            if (table == null || table.fileNumber() != number) {
                throw new IllegalArgumentException("edit removes table " + number + " that is not at level " + level);
            }
            numberPositions[k] = at;
            orderPositions[k++] = inOrder.indexOf(table);
            bytes -= table.fileSize();
        }
        for (TableMeta t : added) {
            bytes += t.fileSize();
        }
        ChunkedSortedSet<TableMeta> nextByNumber;
        ChunkedSortedSet<TableMeta> nextInOrder;
        try {
            nextByNumber = byNumber.with(numberPositions, added);
            nextInOrder = inOrder.with(orderPositions, added);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("edit adds a table twice at level " + level + ": " + e.getMessage(), e);
        }
        if (level > 0) {
            // Only an added table can break the order: check each against its neighbours.
            for (TableMeta t : added) {
                checkDisjoint(nextInOrder, nextInOrder.indexOf(t));
            }
        }
        return new LevelFiles(level, nextInOrder, nextByNumber, bytes);
    }

    private void checkDisjoint(ChunkedSortedSet<TableMeta> sorted, int i) {
        TableMeta table = sorted.get(i);
        if (i > 0 && Keys.compare(sorted.get(i - 1).largestKey(), table.smallestKey()) >= 0) {
            throw new IllegalArgumentException("tables overlap at level " + level + ": " + sorted.get(i - 1) + " and " + table);
        }
        if (i + 1 < sorted.size() && Keys.compare(table.largestKey(), sorted.get(i + 1).smallestKey()) >= 0) {
            throw new IllegalArgumentException("tables overlap at level " + level + ": " + table + " and " + sorted.get(i + 1));
        }
    }

    public int level() {
        return level;
    }

    @Override
    public int size() {
        return inOrder.size();
    }

    @Override
    public TableMeta get(int index) {
        return inOrder.get(index);
    }

    @Override
    public Iterator<TableMeta> iterator() {
        return inOrder.iterator();
    }

    /** Sum of the tables' file sizes. */
    public long totalBytes() {
        return totalBytes;
    }

    /** The table numbered {@code fileNumber} if it is at this level, else null. */
    public TableMeta withNumber(long fileNumber) {
        int at = byNumber.firstIndex(t -> t.fileNumber() >= fileNumber);
        TableMeta table = at < byNumber.size() ? byNumber.get(at) : null;
        return table != null && table.fileNumber() == fileNumber ? table : null;
    }

    /**
     * In a sorted level, the only table that may hold {@code userKey}, or null. Written out rather than through
     * {@link ChunkedSortedSet#firstIndex} because every point lookup runs it once per level.
     */
    public TableMeta findCovering(MemorySegment userKey) {
        checkSorted();
        int low = 0;
        int high = inOrder.chunkCount();
        while (low < high) {
            int mid = (low + high) >>> 1;
            Object[] chunk = inOrder.chunk(mid);
            if (largestBefore((TableMeta) chunk[chunk.length - 1], userKey)) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        if (low == inOrder.chunkCount()) {
            return null;
        }
        Object[] chunk = inOrder.chunk(low);
        int from = 0;
        int to = chunk.length - 1;
        while (from < to) {
            int mid = (from + to) >>> 1;
            if (largestBefore((TableMeta) chunk[mid], userKey)) {
                from = mid + 1;
            } else {
                to = mid;
            }
        }
        TableMeta candidate = (TableMeta) chunk[from];
        return Keys.compare(candidate.smallestKey(), userKey) <= 0 ? candidate : null;
    }

    private static boolean largestBefore(TableMeta table, MemorySegment userKey) {
        return Keys.compare(table.largestKey(), userKey) < 0;
    }

    /** In a sorted level, the position of the first table whose largest user key is after {@code userKey}. */
    public int firstEndingAfter(byte[] userKey) {
        checkSorted();
        return inOrder.firstIndex(t -> Keys.compare(t.largestKey(), userKey) > 0);
    }

    /**
     * The tables whose user-key range intersects {@code [begin, end]} (null = unbounded), in read order. In a
     * sorted level they are contiguous and found by binary search; level 0 is scanned.
     */
    public List<TableMeta> overlapping(byte[] begin, byte[] end) {
        List<TableMeta> result = new ArrayList<>();
        if (level == 0) {
            for (TableMeta t : this) {
                if (t.overlaps(begin, end)) {
                    result.add(t);
                }
            }
            return result;
        }
        int i = begin == null ? 0 : inOrder.firstIndex(t -> Keys.compare(t.largestKey(), begin) >= 0);
        for (; i < size(); i++) {
            TableMeta t = inOrder.get(i);
            if (end != null && Keys.compare(t.smallestKey(), end) > 0) {
                break;
            }
            result.add(t);
        }
        return result;
    }

    private void checkSorted() {
        if (level == 0) {
            throw new IllegalStateException("level 0 tables overlap: it has no sorted search");
        }
    }
}
