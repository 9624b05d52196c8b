package io.varve.core.internal.version;

import io.varve.base.CorruptionException;
import io.varve.base.fs.FileSystem;
import io.varve.core.internal.memtable.Memtable;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.LongFunction;
import java.util.function.UnaryOperator;

/**
 * Owns the sequence of versions, the manifest that makes them durable, and the publication of read views,
 * for every column family. Each family ({@link ColumnFamilyVersions}) has its own current version, read view
 * and stamped lock; they share the manifest, the file numbers, the version ids and the reclaimer.
 *
 * <h2>The rule: guard invariants, not computations</h2>
 * RocksDB merged each edit into the file set — O(number of tables) — and destroyed old versions while
 * holding its global DB mutex; with hundreds of thousands of tables, readers waiting for that mutex saw
 * snapshot latencies of 100 ms. Here the only thing under a lock that readers can wait for is the swap of one
 * pointer:
 * <ol>
 *   <li><b>Edits are serialized by {@code manifestLock}</b>, which readers never touch. Under it, the new
 *       table lists are built ({@link Version#applied}: per changed level, a copy of the touched chunks and the chunk directory of a {@link LevelFiles}, not of the level) and the edit is
 *       appended to the manifest and fsynced.</li>
 *   <li><b>{@code viewLock}</b> serializes building the next {@link ReadView} from the current one — a few
 *       references (memtables and a version), never I/O. Memtable rotations take only this lock, so they
 *       never wait for a manifest sync.</li>
 *   <li><b>A family's {@link PublishedView} holds its stamped lock's write side only for the assignment</b>
 *       of the next view.</li>
 *   <li><b>Readers</b> ({@link #acquire()}) take an optimistic stamp, read the pointer, validate, and add a
 *       reference with a CAS ({@link PublishedView#acquire}). They never block on flushes, compactions or
 *       manifest I/O; if a publisher swapped in the meantime or the view they read was already released, they
 *       retry.</li>
 * </ol>
 * Lock order: manifestLock, then viewLock, then a family's stamped lock. The commit pipeline calls
 * {@link #publishMemtables} holding its log lock, which is never taken under any of these.
 *
 * <h2>Freeing happens later, elsewhere</h2>
 * The previous view is released after the swap, outside every lock. When the last reference to a view or a
 * version drops, the freeing is handed to the {@link Reclaimer} thread: memtable arenas, table unmapping
 * and file deletion never run on a reader's or writer's thread, nor under a lock.
 *
 * <h2>Obsolete tables</h2>
 * {@link ObsoleteTables} deletes a table once no live version lists it, without per-table reference counts.
 *
 * <h2>Closing</h2>
 * {@link #close()} sets {@code closed} and uninstalls every family's view under the swap lock: from then on
 * {@link #acquire} throws the closed state instead of retrying on a view that can never be retained again,
 * and edits, family changes and memtable publications are refused. Views still held finish normally.
 */
public final class VersionSet implements AutoCloseable {

    /** The column family every single-family call uses; it always exists and cannot be dropped. */
    public static final int DEFAULT_FAMILY = 0;
    public static final String DEFAULT_FAMILY_NAME = "default";

    private final FileSystem fs;
    private final Path dir;
    private final Reclaimer reclaimer;

    private final ReentrantLock manifestLock = new ReentrantLock();
    private final ReentrantLock viewLock = new ReentrantLock();

    /** Live families by id (null slots: dropped or never used). Replaced, never mutated, under manifestLock. */
    private volatile ColumnFamilyVersions[] families = new ColumnFamilyVersions[0];
    /** Guarded by manifestLock. */
    private Manifest manifest;
    private long lastSequence;
    private long nextVersionId;
    private int nextFamilyId;

    private final AtomicLong nextFileNumber;
    private final ObsoleteTables obsolete;
    /** Set once, under manifestLock and viewLock, before the views are uninstalled. */
    private volatile boolean closed;
    private final LongAdder acquisitions = new LongAdder();

    private VersionSet(FileSystem fs, Path dir, Reclaimer reclaimer, TableCache tableCache,
                       LongFunction<Path> tablePath, long nextFileNumber) {
        this.fs = fs;
        this.dir = dir;
        this.reclaimer = reclaimer;
        this.nextFileNumber = new AtomicLong(nextFileNumber);
        this.obsolete = new ObsoleteTables(fs, reclaimer, tableCache, tablePath);
    }


