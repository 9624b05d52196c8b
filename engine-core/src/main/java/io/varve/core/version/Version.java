package io.varve.core.version;

import io.varve.core.base.Keys;
import io.varve.core.base.RefCount;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;


/**
 * An immutable snapshot of which tables make up the database: the "storage info". Level 0 holds flushed
 * tables that may overlap, newest first; every deeper level holds non-overlapping tables sorted by key.
 *
 * <p>A version is reference counted by whoever reads through it (read views, compactions). Its tables stay
 * on disk while it lives; see {@link VersionSet} for how obsolete tables are found without touching every
 * table of every version.
 */
public final class Version {

    public static final int NUM_LEVELS = 7;

    /** Level 0 newest first: by largest sequence, then file number, both descending. */
    private static final Comparator<TableMeta> NEWEST_FIRST = Comparator
            .comparingLong(TableMeta::effectiveLargestSequence).thenComparingLong(TableMeta::fileNumber).reversed();
    private static final Comparator<TableMeta> BY_SMALLEST_KEY = TableMeta::compareSmallest;

    private final long id;
    private final TableMeta[][] levels;
    private final RefCount references;
    private final VersionSet owner;

    Version(long id, TableMeta[][] levels, VersionSet owner) {
        this.id = id;
        this.levels = levels;
        this.owner = owner;
        this.references = new RefCount("version " + id);
    }

    static Version empty(VersionSet owner) {
        TableMeta[][] levels = new TableMeta[NUM_LEVELS][];
        Arrays.fill(levels, new TableMeta[0]);
        return new Version(0, levels, owner);
    }

    static void checkLevel(int level) {
        if (level < 0 || level >= NUM_LEVELS) {
            throw new IllegalArgumentException("level must be in [0, " + NUM_LEVELS + "): " + level);
        }
    }

    /**
     * The tables of this version with {@code edit} applied. Costs O(tables in the levels the edit touches)
     * in array copying plus O(added × log n) comparisons: the existing lists are already sorted, so added
     * tables are placed by binary search rather than by re-sorting. Meant to run outside every lock.
     */
    TableMeta[][] applied(VersionEdit edit) {
        TableMeta[][] next = levels.clone();
        for (int level = 0; level < NUM_LEVELS; level++) {
            List<TableMeta> added = new ArrayList<>();
            Set<Long> removed = new HashSet<>();
            for (VersionEdit.Added a : edit.added()) {
                if (a.level() == level) {
                    added.add(a.table());
                }
            }
            for (VersionEdit.Removed r : edit.removed()) {
                if (r.level() == level) {
                    removed.add(r.fileNumber());
                }
            }
            if (!added.isEmpty() || !removed.isEmpty()) {
                next[level] = merge(level, levels[level], added, removed);
            }
        }
        return next;
    }

    private static TableMeta[] merge(int level, TableMeta[] existing, List<TableMeta> added, Set<Long> removed) {
        Comparator<TableMeta> order = level == 0 ? NEWEST_FIRST : BY_SMALLEST_KEY;
        TableMeta[] kept = existing;
        if (!removed.isEmpty()) {
            kept = new TableMeta[existing.length - removed.size()];
            int n = 0;
            for (TableMeta t : existing) {
                if (!removed.contains(t.fileNumber())) {
                    if (n == kept.length) {
                        throw new IllegalArgumentException("edit removes tables not at level " + level + ": " + removed);
                    }
                    kept[n++] = t;
                }
            }
            if (n != kept.length) {
                throw new IllegalArgumentException("edit removes tables not at level " + level + ": " + removed);
            }
        }
        if (added.isEmpty()) {
            return kept;
        }
        added.sort(order);
        TableMeta[] result = new TableMeta[kept.length + added.size()];
        int[] placed = new int[added.size()];
        int from = 0;
        int out = 0;
        int k = 0;
        for (TableMeta table : added) {
            int at = Arrays.binarySearch(kept, from, kept.length, table, order);
            int insertion = at >= 0 ? at : -at - 1;
            System.arraycopy(kept, from, result, out, insertion - from);
            out += insertion - from;
            placed[k++] = out;
            result[out++] = table;
            from = insertion;
        }
        System.arraycopy(kept, from, result, out, kept.length - from);
        if (level > 0) {
            // Only an added table can break the order: check each against its neighbours.
            for (int i : placed) {
                checkDisjoint(level, result, i);
            }
        }
        return result;
    }

    private static void checkDisjoint(int level, TableMeta[] sorted, int i) {
        if (i > 0 && Keys.compare(sorted[i - 1].largestKey(), sorted[i].smallestKey()) >= 0) {
            throw new IllegalArgumentException("tables overlap at level " + level + ": " + sorted[i - 1] + " and " + sorted[i]);
        }
        if (i + 1 < sorted.length && Keys.compare(sorted[i].largestKey(), sorted[i + 1].smallestKey()) >= 0) {
            throw new IllegalArgumentException("tables overlap at level " + level + ": " + sorted[i] + " and " + sorted[i + 1]);
        }
    }

    public long id() {
        return id;
    }

    /** The tables of a level, in read order; the array must not be modified. */
    public TableMeta[] level(int level) {
        return levels[level];
    }

    public int tableCount() {
        int n = 0;
        for (TableMeta[] level : levels) {
            n += level.length;
        }
        return n;
    }

    public long levelBytes(int level) {
        long bytes = 0;
        for (TableMeta t : levels[level]) {
            bytes += t.fileSize();
        }
        return bytes;
    }

    /** In a sorted level, the only table that may hold {@code userKey}, or null. Binary search. */
    public TableMeta findInSortedLevel(int level, MemorySegment userKey) {
        TableMeta[] tables = levels[level];
        int low = 0;
        int high = tables.length - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (Keys.compare(MemorySegment.ofArray(tables[mid].largestKey()), userKey) < 0) {
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        if (low < tables.length && Keys.compare(MemorySegment.ofArray(tables[low].smallestKey()), userKey) <= 0) {
            return tables[low];
        }
        return null;
    }

    public boolean tryRetain() {
        return references.tryRetain();
    }

    public void retain() {
        references.retain();
    }

    /** Drops a reference; the last one hands the version to the reclaimer (never freed on this thread). */
    public void release() {
        if (references.release()) {
            owner.versionReleased(this);
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Version[" + id);
        for (int level = 0; level < NUM_LEVELS; level++) {
            if (levels[level].length > 0) {
                sb.append(", L").append(level).append('=').append(levels[level].length);
            }
        }
        return sb.append(']').toString();
    }
}
