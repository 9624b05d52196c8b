package io.varve.core.internal.version;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.StampedLock;

/**
 * One column family's share of the {@link VersionSet}: its published read view, its current version and its
 * log number. Each family has its own {@link StampedLock}, so publishing a view for one family never makes
 * readers of another retry.
 *
 * <p>Guarding follows the version set's lock order: {@link #current} is written under the family's swap lock
 * (inside the set's view lock) and read optimistically; {@link #currentVersion} and {@link #logNumber} are
 * guarded by the set's manifest lock. {@link #dropped} is set once, under the manifest lock and the swap lock.
 */
final class ColumnFamilyVersions {

    final int id;
    final String name;
    final StampedLock swapLock = new StampedLock();

    /** Guarded by swapLock for writes; read optimistically. Null once the family is dropped. */
    ReadView current;
    /** Guarded by the set's manifestLock. */
    Version currentVersion;
    /** Guarded by the set's manifestLock: logs numbered below it hold nothing of this family not in tables. */
    long logNumber;
    volatile boolean dropped;

    /**
     * This family's versions not yet dead, by id; the first key is its oldest live version. Obsolete tables
     * are tracked per family: an idle family's old current version must not hold back deleting another
     * family's compacted-away tables.
     */
    final ConcurrentSkipListMap<Long, Version> live = new ConcurrentSkipListMap<>();
    /** Touched only on the reclaimer thread: tables removed by version r, in order of r. */
    final ArrayDeque<long[]> removedTables = new ArrayDeque<>();

    ColumnFamilyVersions(int id, String name) {
        this.id = id;
        this.name = name;
    }
}
