package io.varve.replication;

import com.alipay.sofa.jraft.Closure;
import com.alipay.sofa.jraft.Iterator;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.core.StateMachineAdapter;
import com.alipay.sofa.jraft.entity.LeaderChangeContext;
import com.alipay.sofa.jraft.error.RaftError;
import com.alipay.sofa.jraft.error.RaftException;
import com.alipay.sofa.jraft.storage.snapshot.SnapshotReader;
import com.alipay.sofa.jraft.storage.snapshot.SnapshotWriter;
import io.varve.base.fs.DiskFileSystem;
import io.varve.core.ColumnFamily;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.core.backup.TableExport;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.sst.TableOptions;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;

/**
 * The Raft state machine of one group: an engine-core {@link Db}.
 *
 * <p><b>Applying.</b> Each committed entry is a {@link CommandCodec command}. The entries of one
 * {@code onApply} call are gathered into one {@link WriteBatch} (cut at {@link #MAX_BATCH_BYTES}) together with
 * the index of the last of them, stored under {@link #APPLIED_KEY} in the internal family {@link #STATE_FAMILY},
 * and written with {@link WriteOptions#DEFAULT}: the Raft log, synced before an entry can commit, is what makes
 * a write durable, so the database's own log need not be synced (docs/durability.md, "Replicated writes").
 * Because the index and the effects are one atomic batch, the database always holds the state after exactly
 * the entries up to its stored index. After a restart jraft replays the log from its last snapshot, and
 * entries at or below the stored index are skipped, so replay is idempotent.
 *
 * <p><b>Snapshots.</b> Saving exports every user family at one database snapshot as external tables into
 * jraft's snapshot directory, with a {@link SnapshotManifest}, and registers each file with the writer so
 * jraft's own copier ships them to a follower. Loading (a follower installing a leader's snapshot) clears the
 * state and ingests the tables; it is skipped when the database already holds a state at or after the
 * snapshot, which is what happens on every restart. A load first records applied index 0, synced, so a crash
 * in the middle leaves a state that the next start reloads instead of trusting.
 *

 * <p><b>Snapshots of a group sharing its database</b> cover only the group's {@link GroupShare}: saving exports
 * the key ranges of the default family the share names, each range's tables listed with it in the manifest
 * beside the share's state; loading asks the share for its install steps and replaces the ranges each names
 * only — one atomic batch of range deletions, then one ingestion of their tables — running the step's
 * actions around it (the last hands the share its state), so the other groups' keys, and their applied
 * indexes, are never touched. Both run on this group's state-machine
 * thread, so no entry of the group applies meanwhile; the other groups keep applying to their own ranges. The
 * crash protocol is the same (applied index 0 first, synced): after a crash anywhere in a load, jraft hands the
 * same snapshot to the next start, whose load asks the share again, deletes the ranges again, whatever of the
 * earlier attempt's deletions and tables survived, and ingests afresh. A group opened without a share refuses
 * snapshots, since a snapshot of the whole database would carry the other groups' data.
 *
 * <p><b>Gating.</b> A group sharing its database may have an {@link ApplyGate}: each entry's operations pass it
 * before they are gathered, and a refused entry adds nothing but its index, its proposer answered at once with
 * {@link #REFUSED}.
 *
 * <p><b>Listening.</b> An {@link ApplyListener} hears of every applied operation after its batch is written
 * and before the applied index moves and the proposers are answered, and of every loaded snapshot before its
 * index is stored; so anything that waited for an index (a read index, a write) finds it told.
 *
 * <p><b>Threads.</b> jraft calls {@code onApply}, {@code onSnapshotSave} and {@code onSnapshotLoad} from its
 * one state-machine thread. Readers take {@link #read} under a read lock that a load holds exclusively, so a
 * read never sees the half-cleared state of a load in progress. A shared group's load lets go of it while a
 * step's first action runs ({@link GroupShare.InstallStep#before}, which may wait for other groups of the
 * process): the state is whole then (every earlier step done, this one not begun), and a reader holding this
 * group's lock while it waits for another group's must not hold up that group's own load, which may be what
 * the action waits for.
 */
final class DbStateMachine extends StateMachineAdapter {
    static final String STATE_FAMILY = ReplicatedBatch.RESERVED_PREFIX + "raft";
    static final byte[] APPLIED_KEY = {'a', 'p', 'p', 'l', 'i', 'e', 'd'};
    static final long MAX_BATCH_BYTES = 4 << 20;
    private static final long SNAPSHOT_TABLE_BYTES = 64L << 20;
    private static final int CLEAR_BATCH = 1024;
    private static final System.Logger LOG = System.getLogger(DbStateMachine.class.getName());
    /** The message of the status a refused entry's proposer gets ({@link ApplyGate}). */
    static final String REFUSED = "refused by the group's apply gate";