    /** The number of the manifest CURRENT names, or -1 when {@code dir} has no CURRENT. */
    public static long currentManifestNumber(FileSystem fs, Path dir) throws IOException {
        return Manifest.currentNumber(fs, dir);
    }

    /** The path of manifest {@code number} in {@code dir}. */
    public static Path manifestPath(Path dir, long number) {
        return Manifest.path(dir, number);
    }


    /**
     * Reads the current manifest, if any. A directory without CURRENT is a new database. Any damage except a
     * torn last edit is a {@link CorruptionException}.
     */
    public static RecoveredManifest recover(FileSystem fs, Path dir) throws IOException {
        return ManifestRecovery.recover(fs, dir);
    }

    /** Single-family form of {@link #open(FileSystem, Path, RecoveredManifest, List, Map, Reclaimer, TableCache, LongFunction, long)}. */
    public static VersionSet open(FileSystem fs, Path dir, RecoveredManifest recovered, VersionEdit openEdit,
                                  Memtable mutable, Reclaimer reclaimer, TableCache tableCache,
                                  LongFunction<Path> tablePath, long nextFileNumber) throws IOException {
        return open(fs, dir, recovered, List.of(openEdit), Map.of(DEFAULT_FAMILY, mutable), reclaimer, tableCache,
                tablePath, nextFileNumber);
    }

    /**
     * Starts the version set from what {@link #recover} read plus {@code openEdits} (per family: tables flushed
     * during recovery, the new log number), writing a fresh manifest that holds the whole resulting state.
     * {@code mutables} gives each recovered family its first mutable memtable (the views take their own
     * references).
     */
    public static VersionSet open(FileSystem fs, Path dir, RecoveredManifest recovered, List<VersionEdit> openEdits,
                                  Map<Integer, Memtable> mutables, Reclaimer reclaimer, TableCache tableCache,
                                  LongFunction<Path> tablePath, long nextFileNumber) throws IOException {
        VersionSet set = new VersionSet(fs, dir, reclaimer, tableCache, tablePath, nextFileNumber);
        set.install(recovered, openEdits, id -> {
            Memtable mutable = mutables.get(id);
            if (mutable == null) {
                throw new IllegalArgumentException("no mutable memtable for column family " + id);
            }
            return List.of(mutable);
        });
        long manifestNumber = set.nextFileNumber.getAndIncrement();
        try {
            set.manifest = Manifest.create(fs, dir, manifestNumber, set.snapshotEdits());
        } catch (IOException | RuntimeException e) {
            set.close(); // the views already hold the memtables' arenas and the tables' mappings
            throw e;
        }
        if (recovered.manifestNumber() >= 0) {
            fs.delete(Manifest.path(dir, recovered.manifestNumber()));
        }
        return set;
    }

    /**
     * Starts a version set over {@code recovered} exactly as the manifest describes it, for a read-only
     * database: no manifest is written or opened, and nothing is ever deleted, because the set must never
     * receive an edit (nothing calls the edit, family or publication methods on it). {@code memtables} gives
     * each family its memtables newest first (at least one; the views take their own references): the first
     * fills the mutable slot of the family's view, though nothing writes to it.
     */
    public static VersionSet openReadOnly(FileSystem fs, Path dir, RecoveredManifest recovered,
                                          IntFunction<List<Memtable>> memtables, Reclaimer reclaimer,
                                          TableCache tableCache, LongFunction<Path> tablePath) {
        VersionSet set = new VersionSet(fs, dir, reclaimer, tableCache, tablePath, recovered.nextFileNumber());
        set.install(recovered, List.of(), memtables);
        return set;
    }

