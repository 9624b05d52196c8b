package io.varve.core.version;

import io.varve.core.base.CorruptionException;
import io.varve.core.fs.FileSystem;
import io.varve.core.memtable.Memtable;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.StampedLock;
import java.util.function.LongFunction;
import java.util.function.UnaryOperator;

/**
 * Owns the sequence of versions, the manifest that makes them durable, and the publication of read views.
 *
 * <h2>The rule: guard invariants, not computations</h2>
 * RocksDB merged each edit into the file set — O(number of tables) — and destroyed old versions while
 * holding its global DB mutex; with hundreds of thousands of tables, readers waiting for that mutex saw
 * snapshot latencies of 100 ms. Here the only thing under a lock that readers can wait for is the swap of one
 * pointer:
 * <ol>
 *   <li><b>Edits are serialized by {@code manifestLock}</b>, which readers never touch. Under it, the new
 *       table lists are built ({@link Version#applied}, O(tables in the changed levels)) and the edit is
 *       appended to the manifest and fsynced.</li>
 *   <li><b>{@code viewLock}</b> serializes building the next {@link ReadView} from the current one — a few
 *       references (memtables and a version), never I/O. Memtable rotations take only this lock, so they
 *       never wait for a manifest sync.</li>
 *   <li><b>The {@link StampedLock} write lock is held only for the assignment</b> {@code current = next}.</li>
 *   <li><b>Readers</b> ({@link #acquire()}) take an optimistic stamp, read the pointer, validate, and add a
 *       reference with a CAS. They never block on flushes, compactions or manifest I/O; if a writer swapped
 *       in the meantime (validation fails) or the view they read was already released, they simply retry.</li>
 * </ol>
 * Lock order: manifestLock, then viewLock, then the stamped lock. The commit pipeline calls
 * {@link #publishMemtables} holding its log lock, which is never taken under any of these.
 *
 * <h2>Freeing happens later, elsewhere</h2>
 * The previous view is released after the swap, outside every lock. When the last reference to a view or a
 * version drops, the freeing is handed to the {@link Reclaimer} thread: memtable arenas, table unmapping
 * and file deletion never run on a reader's or writer's thread, nor under a lock.
 *
 * <h2>Finding obsolete tables without touching every table</h2>
 * Versions get increasing ids. A table removed by the edit that created version {@code r} is contained only
 * in versions older than {@code r}, so it is obsolete once the oldest live version is {@code r} or newer.
 * The reclaimer keeps removed tables ordered by {@code r} and, whenever a version dies, deletes those whose
 * {@code r} the oldest live version has passed. Creating or dropping a version therefore costs nothing per
 * table it merely contains — unlike per-table reference counts, which cost O(tables) for every version.
 * (A long-lived old version delays deletion of tables it never contained; that only delays reclaiming
 * space, never frees early.)
 */