    /** The points of a snapshot load a crash can fall between, in order. */
    enum LoadStep {
        /** Applied index 0 is synced; the user families still hold the old state. */
        APPLIED_ZERO_STORED,
        /** The user families are emptied (a shared group: a step's ranges deleted); nothing ingested yet. */
        FAMILIES_CLEARED,
        /**
         * One family's tables are ingested (reached once per family, in the manifest's order; for a shared
         * group, once per step of its share's install, each step's tables going in one ingestion).
         */
        FAMILY_INGESTED,
        /** Every table is ingested; the snapshot's applied index is not yet stored. */
        TABLES_INGESTED,
        /** The snapshot's applied index is stored (not synced); the load is about to return. */
        INDEX_STORED
    }

    /**
     * Observes a snapshot load step by step, on the state-machine thread. Tests use it to crash a member at
     * each step; a probe that throws fails the load as a database error would.
     */
    @FunctionalInterface
    interface LoadProbe {
        LoadProbe NONE = step -> { };

        void reached(LoadStep step);
    }

    private final Db db;
    private final LoadProbe probe;
    private final ColumnFamily state;
    /** Where the applied index is stored: {@link #APPLIED_KEY}, or a key of the group's own in a shared database. */
    private final byte[] appliedKey;
    /** The database is shared with other groups: snapshots cover {@link #share} or are refused. */
    private final boolean shared;
    /** A shared group's part of the database, for snapshots; null refuses them. */
    private final GroupShare share;
    private final ApplyGate gate;
    private final ReadWriteLock loadLock = new ReentrantReadWriteLock();
    private final String name;
    private volatile long appliedIndex;
    private volatile long leaderTerm = -1;
    /** The newest term this node has led or followed a leader in. */
    private volatile long term;
    private final AtomicLong entriesApplied = new AtomicLong();
    private final AtomicLong entriesSkipped = new AtomicLong();
    private final AtomicLong snapshotsLoaded = new AtomicLong();
    /** Leaders this node has taken up since it opened: itself (onLeaderStart) or another (onStartFollowing). */
    private final AtomicLong leaderChanges = new AtomicLong();
    private volatile ApplyListener listener = ApplyListener.NONE;
    /** The operations gathered in the batch not yet written: the listener hears of them once it is. */
    private final List<ReplicatedBatch.Op> pending = new ArrayList<>();
    /** Completed when this node becomes leader; replaced by a fresh one when it stops being leader. */
    private CompletableFuture<Long> leadership = new CompletableFuture<>();
    /** Told when this node stops being leader. */
    private final List<Runnable> leadershipLost = new CopyOnWriteArrayList<>();

    DbStateMachine(Db db, String name) {
        this(db, name, LoadProbe.NONE);
    }

    DbStateMachine(Db db, String name, LoadProbe probe) {
        this(db, name, probe, APPLIED_KEY, false, ApplyGate.OPEN, null);
    }

    /**
     * The state machine of group {@code group} in a database other groups apply to as well: its applied
     * index is stored under {@code applied/<group>}, each entry passes {@code gate}, and its snapshots cover
     * {@code share} (null: it takes and loads none).
     */
    static DbStateMachine shared(Db db, String group, String name, ApplyGate gate, GroupShare share,
                                 LoadProbe probe) {
        return new DbStateMachine(db, name, probe, appliedKey(group), true, gate, share);
    }

