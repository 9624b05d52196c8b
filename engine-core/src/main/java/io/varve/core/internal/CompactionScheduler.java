package io.varve.core.internal;

import io.varve.core.ColumnFamilyOptions;
import io.varve.core.sst.TableOptions;
import io.varve.core.Options;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.compaction.Compaction;
import io.varve.core.internal.compaction.CompactionJob;
import io.varve.core.internal.compaction.CompactionPicker;
import io.varve.core.internal.compaction.RateLimiter;
import io.varve.base.fs.FileSystem;
import io.varve.core.internal.version.TableCache;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;
import io.varve.core.internal.version.VersionEdit;
import io.varve.core.internal.version.VersionSet;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * Keeps the tree in shape: after every flush and every compaction it asks the picker for more work and runs
 * it on up to {@code maxBackgroundCompactions} threads. Inputs of running compactions are marked busy so
 * concurrent picks are disjoint. A manual {@link #compactRange} pauses automatic picks, waits for running
 * ones, then compacts level by level on the caller's thread.
 *
 * <p>Manual compactions are serialized by {@code manualLock} and mark their inputs busy like automatic ones:
 * two racing {@code compactRange} calls would otherwise pick the same tables. {@link #close()} refuses new
 * work and waits (bounded) for the running compactions; an install refused because the version set closed
 * first deletes its outputs, so no table file outlives the manifest's knowledge of it.
 *
 * <p>A failed compaction fails the database (the error reaches writers through the commit pipeline) rather
 * than retrying forever; its partial outputs are deleted.
 *
 * <p>Every compaction, automatic or manual, is registered with its family, output level and key range from
 * before it is picked until after its result is installed. {@link #withPicksHeld} shows those ranges to a
 * caller (ingestion) while no new compaction can be picked, so a table placed meanwhile can be kept clear of
 * every output that will ever land.
 */
public final class CompactionScheduler {

    private final System.Logger log;
    static final long CLOSE_BOUND_MINUTES = 5;
    /**
     * A move is refused when its tables overlap more than this many target-sized tables' bytes in the level
     * below the output (RocksDB bounds a compaction at 25 target files by default).
     */
    private static final long TRIVIAL_MOVE_GRANDPARENT_TABLES = 25;

    /** What a compaction needs from the database at the moment it starts. */
    interface SnapshotBounds {
        long oldest();

        long newest();
    }

    final LongAdder bytesWritten = new LongAdder();
    final LongAdder bytesRead = new LongAdder();
    final LongAdder nanosSpent = new LongAdder();
    /** Tables moved down a level without being rewritten. */
    final LongAdder tablesMoved = new LongAdder();

    private final LongAdder mergeFailures = new LongAdder();
    private final VersionSet versions;
    private final FileSystem fs;
    private final Path dir;
    private final TableCache tableCache;
    private final Options options;
    private final SnapshotBounds snapshots;
    private final Consumer<IOException> onFailure;
    private final Runnable onChange;
    private final Supplier<IllegalStateException> closedException;
    /** Each family's options (null once dropped), and a picker per family built from them. */
    private final IntFunction<ColumnFamilyOptions> familyOptions;
    private final Map<Integer, CompactionPicker> pickers = new ConcurrentHashMap<>();
    private final RateLimiter limiter;
    private final OwnedThreads threadFactory;
    private final ExecutorService threads;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    /** Held for a whole manual compaction: two would pick the same tables and the second install would fail. */
    private final ReentrantLock manualLock = new ReentrantLock();
    private final Set<Long> busy = new HashSet<>();
    /** Registered compactions (see the type comment); guarded by lock. */
    private final List<Running> registered = new ArrayList<>();
    private final AtomicInteger completed = new AtomicInteger();
    /** Where the next automatic pick starts looking, so one busy family does not starve the others. */
    private int nextFamily;
    /** Automatic compactions running, and manual ones between their start and end; guarded by lock. */
    private int running;
    private int manualRunning;
    private int paused;
    private boolean closed;
    /** After a failure nothing more is picked: retrying would fail the same way and spin. */
    private volatile boolean failed;

    CompactionScheduler(VersionSet versions, FileSystem fs, Path dir, TableCache tableCache, Options options,
                        IntFunction<ColumnFamilyOptions> familyOptions, SnapshotBounds snapshots,
                        Consumer<IOException> onFailure, Runnable onChange,
                        Supplier<IllegalStateException> closedException) {
        this.versions = versions;
        this.fs = fs;
        this.dir = dir;
        this.tableCache = tableCache;
        this.options = options;
        this.log = options.logger();
        this.snapshots = snapshots;
        this.onFailure = onFailure;
        this.onChange = onChange;
        this.familyOptions = familyOptions;
        this.closedException = closedException;
        this.limiter = options.backgroundRateLimit() > 0 ? new RateLimiter(options.backgroundRateLimit()) : null;
        this.threadFactory = new OwnedThreads("varve-compaction-", dir);
        this.threads = Executors.newFixedThreadPool(options.maxBackgroundCompactions(), threadFactory);
    }

    RateLimiter rateLimiter() {
        return limiter;
    }

    /** Starts as many compactions as there are free threads and work to do. */
    void maybeSchedule() {
        lock.lock();
        try {
            while (!closed && !failed && paused == 0 && running < options.maxBackgroundCompactions()) {
                Picked picked = pickAny();
                if (picked == null) {
                    return;
                }
                markBusy(picked.compaction(), true);
                Running registration = Running.of(picked.family(), picked.compaction());
                registered.add(registration);
                running++;
                threads.execute(() -> runAndReschedule(picked, registration));
            }
        } finally {
            lock.unlock();
        }
    }

    /** A compaction of one family, with the version it was picked from (retained). */
    private record Picked(int family, Compaction compaction, Version version) {
    }

    /** A compaction picked and not yet installed: where its outputs will go and which keys they can span. */
    record Running(int family, int outputLevel, byte[] smallestKey, byte[] largestKey) {

        static Running of(int family, Compaction c) {
            byte[] smallest = null;
            byte[] largest = null;
            for (TableMeta t : c.allInputs()) {
                if (smallest == null || Keys.compare(t.smallestKey(), smallest) < 0) {
                    smallest = t.smallestKey();
                }
                if (largest == null || Keys.compare(t.largestKey(), largest) > 0) {
                    largest = t.largestKey();
                }
            }
            return new Running(family, c.outputLevel(), smallest, largest);
        }
    }

    /**
     * Runs {@code action} with the compactions registered now, while no compaction can be picked or
     * registered and none that is registered can deregister (install happens before deregistering, and an
     * install made while {@code action} holds the version set's manifest lock waits for it). The action may
     * log a version edit, but must not call back into this scheduler.
     */
    <T> T withPicksHeld(Function<List<Running>, T> action) {
        lock.lock();
        try {
            return action.apply(List.copyOf(registered));
        } finally {
            lock.unlock();
        }
    }

    /** The first family, round robin, with work to do; caller holds lock. */
    private Picked pickAny() {
        List<Integer> families = List.copyOf(versions.columnFamilies().keySet());
        for (int i = 0; i < families.size(); i++) {
            int family = families.get(Math.floorMod(nextFamily + i, families.size()));
            Version version = currentVersion(family);
            if (version == null) {
                continue;
            }
            Compaction c;
            try {
                c = picker(family) == null ? null : picker(family).pick(version, busy);
            } catch (RuntimeException e) {
                version.release();
                throw e;
            }
            if (c != null) {
                nextFamily = Math.floorMod(nextFamily + i + 1, families.size());
                return new Picked(family, c, version);
            }
            version.release();
        }
        return null;
    }

    /** The family's current version (retained), or null if it was dropped. */
    private Version currentVersion(int family) {
        try {
            return versions.currentVersion(family);
        } catch (IllegalArgumentException dropped) {
            return null;
        }
    }

    private CompactionPicker picker(int family) {
        ColumnFamilyOptions o = familyOptions.apply(family);
        if (o == null) {
            pickers.remove(family);
            return null;
        }
        return pickers.computeIfAbsent(family, f -> new CompactionPicker(o.compactionSettings()));
    }

    private void runAndReschedule(Picked picked, Running registration) {
        Compaction c = picked.compaction();
        Version version = picked.version();
        try {
            run(picked.family(), c, version);
        } catch (IOException e) {
            failed = true;
            log.log(System.Logger.Level.ERROR, "compaction failed", e);
            onFailure.accept(e);
        } catch (IllegalStateException e) {
            if (!closing()) {
                failed = true;
                log.log(System.Logger.Level.ERROR, "compaction failed", e);
                onFailure.accept(new IOException("compaction failed", e));
            } else {
                // The version set or table cache closed under a compaction that outlived close's bound.
                log.log(System.Logger.Level.DEBUG, "compaction ended by close", e);
            }
        } catch (RuntimeException e) {
            failed = true;
            log.log(System.Logger.Level.ERROR, "compaction failed", e);
            onFailure.accept(new IOException("compaction failed", e));
        } finally {
            version.release();
            lock.lock();
            try {
                markBusy(c, false);
                registered.remove(registration);
                running--;
                idle.signalAll();
            } finally {
                lock.unlock();
            }
        }
        onChange.run();
        maybeSchedule();
    }

    /** How often a merge operator threw in compaction (the operands were kept unmerged). */
    long mergeFailures() {
        return mergeFailures.sum();
    }

    private void run(int family, Compaction c, Version version) throws IOException {
        long start = System.nanoTime();
        ColumnFamilyOptions o = familyOptions.apply(family);
        if (o == null) {
            return; // dropped meanwhile: its tables are going away
        }
        TableOptions tables = o.tableOptions();
        // A moved table keeps its blocks: moving it to a level that compresses differently would leave it there
        // as the level's setting never wrote it (RocksDB refuses such moves too).
        if (tables.compression(c.level()) == tables.compression(c.outputLevel())
                && c.isTrivialMove(version, TRIVIAL_MOVE_GRANDPARENT_TABLES * o.compactionSettings().targetFileSize())) {
            move(family, c);
            return;
        }
        CompactionJob job = new CompactionJob(c, version, fs, n -> DbFiles.table(dir, n), versions::newFileNumber,
                tableCache, tables.forLevel(c.outputLevel()), o.compactionSettings().targetFileSize(),
                snapshots.oldest(), snapshots.newest(), o.compactionFilter(), limiter, bytesWritten)
                .withMergeOperator(o.mergeOperator(), mergeFailures, log);
        VersionEdit edit = job.run().columnFamily(family);
        if (!job.outputs().isEmpty()) {
            fs.syncDirectory(dir);
        }
        tableCache.openAll(job.outputs());
        try {
            versions.logAndApply(edit, memtables -> memtables);
        } catch (IllegalStateException closedMeanwhile) {
            // Refused before anything was logged: no manifest will ever list the outputs.
            for (TableMeta t : job.outputs()) {
                tableCache.evict(t.fileNumber());
                fs.delete(DbFiles.table(dir, t.fileNumber()));
            }
            throw closedMeanwhile;
        }
        bytesRead.add(c.inputBytes());
        nanosSpent.add(System.nanoTime() - start);
        completed.incrementAndGet();
        log.log(System.Logger.Level.DEBUG, "compacted L{0} {1} + L{2} {3} tables into {4}, dropped {5} entries",
                c.level(), c.inputs().length, c.outputLevel(), c.outputLevelInputs().length, job.outputs().size(),
                job.entriesDropped());
    }

    /** Moves the inputs down a level by one manifest edit: no table is read or written. */
    private void move(int family, Compaction c) throws IOException {
        VersionEdit edit = new VersionEdit().columnFamily(family);
        for (TableMeta t : c.inputs()) {
            edit.remove(c.level(), t.fileNumber()).add(c.outputLevel(), t);
        }
        versions.logAndApply(edit, memtables -> memtables);
        tablesMoved.add(c.inputs().length);
        completed.incrementAndGet();
        log.log(System.Logger.Level.DEBUG, "moved {0} tables from L{1} to L{2} without rewriting",
                c.inputs().length, c.level(), c.outputLevel());
    }

    private boolean closing() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    private void markBusy(Compaction c, boolean mark) {
        for (TableMeta t : c.allInputs()) {
            if (mark) {
                busy.add(t.fileNumber());
            } else {
                busy.remove(t.fileNumber());
            }
        }
    }

    /**
     * Compacts every table overlapping {@code [begin, end]} down level by level, so the range ends in one
     * level with overwritten versions and tombstones gone (those no snapshot needs).
     */
    void compactRange(int family, byte[] begin, byte[] end) throws IOException {
        whileManual(() -> {
            int lastLevel = lastNonEmptyLevel(family);
            for (int level = 0; level < Math.max(1, lastLevel); level++) {
                runManual(family, level, begin, end, false);
            }
            if (lastLevel >= 1) {
                // The bottom level only sheds old versions and filtered values by being rewritten.
                runManual(family, lastLevel, begin, end, true);
            }
            return null;
        });
        maybeSchedule();
    }

    /**
     * Removes from {@code family}, in one manifest edit, every table whose keys all lie in {@code [begin, end)}
     * (null: unbounded), without rewriting anything. Automatic compactions are paused and running ones
     * awaited first, as for {@link #compactRange}, so no compaction has such a table as an input.
     *
     * @return the number of tables removed
     */
    int deleteFilesInRange(int family, byte[] begin, byte[] end) throws IOException {
        return whileManual(() -> {
            int[] removed = {0};
            versions.logAndApply(family, version -> {
                removed[0] = 0;
                VersionEdit edit = new VersionEdit().columnFamily(family);
                for (int level = 0; level < Version.NUM_LEVELS; level++) {
                    for (TableMeta t : version.level(level).overlapping(begin, end)) {
                        if ((begin == null || Keys.compare(t.smallestKey(), begin) >= 0)
                                && (end == null || Keys.compare(t.largestKey(), end) < 0)) {
                            edit.remove(level, t.fileNumber());
                            removed[0]++;
                        }
                    }
                }
                return removed[0] == 0 ? null : edit;
            });
            return removed[0];
        });
    }

    /** Work done while automatic compactions are paused and none is running. */
    private interface ManualWork<T> {
        T run() throws IOException;
    }

    /**
     * Runs {@code work} as the only manual operation, with automatic compactions paused and the running ones
     * awaited first, so it never shares a table with a compaction; resumes them afterwards.
     */
    private <T> T whileManual(ManualWork<T> work) throws IOException {
        manualLock.lock();
        try {
            lock.lock();
            try {
                if (closed) {
                    throw closedException.get();
                }
                paused++;
                manualRunning++;
                while (running > 0) {
                    idle.awaitUninterruptibly();
                }
            } finally {
                lock.unlock();
            }
            try {
                return work.run();
            } finally {
                lock.lock();
                try {
                    paused--;
                    manualRunning--;
                    idle.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        } finally {
            manualLock.unlock();
        }
    }

    private void runManual(int family, int level, byte[] begin, byte[] end, boolean intoItself) throws IOException {
        Compaction c;
        Version version;
        Running registration;
        // Picked and registered under the lock, like automatic picks, so withPicksHeld sees it.
        lock.lock();
        try {
            if (closed) {
                throw closedException.get();
            }
            version = versions.currentVersion(family);
            try {
                CompactionPicker picker = picker(family);
                c = picker == null ? null : picker.manual(version, level, begin, end, busy, intoItself);
            } catch (RuntimeException e) {
                version.release();
                throw e;
            }
            if (c == null) {
                version.release();
                return;
            }
            markBusy(c, true);
            registration = Running.of(family, c);
            registered.add(registration);
        } finally {
            lock.unlock();
        }
        try {
            run(family, c, version);
            onChange.run();
        } finally {
            version.release();
            lock.lock();
            try {
                markBusy(c, false);
                registered.remove(registration);
            } finally {
                lock.unlock();
            }
        }
    }

    private int lastNonEmptyLevel(int family) {
        Version version = versions.currentVersion(family);
        try {
            for (int level = Version.NUM_LEVELS - 1; level > 0; level--) {
                if (version.level(level).size() > 0) {
                    return level;
                }
            }
            return 0;
        } finally {
            version.release();
        }
    }

    /** Compaction debt, for write stalls. */
    long pendingBytes() {
        long total = 0;
        for (int family : versions.columnFamilies().keySet()) {
            Version version = currentVersion(family);
            CompactionPicker picker = picker(family);
            if (version != null) {
                try {
                    total += picker == null ? 0 : picker.pendingBytes(version);
                } finally {
                    version.release();
                }
            }
        }
        return total;
    }

    /** For tests and benchmarks: waits until no compaction is running or could be picked. */
    void awaitIdle() {
        while (true) {
            maybeSchedule();
            lock.lock();
            try {
                if (running == 0) {
                    if (closed || failed || paused > 0) {
                        return;
                    }
                    Picked picked = pickAny();
                    if (picked == null) {
                        return;
                    }
                    picked.version().release();
                    continue;
                }
                idle.awaitUninterruptibly();
            } finally {
                lock.unlock();
            }
        }
    }

    int completedCount() {
        return completed.get();
    }

    /**
     * Stops picking and refuses new manual compactions; waits, up to {@link #CLOSE_BOUND_MINUTES} minutes,
     * for running ones, automatic and manual (their results are installed), then stops the threads.
     */
    void close() {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(CLOSE_BOUND_MINUTES);
        lock.lock();
        try {
            closed = true;
            long remaining;
            while ((running > 0 || manualRunning > 0) && (remaining = deadline - System.nanoTime()) > 0) {
                idle.awaitNanos(remaining);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
        threads.shutdown();
        try {
            if (!threads.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
                    || !threadFactory.awaitEnded(deadline)) {
                log.log(System.Logger.Level.WARNING, "compactions did not finish within "
                        + CLOSE_BOUND_MINUTES + " minutes of close");
                threads.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            threads.shutdownNow();
        }
    }
}
