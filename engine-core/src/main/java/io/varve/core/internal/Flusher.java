package io.varve.core.internal;

import io.varve.core.ColumnFamilyOptions;
import io.varve.base.fs.FileSystem;
import io.varve.core.internal.compaction.RateLimitedFile;
import io.varve.core.internal.flush.MemtableFlush;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.internal.metrics.WorkTimer;
import io.varve.core.internal.version.Reclaimer;
import io.varve.core.internal.version.TableCache;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.VersionEdit;
import io.varve.core.internal.version.VersionSet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * Turns sealed memtables into level-0 tables, one rotation at a time, on one thread: the commit pipeline calls
 * {@link #memtableRotated} under its log lock when it seals the memtables; that publishes the new memtable set
 * and queues the flush. A flush writes each family's sealed memtable ({@link MemtableFlush}) and records every
 * table and the new log number in one manifest sync, so each flush empties every older log.
 *
 * <h2>Closing</h2>
 * {@link #close()} lets the running flush finish and drops the queued ones (the logs keep their data; the
 * next open replays them). Whoever waits in {@link #flushAndWait()} for a dropped flush, or for one that the
 * closing database cut short, gets the closed state, never an I/O error: a caller that sees an I/O error must
 * assume a broken disk. A flush cut short by close deletes the tables it wrote but did not install.
 */
public final class Flusher {

    private final System.Logger log;
    private static final long CLOSE_BOUND_MINUTES = 1;

    private final LongAdder bytesWritten = new LongAdder();
    private final WorkTimer timer = new WorkTimer();

    private final FileSystem fs;
    private final Path dir;
    private final VersionSet versions;
    private final TableCache tableCache;
    private final Reclaimer reclaimer;
    private final IntFunction<ColumnFamilyOptions> familyOptions;
    private final Runnable onSealed;
    private final Runnable onChange;
    private final Consumer<IOException> onFailure;
    private final BooleanSupplier closing;
    private final Supplier<IllegalStateException> closedException;
    private final OwnedThreads threadFactory;
    private final ExecutorService thread;
    /** Flushes scheduled and not yet finished: close() fails the ones it drops, so no flush() waits forever. */
    private final Queue<CompletableFuture<Void>> pending = new ConcurrentLinkedQueue<>();
    /** Set once by {@link #attach}, before the pipeline can rotate. */
    private CommitPipeline pipeline;
    private CompactionScheduler compactions;
    /** Completes when the newest scheduled flush (and so every earlier one) is done. */
    /**
     * Set by a database without a write-ahead log before it closes: the memtables are then the only copy of the
     * data, so the flush its pipeline queues last runs although the database is closing, and its failure is a
     * disk failure, not one that closing caused.
     */
    private volatile boolean finalFlushQueued;
    private volatile CompletableFuture<Void> lastFlush = CompletableFuture.completedFuture(null);

    /**
     * @param onSealed  called under the pipeline's log lock when memtables were sealed: must be cheap
     * @param onChange  called after each flush: the counts write stalls look at moved
     * @param onFailure fails the database after a flush failed
     * @param closing   true once the database began closing
     */
    Flusher(FileSystem fs, Path dir, VersionSet versions, TableCache tableCache, Reclaimer reclaimer,
            IntFunction<ColumnFamilyOptions> familyOptions, Runnable onSealed, Runnable onChange,
            Consumer<IOException> onFailure,
            BooleanSupplier closing, Supplier<IllegalStateException> closedException, System.Logger log) {
        this.log = log;
        this.fs = fs;
        this.dir = dir;
        this.versions = versions;
        this.tableCache = tableCache;
        this.reclaimer = reclaimer;
        this.familyOptions = familyOptions;
        this.onSealed = onSealed;
        this.onChange = onChange;
        this.onFailure = onFailure;
        this.closing = closing;
        this.closedException = closedException;
        this.threadFactory = new OwnedThreads("varve-flush-", dir);
        this.thread = Executors.newSingleThreadExecutor(threadFactory);
    }

    /** The pipeline and compactions exist only after the flusher (the pipeline calls it back). */
    void attach(CommitPipeline pipeline, CompactionScheduler compactions) {
        this.pipeline = pipeline;
        this.compactions = compactions;
    }

    LongAdder bytesWritten() {
        return bytesWritten;
    }

    WorkTimer timer() {
        return timer;
    }

    /** Seals the mutable memtables (if they hold anything) and waits for every flush scheduled so far. */
    void flushAndWait() {
        pipeline.rotateNow();
        try {
            lastFlush.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IllegalStateException closed) {
                throw closed;
            }
            throw new UncheckedIOException("flush failed", cause instanceof IOException io ? io : new IOException(cause));
        }
    }

    /** Called by the pipeline under its log lock: publish the new memtable sets and schedule the flush. */
    void memtableRotated(List<MemtableSet.Sealed> sealed, long sealedLastSequence, long newLogNumber) {
        for (MemtableSet.Sealed s : sealed) {
            versions.publishMemtables(s.family(), s.fresh(), immutables -> {
                List<Memtable> next = new ArrayList<>(immutables.size() + 1);
                next.add(s.memtable().memtable);
                next.addAll(immutables);
                return next;
            });
            s.fresh().release(); // the views hold it now
        }
        onSealed.run();
        CompletableFuture<Void> done = new CompletableFuture<>();
        pending.add(done);
        done.whenComplete((ignored, error) -> pending.remove(done));
        lastFlush = done;
        thread.execute(() -> flush(sealed, sealedLastSequence, newLogNumber, done));
    }

    /**
     * Runs on the flush thread, oldest rotation first: writes each sealed memtable to a level-0 table and
     * records, for every live family, its table and the new log number in one manifest sync. Families with
     * nothing sealed had nothing in the older logs, so their log number advances too.
     */
    private void flush(List<MemtableSet.Sealed> sealed, long lastSequence, long newLogNumber,
                       CompletableFuture<Void> done) {
        if (closing.getAsBoolean() && !finalFlushQueued) {
            // close() lets the running flush finish but no new one start; the logs keep this one's data.
            done.completeExceptionally(closedException.get());
            return;
        }
        List<TableMeta> written = new ArrayList<>();
        boolean reachedLogs = false;
        boolean installing = false;
        try {
            if (pipeline.failure() != null) {
                throw new IOException("not flushing: the database failed earlier", pipeline.failure());
            }
            Map<Integer, MemtableSet.Sealed> byFamily = new TreeMap<>();
            for (MemtableSet.Sealed s : sealed) {
                s.memtable().awaitWritesApplied();
                byFamily.put(s.family(), s);
            }
            long started = timer.start();
            List<VersionSet.Change> changes = new ArrayList<>();
            for (int family : versions.columnFamilies().keySet()) {
                VersionEdit edit = new VersionEdit().columnFamily(family).logNumber(newLogNumber)
                        .lastSequence(lastSequence);
                MemtableSet.Sealed s = byFamily.get(family);
                ColumnFamilyOptions options = familyOptions.apply(family);
                if (s == null || options == null) {
                    changes.add(new VersionSet.Change(edit, immutables -> immutables));
                    continue;
                }
                long number = versions.newFileNumber();
                TableMeta meta = MemtableFlush.write(fs, DbFiles.table(dir, number), number, s.memtable().memtable,
                        options.tableOptions().forLevel(0),
                        file -> new RateLimitedFile(file, compactions.rateLimiter(), bytesWritten));
                if (meta != null) {
                    edit.add(0, meta);
                    written.add(meta);
                }
                changes.add(new VersionSet.Change(edit, immutables -> {
                    List<Memtable> next = new ArrayList<>(immutables);
                    next.remove(s.memtable().memtable);
                    return next;
                }));
            }
            if (!written.isEmpty()) {
                // The tables' names must be durable before the manifest refers to them.
                fs.syncDirectory(dir);
            }
            tableCache.openAll(written);
            // The old log's final fsync runs after the rotation; it must be done before the edit passes the log.
            reachedLogs = true;
            pipeline.syncLogsBelow(newLogNumber);
            installing = true;
            versions.logAndApply(changes);
            timer.stop(started);
            long obsoleteBelow = versions.logNumber();
            reclaimer.submit(() -> deleteLogsBelow(obsoleteBelow));
            onChange.run();
            if (!closing.getAsBoolean()) { // the final flush of a database without a log starts no compaction
                compactions.maybeSchedule();
            }
            done.complete(null);
        } catch (IOException | RuntimeException | Error e) {
            // Close closes the logs, then the version set, and other resources it closes answer
            // IllegalStateException: only those failures are close's doing. A disk failure before them is
            // reported even while closing (the database's close then reports it).
            if (closing.getAsBoolean() && !finalFlushQueued && (reachedLogs || e instanceof IllegalStateException)) {
                // Cut short by close (the logs were closed, or the version set): the logs keep the data.
                if (!installing || e instanceof IllegalStateException) {
                    deleteUninstalled(written);
                }
                done.completeExceptionally(closedException.get());
                return;
            }
            onFailure.accept(e instanceof IOException io ? io : new IOException("flush failed", e));
            done.completeExceptionally(e);
        }
    }

    private void deleteUninstalled(List<TableMeta> tables) {
        for (TableMeta t : tables) {
            tableCache.evict(t.fileNumber());
            try {
                fs.delete(DbFiles.table(dir, t.fileNumber()));
            } catch (IOException e) {
                log.log(System.Logger.Level.WARNING,
                        "could not delete table " + t.fileNumber() + " of a flush cut short by close", e);
            }
        }
    }

    private void deleteLogsBelow(long logNumber) {
        try {
            for (String name : fs.list(dir)) {
                OptionalLong n = DbFiles.parseNumber(name, DbFiles.LOG_SUFFIX);
                if (n.isPresent() && n.getAsLong() < logNumber) {
                    fs.delete(dir.resolve(name));
                }
            }
        } catch (IOException e) {
            log.log(System.Logger.Level.WARNING,
                    "could not delete obsolete logs in " + dir, e);
        }
    }

    /** Makes the queued flushes run although the database closes (see {@link #finalFlushQueued}). */
    void runQueuedFlushesAtClose() {
        finalFlushQueued = true;
    }

    /**
     * Lets the running flush finish (its table is then in the manifest) and drops the queued ones, which see
     * the database closing and end at once; waits at most {@value #CLOSE_BOUND_MINUTES} minute. Never
     * interrupts the flush: an interrupt during a FileChannel write or force closes the channel, and the
     * manifest's channel with it. Call after the pipeline closed, so no rotation queues another flush.
     *
     * @return whether the flush thread ended within the bound
     */
    boolean close() {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(CLOSE_BOUND_MINUTES);
        thread.shutdown();
        boolean ended;
        try {
            ended = thread.awaitTermination(CLOSE_BOUND_MINUTES, TimeUnit.MINUTES) && threadFactory.awaitEnded(deadline);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ended = false;
        }
        if (!ended) {
            thread.shutdownNow();
        }
        // Flushes dropped from the queue never run: release whoever waits in flush() for them.
        for (CompletableFuture<Void> dropped : List.copyOf(pending)) {
            dropped.completeExceptionally(closedException.get());
        }
        return ended;
    }
}