    /** Where a group sharing its database stores its applied index, in {@link #STATE_FAMILY}. */
    static byte[] appliedKey(String group) {
        return ("applied/" + group).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private DbStateMachine(Db db, String name, LoadProbe probe, byte[] appliedKey, boolean shared,
                           ApplyGate gate, GroupShare share) {
        this.db = db;
        this.name = name;
        this.probe = probe;
        this.appliedKey = appliedKey;
        this.shared = shared;
        this.gate = gate;
        this.share = share;
        this.state = db.columnFamily(STATE_FAMILY)
                .orElseGet(() -> db.createColumnFamily(STATE_FAMILY, ColumnFamilyOptions.defaults()));
        byte[] stored = db.get(state, appliedKey);
        this.appliedIndex = stored == null ? 0 : ByteBuffer.wrap(stored).getLong();
    }

    /** The index of the last entry whose effects are in the database. */
    long appliedIndex() {
        return appliedIndex;
    }

    boolean isLeader() {
        return leaderTerm > 0;
    }

    long leaderTerm() {
        return leaderTerm;
    }

    long term() {
        return term;
    }

    /** Entries written to the database since this node opened (not those skipped as already applied). */
    long entriesApplied() {
        return entriesApplied.get();
    }

    /** Test hook: entries skipped as already applied. */
    long entriesSkipped() {
        return entriesSkipped.get();
    }

    long snapshotsLoaded() {
        return snapshotsLoaded.get();
    }

    long leaderChanges() {
        return leaderChanges.get();
    }

    void listener(ApplyListener listener) {
        this.listener = listener;
    }

    /** Runs a read of the database that must not overlap a snapshot load. */
    <T> T read(Function<Db, T> reader) {
        loadLock.readLock().lock();
        try {
            return reader.apply(db);
        } finally {
            loadLock.readLock().unlock();
        }
    }

    @Override
    public void onApply(Iterator iter) {
        WriteBatch batch = new WriteBatch();
        List<Closure> dones = new ArrayList<>();
        long last = -1;
        try {
            while (iter.hasNext()) {
                long index = iter.getIndex();
                if (index <= appliedIndex) {
                    entriesSkipped.incrementAndGet();
                    complete(iter.done(), Status.OK());
                    iter.next();
                    continue;
                }
                List<ReplicatedBatch.Op> ops;
                try {
                    ops = CommandCodec.decode(bytes(iter.getData()));
                } catch (IllegalArgumentException e) {
                    commit(batch, last, dones);
                    LOG.log(Level.ERROR, name + ": entry " + index + " is not a command; stopping the node", e);
                    // jraft fails this entry's closure and every later one, and stops the node.
                    iter.setErrorAndRollback(1, new Status(RaftError.ESTATEMACHINE, "entry %d: %s", index,
                            e.getMessage()));
                    return;
                }
                ops = gate.admit(index, ops);
                if (ops == null) {
                    complete(iter.done(), new Status(RaftError.ECANCELED, REFUSED));
                    last = index;
                    iter.next();
                    continue;
                }
                for (ReplicatedBatch.Op op : ops) {
                    ColumnFamily family = familyFor(op.family());
                    if (op.value() != null) {
                        batch.put(family, op.key(), op.value());
                    } else {
                        batch.delete(family, op.key());
                    }
                    pending.add(op);
                }
                last = index;
                dones.add(iter.done());
                if (batch.byteSize() >= MAX_BATCH_BYTES) {
                    commit(batch, last, dones);
                    last = -1;
                }
                iter.next();
            }
            commit(batch, last, dones);
        } catch (RuntimeException e) {
            // The database refused a write (it fails for good after an I/O error). Skipping the entries would
            // make this replica differ from the others, so the node stops; a restart replays them.
            LOG.log(Level.ERROR, name + ": applying to the database failed; stopping the node", e);
            pending.clear();
            Status failed = new Status(RaftError.EIO, "applying to the database: %s", e);
            for (Closure done : dones) {
                complete(done, failed);
            }
            iter.setErrorAndRollback(1, failed);
        }
    }

    /** Writes the gathered effects with the index of the last entry, then acknowledges their proposers. */
    private void commit(WriteBatch batch, long last, List<Closure> dones) {
        if (last < 0) {
            return;
        }
        batch.put(state, appliedKey, longBytes(last));
        db.write(batch, WriteOptions.DEFAULT);
        ApplyListener told = listener;
        for (ReplicatedBatch.Op op : pending) {
            told.written(op.family(), op.key());
        }
        pending.clear();
        appliedIndex = last;
        entriesApplied.addAndGet(dones.size());
        for (Closure done : dones) {
            complete(done, Status.OK());
        }
        batch.clear();
        dones.clear();
    }

    /**
     * The family a command names, created when first used. Creation is durable on its own, ahead of the batch;
     * an empty family left by a crash before the batch is harmless, since replay creates it anyway.
     */
    private ColumnFamily familyFor(String family) {
        return db.columnFamily(family)
                .orElseGet(() -> db.createColumnFamily(family, ColumnFamilyOptions.defaults()));
    }

    @Override
    public void onSnapshotSave(SnapshotWriter writer, Closure done) {
        if (shared && share == null) {
            done.run(new Status(RaftError.EINVAL, "%s: a group sharing its database snapshots only its own share "
                    + "of it, and was given none", name));
            return;
        }
        Path dir = Path.of(writer.getPath());
        try (Snapshot snapshot = db.snapshot()) {
            SnapshotManifest manifest;
            if (shared) {
                GroupShare.Saved saved = share.save();
                List<Db.Range> ranges = OwnedRanges.check(saved.ranges());
                List<SnapshotManifest.Part> parts = new ArrayList<>();
                for (int i = 0; i < ranges.size(); i++) {
                    Db.Range range = ranges.get(i);
                    parts.add(new SnapshotManifest.Part(range, export(writer, snapshot, db.defaultColumnFamily(),
                            range.start(), range.limit(), "range" + i)));
                }
                manifest = SnapshotManifest.ofShare(appliedIndex, parts, saved.state());
            } else {
                List<SnapshotManifest.Family> families = new ArrayList<>();
                int ordinal = 0;
                for (ColumnFamily family : userFamilies()) {
                    families.add(new SnapshotManifest.Family(family.name(),
                            export(writer, snapshot, family, null, null, "cf" + ordinal++)));
                }
                manifest = new SnapshotManifest(appliedIndex, families);
            }
            manifest.writeTo(dir);
            if (!writer.addFile(SnapshotManifest.FILE_NAME)) {
                throw new IOException("snapshot writer refused " + SnapshotManifest.FILE_NAME);
            }
            done.run(Status.OK());
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, name + ": saving a snapshot failed", e);
            done.run(new Status(RaftError.EIO, "saving snapshot: %s", e));
        }
    }

