package io.varve.core.internal.version;

import io.varve.base.fs.FileSystem;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongFunction;

/**
 * Finds the tables no live version lists any more and deletes them, on the {@link Reclaimer} thread.
 *
 * <h2>Without touching every table</h2>
 * Versions get increasing ids, and this bookkeeping runs per column family (a family's tables are only in its
 * own versions, and an idle family's old current version must not hold back another family's deletions). A
 * table removed by the edit that created version {@code r} is contained only in versions older than {@code r},
 * so it is obsolete once the oldest live version is {@code r} or newer. Removed tables are kept ordered by
 * {@code r} and, whenever a version dies, those whose {@code r} the oldest live version has passed are deleted.
 * Creating or dropping a version therefore costs nothing per table it merely contains — unlike per-table
 * reference counts, which cost O(tables) for every version. (A long-lived old version delays deletion of
 * tables it never contained; that only delays reclaiming space, never frees early.)
 *
 * <p>{@link ColumnFamilyVersions#removedTables} is touched only by tasks on the reclaimer thread (or, once it
 * closed, by the thread submitting them, one at a time in the same order), so it needs no lock.
 */
final class ObsoleteTables {

    private static final System.Logger LOG = System.getLogger(ObsoleteTables.class.getName());

    private final FileSystem fs;
    private final Reclaimer reclaimer;
    private final TableCache tableCache;
    private final LongFunction<Path> tablePath;
    /** Every family with live versions, dropped ones included until their last version dies. */
    private final CopyOnWriteArrayList<ColumnFamilyVersions> withVersions = new CopyOnWriteArrayList<>();

    ObsoleteTables(FileSystem fs, Reclaimer reclaimer, TableCache tableCache, LongFunction<Path> tablePath) {
        this.fs = fs;
        this.reclaimer = reclaimer;
        this.tableCache = tableCache;
        this.tablePath = tablePath;
    }

    /** Starts watching a family's versions (a new or recovered family). */
    void track(ColumnFamilyVersions family) {
        withVersions.add(family);
    }

    /** Tables {@code fileNumbers} leave the family with version {@code removedBy}. */
    void scheduleRemoval(ColumnFamilyVersions family, List<Long> fileNumbers, long removedBy) {
        if (!fileNumbers.isEmpty()) {
            reclaimer.submit(() -> fileNumbers.forEach(n -> family.removedTables.add(new long[] {n, removedBy})));
        }
    }

    /**
     * The tables an edit that was never logged would have added: nothing can read them. Tables it only moved
     * between levels are still live where they were.
     */
    void deleteOrphans(VersionEdit edit) {
        List<Long> numbers = edit.tablesArriving();
        reclaimer.submit(() -> numbers.forEach(this::deleteTable));
    }

    /** A version lost its last reference: delete what the oldest live version has passed. */
    void versionReleased(Version version) {
        reclaimer.submit(() -> {
            for (ColumnFamilyVersions family : withVersions) {
                if (family.live.remove(version.id()) == null) {
                    continue;
                }
                long oldestLive = family.live.isEmpty() ? Long.MAX_VALUE : family.live.firstKey();
                while (!family.removedTables.isEmpty() && family.removedTables.peekFirst()[1] <= oldestLive) {
                    deleteTable(family.removedTables.pollFirst()[0]);
                }
                if (family.dropped && family.live.isEmpty()) {
                    withVersions.remove(family);
                }
                return;
            }
        });
    }

    int liveVersionCount() {
        return withVersions.stream().mapToInt(family -> family.live.size()).sum();
    }

    private void deleteTable(long fileNumber) {
        tableCache.evict(fileNumber);
        try {
            fs.delete(tablePath.apply(fileNumber));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not delete obsolete table " + fileNumber, e);
        }
    }
}