public final class VersionSet implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(VersionSet.class.getName());

    private final FileSystem fs;
    private final Path dir;
    private final Reclaimer reclaimer;
    private final TableCache tableCache;
    private final LongFunction<Path> tablePath;

    private final ReentrantLock manifestLock = new ReentrantLock();
    private final ReentrantLock viewLock = new ReentrantLock();
    private final StampedLock swapLock = new StampedLock();

    /** Guarded by swapLock for writes; read optimistically. */
    private ReadView current;
    /** Guarded by manifestLock. */
    private Version currentVersion;
    private Manifest manifest;
    private long logNumber;
    private long lastSequence;
    private long nextVersionId;

    private final AtomicLong nextFileNumber;
    /** Versions not yet dead, by id; the first key is the oldest live version. */
    private final ConcurrentSkipListMap<Long, Version> live = new ConcurrentSkipListMap<>();
    /** Touched only on the reclaimer thread: tables removed by version r, in order of r. */
    private final ArrayDeque<long[]> removedTables = new ArrayDeque<>();

    private VersionSet(FileSystem fs, Path dir, Reclaimer reclaimer, TableCache tableCache,
                       LongFunction<Path> tablePath, long nextFileNumber) {
        this.fs = fs;
        this.dir = dir;
        this.reclaimer = reclaimer;
        this.tableCache = tableCache;
        this.tablePath = tablePath;
        this.nextFileNumber = new AtomicLong(nextFileNumber);
    }

    /** What recovery learned from the manifest. */
    public record Recovered(long logNumber, long lastSequence, long nextFileNumber, long manifestNumber,
                            VersionEdit tables) {

        /** Every table the manifest lists, for the open-time scan for leftover files. */
        public List<TableMeta> tableList() {
            return tables.added().stream().map(VersionEdit.Added::table).toList();
        }
    }

    /**
     * Reads the current manifest, if any. A directory without CURRENT is a new database. Any damage except a
     * torn last edit is a {@link CorruptionException}.
     */
    public static Recovered recover(FileSystem fs, Path dir) throws IOException {
        long manifestNumber = Manifest.currentNumber(fs, dir);
        if (manifestNumber < 0) {
            return new Recovered(0, 0, 1, -1, new VersionEdit());
        }
        List<VersionEdit> edits = Manifest.read(fs, dir, manifestNumber);
        long log = 0;
        long last = 0;
        long nextFile = manifestNumber + 1;
        // Map-based replay: O(total edits), where applying edit by edit to sorted arrays would be quadratic.
        List<Map<Long, TableMeta>> levels = new ArrayList<>();
        for (int i = 0; i < Version.NUM_LEVELS; i++) {
            levels.add(new LinkedHashMap<>());
        }
        Path manifestPath = Manifest.path(dir, manifestNumber);
        for (VersionEdit edit : edits) {
            log = Math.max(log, edit.logNumber());
            last = Math.max(last, edit.lastSequence());
            nextFile = Math.max(nextFile, edit.nextFileNumber());
            for (VersionEdit.Removed r : edit.removed()) {
                if (levels.get(r.level()).remove(r.fileNumber()) == null) {
                    throw new CorruptionException(manifestPath, 0, "edit removes table " + r.fileNumber()
                            + " that is not at level " + r.level());
                }
            }
            for (VersionEdit.Added a : edit.added()) {
                levels.get(a.level()).put(a.table().fileNumber(), a.table());
                nextFile = Math.max(nextFile, a.table().fileNumber() + 1);
            }
        }
        VersionEdit all = new VersionEdit();
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            for (TableMeta t : levels.get(level).values()) {
                all.add(level, t);
            }
        }
        return new Recovered(log, last, nextFile, manifestNumber, all);
    }

    /**
     * Starts the version set from what {@link #recover} read plus {@code openEdit} (tables flushed during
     * recovery, the new log number), writing a fresh manifest that holds the whole resulting version.
     */
    public static VersionSet open(FileSystem fs, Path dir, Recovered recovered, VersionEdit openEdit,
                                  Memtable mutable, Reclaimer reclaimer, TableCache tableCache,
                                  LongFunction<Path> tablePath, long nextFileNumber) throws IOException {
        VersionSet set = new VersionSet(fs, dir, reclaimer, tableCache, tablePath, nextFileNumber);
        // Temporary versions only carry the table arrays; the one kept starts with the set's own reference.
        LevelFiles[] recoveredLevels = Version.empty(set).applied(recovered.tables());
        Version v = new Version(2, new Version(1, recoveredLevels, set).applied(openEdit), set);
        set.nextVersionId = 3;
        set.currentVersion = v;
        set.live.put(v.id(), v);
        set.logNumber = Math.max(recovered.logNumber(), openEdit.logNumber());
        set.lastSequence = Math.max(recovered.lastSequence(), openEdit.lastSequence());

        long manifestNumber = set.nextFileNumber.getAndIncrement();
        set.manifest = Manifest.create(fs, dir, manifestNumber, set.snapshotEdit(v));
        if (recovered.manifestNumber() >= 0) {
            fs.delete(Manifest.path(dir, recovered.manifestNumber()));
        }
        set.current = new ReadView(mutable, List.of(), v, reclaimer);
        return set;
    }

    private VersionEdit snapshotEdit(Version v) {
        VersionEdit edit = new VersionEdit().logNumber(logNumber).lastSequence(lastSequence)
                .nextFileNumber(nextFileNumber.get());
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            for (TableMeta t : v.level(level)) {
                edit.add(level, t);
            }
        }
        return edit;
    }

    public long newFileNumber() {
        return nextFileNumber.getAndIncrement();
    }

    /** Logs numbered below this hold nothing that is not already in tables. */
    public long logNumber() {
        manifestLock.lock();
        try {
            return logNumber;
        } finally {
            manifestLock.unlock();
        }
    }

    /** The current read view with a reference owned by the caller. Never blocks on writers of views. */
    public ReadView acquire() {
        while (true) {
            long stamp = swapLock.tryOptimisticRead();
            ReadView view = current;
            if (stamp != 0 && swapLock.validate(stamp) && view != null && view.tryRetain()) {
                return view;
            }
            if (stamp == 0 || !swapLock.validate(stamp)) {
                // A swap is in progress or just happened: wait for it rather than spin.
                stamp = swapLock.readLock();
                try {
                    view = current;
                } finally {
                    swapLock.unlockRead(stamp);
                }
                if (view.tryRetain()) {
                    return view;
                }
            }
        }
    }

    /**
     * Publishes a new mutable memtable and the immutable set {@code immutables} computes from the current
     * one (rotation), with the current version. Cheap: no I/O, no table work.
     */
    public void publishMemtables(Memtable mutable, UnaryOperator<List<Memtable>> immutables) {
        ReadView old;
        viewLock.lock();
        try {
            ReadView next = new ReadView(mutable, immutables.apply(current.immutables()), current.version(), reclaimer);
            old = swap(next);
        } finally {
            viewLock.unlock();
        }
        old.release();
    }

    /**
     * Applies an edit: builds the new version outside every reader-visible lock, makes the edit durable in
     * the manifest, then publishes a view with the new version and the memtable set {@code memtables}
     * produces from the current view (e.g. without a flushed memtable).
     */
    public Version logAndApply(VersionEdit edit, UnaryOperator<List<Memtable>> memtables) throws IOException {
        ReadView old;
        Version next;
        manifestLock.lock();
        try {
            if (edit.logNumber() == VersionEdit.UNSET) {
                edit.logNumber(logNumber);
            }
            edit.lastSequence(Math.max(lastSequence, edit.lastSequence()));
            edit.nextFileNumber(nextFileNumber.get());
            LevelFiles[] levels = currentVersion.applied(edit);
            manifest.append(edit);
            logNumber = Math.max(logNumber, edit.logNumber());
            lastSequence = edit.lastSequence();
            next = new Version(nextVersionId++, levels, this);
            live.put(next.id(), next);
            if (!edit.removed().isEmpty()) {
                long removedBy = next.id();
                List<Long> numbers = edit.removed().stream().map(VersionEdit.Removed::fileNumber).toList();
                reclaimer.submit(() -> numbers.forEach(n -> removedTables.add(new long[] {n, removedBy})));
            }
            Version previous = currentVersion;
            currentVersion = next;
            viewLock.lock();
            try {
                ReadView view = current;
                List<Memtable> all = memtables.apply(view.immutables());
                old = swap(new ReadView(view.mutable(), all, next, reclaimer));
            } finally {
                viewLock.unlock();
            }
            // The version set's own reference moves to the new version; views hold theirs.
            previous.release();
        } finally {
            manifestLock.unlock();
        }
        old.release();
        return next;
    }

    private ReadView swap(ReadView next) {
        long stamp = swapLock.writeLock();
        try {
            ReadView old = current;
            current = next;
            return old;
        } finally {
            swapLock.unlockWrite(stamp);
        }
    }

    /** The current version, for background work that holds no view (retained for the caller). */
    public Version currentVersion() {
        ReadView view = acquire();
        try {
            Version v = view.version();
            v.retain();
            return v;
        } finally {
            view.release();
        }
    }

    /** Called by {@link Version#release()} on the last reference: the rest happens on the reclaimer thread. */
    void versionReleased(Version version) {
        reclaimer.submit(() -> {
            live.remove(version.id());
            long oldestLive = live.isEmpty() ? Long.MAX_VALUE : live.firstKey();
            while (!removedTables.isEmpty() && removedTables.peekFirst()[1] <= oldestLive) {
                long fileNumber = removedTables.pollFirst()[0];
                tableCache.evict(fileNumber);
                try {
                    fs.delete(tablePath.apply(fileNumber));
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.WARNING, "could not delete obsolete table " + fileNumber, e);
                }
            }
        });
    }

    /** Number of versions still referenced, the current one included; for tests and metrics. */
    public int liveVersionCount() {
        return live.size();
    }

    /**
     * Releases the current view. Readers still holding views finish normally; their memory is freed by the
     * reclaimer when they release.
     */
    @Override
    public void close() throws IOException {
        ReadView last;
        manifestLock.lock();
        try {
            viewLock.lock();
            try {
                last = current;
            } finally {
                viewLock.unlock();
            }
            manifest.close();
        } finally {
            manifestLock.unlock();
        }
        last.release();
        currentVersion.release();
    }
}