    /** Exports {@code [begin, end)} of {@code family} into the snapshot as tables named {@code prefix-*}. */
    private List<String> export(SnapshotWriter writer, Snapshot snapshot, ColumnFamily family, byte[] begin,
                                byte[] end, String prefix) throws IOException {
        Path dir = Path.of(writer.getPath());
        TableExport.Result result = TableExport.export(db, family, snapshot, begin, end, DiskFileSystem.INSTANCE,
                dir, prefix, TableOptions.defaults(), SNAPSHOT_TABLE_BYTES);
        List<String> files = new ArrayList<>();
        for (Path file : result.files()) {
            String fileName = file.getFileName().toString();
            files.add(fileName);
            if (!writer.addFile(fileName)) {
                throw new IOException("snapshot writer refused " + fileName);
            }
        }
        return files;
    }

    @Override
    public boolean onSnapshotLoad(SnapshotReader reader) {
        Path dir = Path.of(reader.getPath());
        loadLock.writeLock().lock();
        try {
            SnapshotManifest manifest = SnapshotManifest.readFrom(dir);
            if (manifest.appliedIndex() <= appliedIndex) {
                // The database already holds this state or a later one of the same log: a restart.
                return true;
            }
            if (shared != manifest.isShare() || (shared && share == null)) {
                // A whole-database snapshot would clear other groups' state; a ranged one is not a whole state.
                LOG.log(Level.ERROR, name + (shared ? ": a group sharing its database cannot install a snapshot "
                        + "of a whole database" : ": a snapshot of key ranges is not a whole database's state"));
                return false;
            }
            setApplied(0, WriteOptions.DEFAULT);
            db.syncWal(); // durable before anything is replaced: with the engine's log off, this flushes
            probe.reached(LoadStep.APPLIED_ZERO_STORED);
            if (shared) {
                replaceRanges(manifest, dir);
            } else {
                clearUserFamilies();
                probe.reached(LoadStep.FAMILIES_CLEARED);
                for (SnapshotManifest.Family f : manifest.families()) {
                    ColumnFamily family = familyFor(f.name());
                    if (!f.files().isEmpty()) {
                        db.ingestExternalFiles(family, f.files().stream().map(dir::resolve).toList(),
                                IngestOptions.defaults());
                    }
                    probe.reached(LoadStep.FAMILY_INGESTED);
                }
            }
            probe.reached(LoadStep.TABLES_INGESTED);
            listener.replaced();
            setApplied(manifest.appliedIndex(), WriteOptions.DEFAULT);
            probe.reached(LoadStep.INDEX_STORED);
            snapshotsLoaded.incrementAndGet();
            return true;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.ERROR, name + ": loading the snapshot in " + dir + " failed", e);
            return false;
        } finally {
            loadLock.writeLock().unlock();
        }
    }

    /**
     * A shared group's load, step by step as its share says ({@link GroupShare#install}): each step deletes its
     * ranges in one atomic batch, then ingests their tables (all in the default family, within those ranges) in
     * one ingestion, which a crash leaves whole or absent. The tables are newer than the deletions, so they are
     * what reads see. A compaction filter judging a record by another record of the same state (a collection
     * element by its owner) never finds one without the other: both went in the same deletion and come back in
     * the same ingestion.
     */
    private void replaceRanges(SnapshotManifest manifest, Path dir) throws IOException {
        OwnedRanges.check(manifest.ranges());
        for (GroupShare.InstallStep step : share.install(new GroupShare.Saved(manifest.ranges(), manifest.state()))) {
            List<SnapshotManifest.Part> parts = new ArrayList<>();
            for (Db.Range range : step.ranges()) {
                parts.add(manifest.parts().stream().filter(p -> sameRange(p.range(), range)).findFirst()
                        .orElseThrow(() -> new IOException("the group's share names a range the snapshot lacks")));
            }
            loadLock.writeLock().unlock();
            try {
                step.before().run();
            } finally {
                loadLock.writeLock().lock();
            }
            if (!parts.isEmpty()) {
                WriteBatch clear = new WriteBatch();
                for (SnapshotManifest.Part part : parts) {
                    clear.deleteRange(db.defaultColumnFamily(), part.range().start(), part.range().limit());
                }
                db.write(clear, WriteOptions.DEFAULT);
            }
            probe.reached(LoadStep.FAMILIES_CLEARED);
            List<Path> files = new ArrayList<>();
            for (SnapshotManifest.Part part : parts) {
                part.files().forEach(file -> files.add(dir.resolve(file)));
            }
            if (!files.isEmpty()) {
                db.ingestExternalFiles(db.defaultColumnFamily(), files, IngestOptions.defaults());
            }
            probe.reached(LoadStep.FAMILY_INGESTED);
            step.after().run();
        }
    }

    private static boolean sameRange(Db.Range a, Db.Range b) {
        return java.util.Arrays.equals(a.start(), b.start()) && java.util.Arrays.equals(a.limit(), b.limit());
    }

    /**
     * Empties every user family: the named ones are dropped (their tables go once no reader holds them) and
     * recreated by the load; the default family, which cannot be dropped, is deleted key by key, which costs
     * a tombstone per live key until compaction removes them.
     */
    private void clearUserFamilies() {
        for (ColumnFamily family : userFamilies()) {
            if (family.name().equals(ReplicatedBatch.DEFAULT_FAMILY)) {
                deleteAll(family);
            } else {
                db.dropColumnFamily(family);
            }
        }
    }

    private void deleteAll(ColumnFamily family) {
        WriteBatch batch = new WriteBatch();
        try (Snapshot snapshot = db.snapshot();
             DbIterator it = db.iterator(ReadOptions.at(snapshot), family)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                batch.delete(family, it.key());
                if (batch.count() >= CLEAR_BATCH) {
                    db.write(batch, WriteOptions.DEFAULT);
                    batch.clear();
                }
            }
        }
        if (batch.count() > 0) {
            db.write(batch, WriteOptions.DEFAULT);
        }
    }

    private List<ColumnFamily> userFamilies() {
        return db.columnFamilies().stream().filter(f -> !f.name().equals(STATE_FAMILY)).toList();
    }

    private void setApplied(long index, WriteOptions options) {
        db.put(options, state, appliedKey, longBytes(index));
        appliedIndex = index;
    }

    /** A future completed with the term once this node is leader (already completed if it is now). */
    synchronized CompletableFuture<Long> leadership() {
        return leadership;
    }

    @Override
    public void onLeaderStart(long term) {
        this.term = term;
        leaderChanges.incrementAndGet();
        leaderTerm = term;
        synchronized (this) {
            leadership.complete(term);
        }
    }

    @Override
    public void onLeaderStop(Status status) {
        leaderTerm = -1;
        synchronized (this) {
            if (leadership.isDone()) {
                leadership = new CompletableFuture<>();
            }
        }
        for (Runnable listener : leadershipLost) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, name + ": a leadership-lost listener failed", e);
            }
        }
    }

    /** Runs {@code listener} on jraft's state-machine thread whenever this node stops being leader. */
    void onLeadershipLost(Runnable listener) {
        leadershipLost.add(listener);
    }

    @Override
    public void onStartFollowing(LeaderChangeContext context) {
        term = context.getTerm();
        leaderChanges.incrementAndGet();
    }

    @Override
    public void onError(RaftException e) {
        LOG.log(Level.ERROR, name + ": the raft node stopped on an error: " + e.getStatus());
    }

    private static void complete(Closure done, Status status) {
        if (done != null) {
            done.run(status);
        }
    }

    /**
     * The entry's bytes, read through a view: jraft hands the state machine the log entry's own buffer, which
     * the leader may still send to a lagging follower, so moving its position would replicate it empty.
     */
    private static byte[] bytes(ByteBuffer data) {
        byte[] b = new byte[data.remaining()];
        data.duplicate().get(b);
        return b;
    }

    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }
}