    /**
     * Builds each recovered family's first version ({@code recovered} plus its {@code openEdits}) and view
     * ({@code memtables}: newest first, the first in the mutable slot).
     */
    private void install(RecoveredManifest recovered, List<VersionEdit> openEdits, IntFunction<List<Memtable>> memtables) {
        nextVersionId = 1;
        nextFamilyId = recovered.nextFamilyId();
        lastSequence = recovered.lastSequence();
        int maxId = recovered.families().stream().mapToInt(RecoveredFamily::id).max().orElse(0);
        ColumnFamilyVersions[] installed = new ColumnFamilyVersions[maxId + 1];
        for (RecoveredFamily rf : recovered.families()) {
            ColumnFamilyVersions family = new ColumnFamilyVersions(rf.id(), rf.name());
            // Temporary versions only carry the table arrays; the one kept starts with the set's own reference.
            LevelFiles[] levels = Version.empty(this).applied(rf.tables());
            family.logNumber = rf.logNumber();
            for (VersionEdit openEdit : openEdits) {
                if (openEdit.columnFamily() == rf.id()) {
                    levels = new Version(0, levels, this).applied(openEdit);
                    family.logNumber = Math.max(family.logNumber, openEdit.logNumber());
                    lastSequence = Math.max(lastSequence, openEdit.lastSequence());
                }
            }
            Version v = new Version(nextVersionId++, levels, this);
            family.currentVersion = v;
            family.live.put(v.id(), v);
            obsolete.track(family);
            List<Memtable> views = memtables.apply(rf.id());
            family.view = new PublishedView(new ReadView(views.getFirst(), views.subList(1, views.size()), v, reclaimer));
            installed[rf.id()] = family;
        }
        families = installed;
    }

