package io.varve.core.internal.version;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * One column family's share of the {@link VersionSet}: its published read view, its current version and its
 * log number.
 *
 * <p>Guarding follows the version set's lock order: {@link #view} is published under the set's view lock
 * (see {@link PublishedView}); {@link #currentVersion} and {@link #logNumber} are guarded by the set's
 * manifest lock. {@link #dropped} is set once, under the manifest lock and inside the view's withdrawal.
 */
final class ColumnFamilyVersions {

    final int id;
    final String name;
    /** Set when the family's first view is built, before the family is reachable. */
    PublishedView view;
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
