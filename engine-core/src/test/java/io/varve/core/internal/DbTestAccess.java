package io.varve.core.internal;

import io.varve.core.ColumnFamily;
import io.varve.core.Db;
import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.internal.sst.TableReader;
import io.varve.core.internal.version.ReadView;
import io.varve.core.internal.version.TableCache;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ObjLongConsumer;

/**
 * What tests see of a database's inside, through the package-private seams {@link DbImpl} keeps for them (its
 * parts); production code has no test-only methods.
 */
public final class DbTestAccess {

    private DbTestAccess() {
    }

    private static DbImpl impl(Db db) {
        return (DbImpl) db;
    }

    /** Waits until background compaction has nothing left to do. */
    public static void awaitCompactions(Db db) {
        impl(db).compactions().awaitIdle();
    }

    /** {flush bytes, compaction bytes written, compaction bytes read, stall nanos, stops, slowdowns}. */
    public static long[] backgroundStatistics(Db db) {
        DbImpl impl = impl(db);
        CompactionScheduler compactions = impl.compactions();
        WriteStalls stalls = impl.stalls();
        return new long[] {impl.flusher().bytesWritten().sum(), compactions.bytesWritten.sum(),
                compactions.bytesRead.sum(), stalls.stallNanos.sum(), stalls.stops.sum(), stalls.slowdowns.sum()};
    }

    /** Writers stopped by a write stall so far. */
    public static long stops(Db db) {
        return impl(db).stalls().stops.sum();
    }

    /** {fsyncs done, synced commits served}. */
    public static long[] syncStatistics(Db db) {
        CommitPipeline pipeline = impl(db).pipeline();
        return new long[] {pipeline.syncCount(), pipeline.commitsSynced()};
    }

    /** Waits until the pipeline's log worker has run everything queued so far. */
    public static void awaitLogWorker(Db db) throws InterruptedException {
        impl(db).pipeline().awaitLogWorker();
    }

    /** Rotations that found no spare log ready and created the next log while writers waited. */
    public static long logsCreatedInline(Db db) {
        return impl(db).pipeline().logsCreatedInline();
    }

    /** The default family's current version (retained; release it). */
    public static Version currentVersion(Db db) {
        return impl(db).versions().currentVersion();
    }

    /** A family's current version (retained; release it). */
    public static Version currentVersion(Db db, ColumnFamily family) {
        DbImpl impl = impl(db);
        return impl.versions().currentVersion(impl.families().id(family));
    }

    /** The last sequence number handed out, visible or not. */
    public static long lastAllocatedSequence(Db db) {
        return impl(db).pipeline().lastAllocatedSequence();
    }

    /** The newest sequence reads see. */
    public static long visibleSequence(Db db) {
        return impl(db).pipeline().visibleSequence();
    }

    /** Waits until everything released so far has been freed. */
    public static void awaitReclaimed(Db db) {
        impl(db).reclaimer().drain();
    }

    public static TableCache tableCache(Db db) {
        return impl(db).tableCache();
    }

    /**
     * Every entry a family stores, in memtables and tables of one read view, every version of every key,
     * unmerged: the user key and the sequence a read sees it at.
     */
    public static void forEachStoredEntry(Db db, ColumnFamily family, ObjLongConsumer<byte[]> sink) {
        DbImpl impl = impl(db);
        ReadView view = impl.versions().acquire(impl.families().id(family));
        List<InternalIterator> sources = new ArrayList<>();
        try {
            for (Memtable memtable : view.memtablesNewestFirst()) {
                sources.add(memtable.iterator());
            }
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                for (TableMeta table : view.version().level(level)) {
                    TableReader reader = impl.tableCache().acquire(table);
                    try {
                        sources.add(reader.newIterator());
                    } finally {
                        reader.release();
                    }
                }
            }
            for (InternalIterator it : sources) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    sink.accept(Keys.toArray(it.userKey()), InternalKey.sequence(it.trailer()));
                }
            }
        } finally {
            sources.forEach(InternalIterator::close);
            view.release();
        }
    }
}