    /** The whole state as edits, one per family, the default first: a new manifest's opening records. */
    private List<VersionEdit> snapshotEdits() {
        List<VersionEdit> edits = new ArrayList<>();
        for (ColumnFamilyVersions family : families) {
            if (family == null) {
                continue;
            }
            VersionEdit edit = new VersionEdit().columnFamily(family.id).logNumber(family.logNumber);
            if (family.id == DEFAULT_FAMILY) {
                edit.lastSequence(lastSequence).nextFileNumber(nextFileNumber.get()).nextColumnFamily(nextFamilyId);
            } else {
                edit.addColumnFamily(family.name);
            }
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                for (TableMeta t : family.currentVersion.level(level)) {
                    edit.add(level, t);
                }
            }
            edits.add(edit);
        }
        return edits;
    }

    public long newFileNumber() {
        return nextFileNumber.getAndIncrement();
    }

    /** Logs numbered below this hold nothing of any family that is not already in tables. */
    public long logNumber() {
        manifestLock.lock();
        try {
            long min = Long.MAX_VALUE;
            for (ColumnFamilyVersions family : families) {
                if (family != null) {
                    min = Math.min(min, family.logNumber);
                }
            }
            return min;
        } finally {
            manifestLock.unlock();
        }
    }

    /** The live column families, id to name, in id order. */
    public Map<Integer, String> columnFamilies() {
        Map<Integer, String> result = new LinkedHashMap<>();
        for (ColumnFamilyVersions family : families) {
            if (family != null) {
                result.put(family.id, family.name);
            }
        }
        return result;
    }

    private ColumnFamilyVersions family(int id) {
        ColumnFamilyVersions[] all = families;
        ColumnFamilyVersions family = id >= 0 && id < all.length ? all[id] : null;
        if (family == null || family.dropped) {
            throw new IllegalArgumentException("column family " + id + " does not exist or was dropped");
        }
        return family;
    }

    /** Runs {@code action} on each live family's current view, pinned for the call (dropped families are skipped). */
    public void forEachView(Consumer<ReadView> action) {
        for (int family : columnFamilies().keySet()) {
            ReadView view;
            try {
                view = acquire(family);
            } catch (IllegalArgumentException dropped) {
                continue;
            }
            try {
                action.accept(view);
            } finally {
                view.release();
            }
        }
    }

    /** The default family's current read view; see {@link #acquire(int)}. */
    public ReadView acquire() {
        return acquire(DEFAULT_FAMILY);
    }

    /**
     * The current read view of column family {@code id} with a reference owned by the caller. Never blocks on
     * writers of views.
     *
     * @throws IllegalArgumentException if the family does not exist or was dropped
     * @throws IllegalStateException once the version set is closed
     */
    public ReadView acquire(int id) {
        if (closed) {
            throw closedException();
        }
        ColumnFamilyVersions family = family(id);
        acquisitions.increment();
        ReadView view = family.view.acquire(() -> closed || family.dropped);
        if (view != null) {
            return view;
        }
        if (closed) {
            throw closedException();
        }
        throw new IllegalArgumentException("column family " + family.name + " was dropped");
    }

    private static IllegalStateException closedException() {
        return new IllegalStateException("database is closed");
    }

    /** Caller holds manifestLock or viewLock. */
    private void checkOpen() {
        if (closed) {
            throw closedException();
        }
    }

    /** {@link #checkOpen()}, and refuses edits to a read-only set, which has no manifest to log them in. */
    private void checkWritable() {
        checkOpen();
        if (manifest == null) {
            throw new IllegalStateException("the version set of read-only " + dir + " takes no edits");
        }
    }

    /**
     * Publishes a new mutable memtable for family {@code id} and the immutable set {@code immutables}
     * computes from the current one (rotation), with the current version. Cheap: no I/O, no table work.
     * A dropped family is skipped (its memtables are released by the caller's reference counting).
     */
    public void publishMemtables(int id, Memtable mutable, UnaryOperator<List<Memtable>> immutables) {
        ReadView old;
        viewLock.lock();
        try {
            ColumnFamilyVersions[] all = families;
            ColumnFamilyVersions family = id < all.length ? all[id] : null;
            ReadView current = family == null ? null : family.view.peek();
            if (current == null) {
                return; // dropped, or closed
            }
            ReadView next = new ReadView(mutable, immutables.apply(current.immutables()), current.version(), reclaimer);
            old = family.view.swap(next);
        } finally {
            viewLock.unlock();
        }
        old.release();
    }

    /** Default-family form of {@link #publishMemtables(int, Memtable, UnaryOperator)}. */
    public void publishMemtables(Memtable mutable, UnaryOperator<List<Memtable>> immutables) {
        publishMemtables(DEFAULT_FAMILY, mutable, immutables);
    }

    /** One family's edit plus how its immutable memtables change when it is published (e.g. a flushed one leaves). */
    public record Change(VersionEdit edit, UnaryOperator<List<Memtable>> memtables) {
    }

    /**
     * Applies an edit to its column family: builds the new version outside every reader-visible lock, makes
     * the edit durable in the manifest, then publishes a view with the new version and the memtable set
     * {@code memtables} produces from the current view.
     */
    public Version logAndApply(VersionEdit edit, UnaryOperator<List<Memtable>> memtables) throws IOException {
        List<Version> created = logAndApply(List.of(new Change(edit, memtables)));
        return created.isEmpty() ? null : created.getFirst();
    }

    /**
     * Applies several edits (e.g. one flush's, one per family) with a single manifest sync; each family's new
     * view is published after the sync. An edit for a family dropped meanwhile is not logged, and the tables it
     * adds are deleted: nothing can read them.
     *
     * @return the versions created, one per applied edit (not retained: valid while current or pinned)
     */
    public List<Version> logAndApply(List<Change> changes) throws IOException {
        List<ReadView> old = new ArrayList<>();
        List<Version> created = new ArrayList<>();
        manifestLock.lock();
        try {
            checkWritable();
            List<Change> applicable = new ArrayList<>();
            List<LevelFiles[]> levels = new ArrayList<>();
            List<VersionEdit> edits = new ArrayList<>();
            for (Change change : changes) {
                VersionEdit edit = change.edit();
                ColumnFamilyVersions[] all = families;
                int id = edit.columnFamily();
                ColumnFamilyVersions family = id < all.length ? all[id] : null;
                if (family == null) {
                    obsolete.deleteOrphans(edit);
                    continue;
                }
                if (edit.logNumber() == VersionEdit.UNSET) {
                    edit.logNumber(family.logNumber);
                }
                edit.logNumber(Math.max(edit.logNumber(), family.logNumber));
                edit.lastSequence(Math.max(lastSequence, edit.lastSequence()));
                edit.nextFileNumber(nextFileNumber.get());
                levels.add(family.currentVersion.applied(edit));
                applicable.add(change);
                edits.add(edit);
            }
            if (edits.isEmpty()) {
                return created;
            }
            manifest.append(edits);
            for (int i = 0; i < applicable.size(); i++) {
                VersionEdit edit = edits.get(i);
                ColumnFamilyVersions family = families[edit.columnFamily()];
                family.logNumber = edit.logNumber();
                lastSequence = Math.max(lastSequence, edit.lastSequence());
                Version next = new Version(nextVersionId++, levels.get(i), this);
                family.live.put(next.id(), next);
                created.add(next);
                obsolete.scheduleRemoval(family, edit.tablesLeaving(), next.id());
                Version previous = family.currentVersion;
                family.currentVersion = next;
                viewLock.lock();
                try {
                    ReadView view = family.view.peek();
                    List<Memtable> memtables = applicable.get(i).memtables().apply(view.immutables());
                    old.add(family.view.swap(new ReadView(view.mutable(), memtables, next, reclaimer)));
                } finally {
                    viewLock.unlock();
                }
                // The version set's own reference moves to the new version; views hold theirs.
                previous.release();
            }
        } finally {
            manifestLock.unlock();
        }
        old.forEach(ReadView::release);
        return created;
    }

    /**
     * Applies to family {@code id} the edit {@code decide} computes from the family's current version, under
     * the manifest lock: no other edit can land between the decision and its installation, so a decision
     * that depends on the version (where an ingested table may go) stays valid. {@code decide} runs under the
     * lock and must be quick and do no I/O; it returns null to log nothing.
     *
     * @return whether an edit was applied
     * @throws IllegalArgumentException if the family does not exist or was dropped
     */
    public boolean logAndApply(int id, Function<Version, VersionEdit> decide) throws IOException {
        manifestLock.lock();
        try {
            checkWritable();
            VersionEdit edit = decide.apply(family(id).currentVersion);
            if (edit == null) {
                return false;
            }
            if (edit.columnFamily() != id) {
                throw new IllegalArgumentException("edit for column family " + edit.columnFamily() + " given for " + id);
            }
            logAndApply(List.of(new Change(edit, memtables -> memtables))); // manifestLock is reentrant
            return true;
        } finally {
            manifestLock.unlock();
        }
    }

    /**
     * Creates column family {@code name}, durable once this returns, with {@code mutable} as its first
     * memtable (the view takes its own reference). {@code logNumber}: the log its first writes go to.
     *
     * @return the new family's id
     * @throws IllegalArgumentException if a live family already has that name
     */
    public int createColumnFamily(String name, long logNumber, Memtable mutable) throws IOException {
        manifestLock.lock();
        try {
            checkWritable();
            for (ColumnFamilyVersions family : families) {
                if (family != null && family.name.equals(name)) {
                    throw new IllegalArgumentException("column family '" + name + "' already exists");
                }
            }
            int id = nextFamilyId;
            // The caller's log number may lag behind a rotation whose flush already deleted that log. Never
            // record one below every other family's: the oldest needed log must exist (see ManifestCheck), and
            // the new family has nothing in logs older than the current one anyway.
            long oldestNeeded = Long.MAX_VALUE;
            for (ColumnFamilyVersions other : families) {
                if (other != null) {
                    oldestNeeded = Math.min(oldestNeeded, other.logNumber);
                }
            }
            if (oldestNeeded != Long.MAX_VALUE) {
                logNumber = Math.max(logNumber, oldestNeeded);
            }
            VersionEdit edit = new VersionEdit().columnFamily(id).addColumnFamily(name).logNumber(logNumber)
                    .lastSequence(lastSequence).nextFileNumber(nextFileNumber.get()).nextColumnFamily(id + 1);
            manifest.append(List.of(edit));
            nextFamilyId = id + 1;
            ColumnFamilyVersions family = new ColumnFamilyVersions(id, name);
            family.logNumber = logNumber;
            Version v = new Version(nextVersionId++, Version.empty(this).applied(new VersionEdit()), this);
            family.live.put(v.id(), v);
            obsolete.track(family);
            family.currentVersion = v;
            family.view = new PublishedView(new ReadView(mutable, List.of(), v, reclaimer));
            ColumnFamilyVersions[] grown = Arrays.copyOf(families, Math.max(families.length, id + 1));
            grown[id] = family;
            families = grown;
            return id;
        } finally {
            manifestLock.unlock();
        }
    }

    /**
     * Drops column family {@code id}, durably. Reads and iterators already holding its views finish normally;
     * new acquisitions fail. Its tables are deleted once no version that lists them is live.
     */
    public void dropColumnFamily(int id) throws IOException {
        if (id == DEFAULT_FAMILY) {
            throw new IllegalArgumentException("the default column family cannot be dropped");
        }
        ReadView last;
        manifestLock.lock();
        try {
            checkWritable();
            ColumnFamilyVersions family = family(id);
            manifest.append(List.of(new VersionEdit().columnFamily(id).dropColumnFamily()
                    .lastSequence(lastSequence).nextFileNumber(nextFileNumber.get())));
            // Every version of this family has a smaller id, so its tables go once all of those are dead.
            long removedBy = nextVersionId++;
            List<Long> tables = new ArrayList<>();
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                for (TableMeta t : family.currentVersion.level(level)) {
                    tables.add(t.fileNumber());
                }
            }
            obsolete.scheduleRemoval(family, tables, removedBy);
            viewLock.lock();
            try {
                last = family.view.withdraw(() -> family.dropped = true);
            } finally {
                viewLock.unlock();
            }
            ColumnFamilyVersions[] shrunk = families.clone();
            shrunk[id] = null;
            families = shrunk;
            family.currentVersion.release();
        } finally {
            manifestLock.unlock();
        }
        last.release();
    }


    /** The default family's current version; see {@link #currentVersion(int)}. */
    public Version currentVersion() {
        return currentVersion(DEFAULT_FAMILY);
    }

    /** Family {@code id}'s current version, for background work that holds no view (retained for the caller). */
    public Version currentVersion(int id) {
        ReadView view = acquire(id);
        try {
            Version v = view.version();
            v.retain();
            return v;
        } finally {
            view.release();
        }
    }

    /**
     * Every live family's current version, log number and the counters, all taken under the manifest lock so
     * they describe one state (one flush's edits for all families land together). The versions are retained:
     * obsolete-table deletion cannot remove a table they list until {@link PinnedState#release()}.
     */
    public PinnedState pinState() {
        manifestLock.lock();
        try {
            checkOpen();
            List<PinnedState.Family> pinned = new ArrayList<>();
            for (ColumnFamilyVersions family : families) {
                if (family != null) {
                    family.currentVersion.retain();
                    pinned.add(new PinnedState.Family(family.id, family.name, family.logNumber, family.currentVersion));
                }
            }
            return new PinnedState(lastSequence, nextFileNumber.get(), nextFamilyId, pinned);
        } finally {
            manifestLock.unlock();
        }
    }

    /** Called by {@link Version#release()} on the last reference. */
    void versionReleased(Version version) {
        obsolete.versionReleased(version);
    }

    /** Calls of {@link #acquire()} so far, for metrics. */
    public long readViewAcquisitions() {
        return acquisitions.sum();
    }

    /** Number of versions still referenced, the current ones included; for tests and metrics. */
    public int liveVersionCount() {
        return obsolete.liveVersionCount();
    }

    /**
     * Uninstalls and releases the current views and versions, and closes the manifest. Idempotent. Readers
     * still holding views finish normally (their memory is freed by the reclaimer when they release); new
     * acquisitions and edits throw {@link IllegalStateException}.
     */
    @Override
    public void close() throws IOException {
        List<ReadView> last = new ArrayList<>();
        List<Version> versions = new ArrayList<>();
        manifestLock.lock();
        try {
            if (closed) {
                return;
            }
            viewLock.lock();
            try {
                closed = true;
                for (ColumnFamilyVersions family : families) {
                    if (family != null) {
                        last.add(family.view.swap(null));
                        versions.add(family.currentVersion);
                    }
                }
            } finally {
                viewLock.unlock();
            }
            if (manifest != null) { // null: read-only, or the open failed creating it
                manifest.close();
            }
        } finally {
            manifestLock.unlock();
            // Even when closing the manifest failed (after a crash, say): the views hold arenas and mappings.
            last.forEach(ReadView::release);
            versions.forEach(Version::release);
        }
    }
}
