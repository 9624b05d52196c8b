package io.varve.server.store;

import io.varve.base.concurrent.LockStripes;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.core.WriteStallException;

import java.lang.foreign.MemorySegment;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The Redis keyspace over one {@link Db}: metadata lookups that hide expired keys, batched commits with the
 * configured durability, the per-key write locks and collection versions. The type layer
 * ({@code io.varve.server.types}) builds on these primitives; every byte layout comes from {@link KeyEncoding}.
 *
 * <p>Concurrency contract: an operation that writes holds the stripe lock of every key it writes
 * ({@link #lock}/{@link #lockAll}) from its first read of that key's state to its commit, and commits all of
 * its changes in one {@link WriteBatch}. Reads need no lock; multi-record reads (a whole hash) read at a
 * {@link #snapshot()} so they see one batch boundary.
 *
 * <p>Expiry: a key whose expire-at has passed is invisible to every lookup here. Reads never delete it
 * (a read never turns into a write); the key is replaced by the next write to it, dropped by
 * {@link KeyspaceCompactionFilter} when compaction rewrites it, or deleted by the {@link ExpirySweeper}.
 *
 * <p>Databases: a keyspace is bound to one physical {@link Database}, whose metadata keys its lookups and
 * writes build; the one a constructor returns is bound to database 0, and {@link #in} gives the same keyspace
 * bound to another. Those views share everything else (engine, locks, versions, counters, blocked clients,
 * durability), so a command uses the view of its connection's database exactly as it would the keyspace.
 */
public final class Keyspace {

    private static final WriteOptions NO_WAITING = WriteOptions.DEFAULT.withNoSlowdown(true);
    /** How many stripe locks the keys hash onto. */
    static final int LOCK_STRIPES = 4096;
    /** Bound inside {@link #commitTogether}: commits are gathered there instead of written. */
    private static final ScopedValue<GatheredWrites> GATHERED = ScopedValue.newInstance();

    private final Db db;
    private final CommitTarget target;
    /** The keyspace bound to database 0, which owns the state its views share and the mutable settings. */
    private final Keyspace root;
    private final Database database;
    /** Every view made so far, by physical number; shared by all views. */
    private final AtomicReferenceArray<Keyspace> views;
    /** Changed at run time by CONFIG SET appendfsync; read through {@link #root}. */
    private volatile WriteOptions writeOptions;
    private final LockStripes locks;
    private final VersionClock versions;
    private final LongSupplier clock;
    private final BlockingKeys blocking;
    private final LongAdder hits;
    private final LongAdder misses;
    private final LongAdder expired;
    private final LongAdder writes;
    private final LongAdder expiringWrites;
    private final Databases databases;
    private final SetPopHints setPopHints;

    /**
     * @param syncEveryWrite whether each commit is fsynced before it returns (appendfsync always)
     * @param clock          current time in Unix milliseconds; tests inject a controllable one
     */
    public Keyspace(Db db, boolean syncEveryWrite, LongSupplier clock) {
        this(db, syncEveryWrite, clock, 16);
    }

    /** @param databases how many databases SELECT accepts (see {@link Databases}) */
    public Keyspace(Db db, boolean syncEveryWrite, LongSupplier clock, int databases) {
        this(db, CommitTarget.local(db), syncEveryWrite, clock, databases);
    }

    /**
     * @param db     what the keyspace reads
     * @param target where its commits go: {@code db} itself, or a replication log that applies them to it
     */
    public Keyspace(Db db, CommitTarget target, boolean syncEveryWrite, LongSupplier clock, int databases) {
        this.db = db;
        this.target = target;
        Database zero = target.slotsInKeys() ? Database.SLOTTED : Database.ZERO;
        this.databases = Databases.open(db, databases, zero);
        this.blocking = new BlockingKeys();
        this.hits = new LongAdder();
        this.misses = new LongAdder();
        this.expired = new LongAdder();
        this.writes = new LongAdder();
        this.expiringWrites = new LongAdder();
        this.setPopHints = new SetPopHints();
        this.writeOptions = syncEveryWrite ? WriteOptions.SYNC : WriteOptions.DEFAULT;
        this.locks = new LockStripes(LOCK_STRIPES);
        this.versions = new VersionClock(db, target);
        this.clock = clock;
        this.root = this;
        this.database = zero;
        this.views = new AtomicReferenceArray<>(this.databases.physicalCount());
        this.views.set(0, this);
    }

    /** A view of {@code root} bound to {@code database}. */
    private Keyspace(Keyspace root, Database database) {
        this.db = root.db;
        this.target = root.target;
        this.root = root;
        this.database = database;
        this.views = root.views;
        this.locks = root.locks;
        this.versions = root.versions;
        this.clock = root.clock;
        this.blocking = root.blocking;
        this.hits = root.hits;
        this.misses = root.misses;
        this.expired = root.expired;
        this.writes = root.writes;
        this.expiringWrites = root.expiringWrites;
        this.databases = root.databases;
        this.setPopHints = root.setPopHints;
    }

    /** This keyspace bound to {@code database} (the same object for the same database). */
    public Keyspace in(Database database) {
        if (database.physical() == this.database.physical()) {
            return this;
        }
        if (database.physical() >= views.length()) {
            return new Keyspace(root, database);
        }
        Keyspace view = views.get(database.physical());
        if (view == null) {
            view = new Keyspace(root, database);
            if (!views.compareAndSet(database.physical(), null, view)) {
                view = views.get(database.physical());
            }
        }
        return view;
    }

    /** This keyspace bound to the physical database that logical database {@code logical} names now. */
    public Keyspace inLogical(int logical) {
        return in(databases.database(logical));
    }

    /** The database this keyspace's metadata lookups and writes are in. */
    public Database database() {
        return database;
    }

    /**
     * This process has just become the one that writes (a Raft leader, caught up): collection versions
     * continue above every floor an earlier writer persisted, so none is ever issued twice, and SPOP's hints
     * from an earlier term are dropped, since other leaders may have added members inside the stretches they
     * name.
     */
    public void resumeAsWriter() {
        versions.resume();
        setPopHints.forgetAll();
    }

    /**
     * What commands read: the database, or inside {@link #commitTogether} the database with the commits
     * gathered so far laid over it.
     */
    public Db db() {
        return reads();
    }

    private Db reads() {
        GatheredWrites gathered = GATHERED.isBound() ? GATHERED.get() : null;
        return gathered == null ? db : gathered.view();
    }

    /**
     * Runs {@code commands} with every commit of this keyspace on this thread gathered into one batch, which
     * their own reads see, then writes that batch as one commit: to readers and replicas the commands' writes
     * appear together or, if the final write fails (its error is thrown), not at all. The caller must keep
     * out meanwhile every other writer of what the commands read, since the gathered writes hold no place in
     * the database until the end: every other command (the command gate's exclusive side: EXEC, scripts), or,
     * for commands that touch one key's records only, every other writer of that key (its stripe lock: a run
     * of one connection's writes to the key).
     */
    public void commitTogether(Runnable commands) {
        GatheredWrites gathered = new GatheredWrites(db);
        ScopedValue.where(GATHERED, gathered).run(commands);
        write(gathered.batch(), root.writeOptions);
    }

    /**
     * A value the server keeps in the engine beside the keyspace under {@code name} (the function
     * libraries): never a user's key, left alone by FLUSHALL, replicated like any commit. Null if absent.
     */
    public byte[] internalValue(String name) {
        return reads().get(KeyEncoding.internalKey(name));
    }

    /** Stores {@link #internalValue}; inside {@link #commitTogether} it joins the gathered batch. */
    public void putInternalValue(String name, byte[] value) {
        write(new WriteBatch().put(KeyEncoding.internalKey(name), value), root.writeOptions);
    }

    public Databases databases() {
        return databases;
    }

    /** Whether each commit is fsynced before it returns, from now on (CONFIG SET appendfsync). */
    public void syncEveryWrite(boolean sync) {
        root.writeOptions = sync ? WriteOptions.SYNC : WriteOptions.DEFAULT;
    }

    /** CONFIG RESETSTAT: zeroes the hit, miss and expiry counters. */
    public void resetStats() {
        hits.reset();
        misses.reset();
        expired.reset();
    }

    public long now() {
        return clock.getAsLong();
    }

    /** Clients blocked on keys of this keyspace, to {@link BlockingKeys#signal} after a write fills a key. */
    public BlockingKeys blocking() {
        return blocking;
    }

    /**
     * {@code key} of this database may have become non-empty: serves the clients blocked on it
     * ({@link BlockingKeys#signal}). Call after the write committed, with no stripe lock held.
     */
    public void signalWaiters(byte[] key) {
        blocking.signal(database.physical(), key);
    }

    /** What SPOP learnt about the sets it popped from recently (see {@link SetPicker}). */
    public SetPopHints setPopHints() {
        return setPopHints;
    }

    public long newVersion() {
        return versions.next();
    }

    public LockStripes.Held lock(byte[] key) {
        return locks.lock(key);
    }

    public LockStripes.Held lockAll(byte[]... keys) {
        return locks.lockAll(keys);
    }

    /** {@link LockStripes#tryLockAll}: the keys' locks if all are free right now, else null. */
    public LockStripes.Held tryLockAll(byte[]... keys) {
        return locks.tryLockAll(keys);
    }

    public LockStripes.Held lockEverything() {
        return locks.lockEverything();
    }

    public Snapshot snapshot() {
        return db.snapshot();
    }

    // ---- metadata

    /** The live metadata of {@code key}, or null if it is absent or expired. Counts a keyspace hit or miss. */
    public Metadata lookup(byte[] key) {
        return lookup(ReadOptions.DEFAULT, key);
    }

    public Metadata lookup(ReadOptions options, byte[] key) {
        byte[] raw = reads().get(options, database.metadataKey(key));
        Metadata meta = raw == null ? null : Metadata.decode(raw);
        if (meta != null && meta.hasExpiry() && meta.isExpired(now())) { // most keys have no expiry: skip the clock
            meta = null;
        }
        (meta == null ? misses : hits).increment();
        return meta;
    }

    /**
     * What {@link #lookupInMemory} returns when memory cannot decide the key (it needs table data that is
     * not cached). Compared by identity; never a key's real metadata.
     */
    public static final Metadata IN_TABLES = Metadata.collection(RedisType.HASH, 0, -1, -1);

    private static final ReadOptions IN_MEMORY = ReadOptions.DEFAULT.withCachedOnly();

    /**
     * {@link #lookup(byte[])} answered from what the engine holds in memory alone (memtables, table filters
     * and indexes, cached blocks: {@code ReadOptions.withCachedOnly()}), so it never waits for the disk and
     * may run on an event loop: the live metadata, null if absent or expired (counted as a hit or miss, as
     * {@link #lookup} counts), or {@link #IN_TABLES} (counted as nothing) when only a full lookup can tell.
     */
    public Metadata lookupInMemory(byte[] key) {
        MetadataReadBuffers buffers = MetadataReadBuffers.forCurrentThread();
        int keyLength = buffers == null ? -1 : database.metadataKeyInto(key, buffers.key);
        MemorySegment engineKey = keyLength < 0 ? MemorySegment.ofArray(database.metadataKey(key))
                : buffers.keySegment.asSlice(0, keyLength);
        byte[] raw = buffers == null ? new byte[64] : buffers.record;
        MemorySegment destination = buffers == null ? MemorySegment.ofArray(raw) : buffers.recordSegment;
        long length;
        while (true) {
            length = reads().get(IN_MEMORY, engineKey, destination);
            if (length == ReadOptions.INCOMPLETE) {
                return IN_TABLES;
            }
            if (length <= raw.length) {
                break;
            }
            // Larger than the guess: read again into an exact array (a newer write may answer this time).
            raw = new byte[(int) length];
            destination = MemorySegment.ofArray(raw);
        }
        Metadata meta = length < 0 ? null : Metadata.decode(raw, (int) length);
        if (meta != null && meta.hasExpiry() && meta.isExpired(now())) {
            meta = null;
        }
        (meta == null ? misses : hits).increment();
        return meta;
    }

    /** Like {@link #lookup}; throws {@link WrongTypeException} when the key holds another type. */
    public Metadata lookup(byte[] key, RedisType expected) {
        return lookup(ReadOptions.DEFAULT, key, expected);
    }

    public Metadata lookup(ReadOptions options, byte[] key, RedisType expected) {
        Metadata meta = lookup(options, key);
        if (meta != null && meta.type() != expected) {
            throw new WrongTypeException();
        }
        return meta;
    }

    /** Type and expiry only (no value copy kept), or null if absent or expired. Does not count hits. */
    public Metadata header(byte[] key) {
        byte[] raw = reads().get(database.metadataKey(key));
        if (raw == null) {
            return null;
        }
        Metadata meta = Metadata.decodeHeader(raw);
        return meta.hasExpiry() && meta.isExpired(now()) ? null : meta;
    }

    // ---- writes

    public void putMetadata(WriteBatch batch, byte[] key, Metadata meta) {
        if (meta.hasExpiry()) {
            expiringWrites.increment();
        }
        batch.put(database.metadataKey(key), meta.encode());
    }

    /**
     * Removes {@code key} whatever its type: for a collection only the metadata goes (O(1)); its subkeys
     * become unreachable garbage because no metadata refers to their version any more.
     */
    public void deleteMetadata(WriteBatch batch, byte[] key) {
        batch.delete(database.metadataKey(key));
    }

    /**
     * Puts everything committed so far on the device (appendfsync everysec): one log fsync through
     * {@link Db#syncWal()}, shared with concurrent synced writers, and no table written. Replicated, nothing:
     * a write is acknowledged once a majority synced it to the Raft log.
     */
    public void syncLog() {
        if (target.local()) {
            db.syncWal();
        }
    }

    public void commit(WriteBatch batch) {
        write(batch, root.writeOptions);
    }

    /**
     * Commits like {@link #commit} unless that could wait long: with appendfsync always (every commit waits
     * for an fsync) or while the engine holds writes back for background work. Returns false, having
     * written nothing, in those cases, and always when commits are replicated. Caller holds the keys' locks.
     */
    public boolean commitWithoutWaiting(WriteBatch batch) {
        if (root.writeOptions.sync() || !target.local()) {
            return false;
        }
        try {
            write(batch, NO_WAITING);
        } catch (WriteStallException stalled) {
            return false;
        }
        return true;
    }

    /** Bound by {@link #writesDuring}: how many batches the command wrote. */
    private static final ScopedValue<int[]> WRITES_SEEN = ScopedValue.newInstance();

    /** Runs {@code command} (on this thread) and returns whether it committed or gathered any write. */
    public boolean writesDuring(Runnable command) {
        int[] seen = new int[1];
        ScopedValue.where(WRITES_SEEN, seen).run(command);
        return seen[0] > 0;
    }

    private void write(WriteBatch batch, WriteOptions options) {
        if (batch.count() == 0) {
            return;
        }
        if (WRITES_SEEN.isBound()) {
            WRITES_SEEN.get()[0]++;
        }
        GatheredWrites gathered = GATHERED.isBound() ? GATHERED.get() : null;
        if (gathered != null) {
            gathered.add(batch);
            writes.increment();
            return;
        }
        target.write(batch, options);
        writes.increment();
    }

    /** Whether a background writer may write {@code engineKey} here now (see {@link CommitTarget#writesHere}). */
    public boolean writesHere(byte[] engineKey) {
        return target.writesHere(engineKey);
    }

    /** Deletes the key if it is live; caller holds its lock. Returns whether it existed. */
    public boolean deleteIfLive(byte[] key) {
        if (header(key) == null) {
            return false;
        }
        WriteBatch batch = new WriteBatch();
        deleteMetadata(batch, key);
        commit(batch);
        return true;
    }

    // ---- whole keyspace

    /** An iterator over the metadata records of every database (the expiry sweep's walk). */
    public DbIterator allMetadataIterator(ReadOptions base) {
        byte[][] bounds = KeyEncoding.allMetadataBounds(root.database.slotted());
        return reads().iterator(base.withLowerBound(bounds[0]).withUpperBound(bounds[1]));
    }

    /**
     * FLUSHDB: deletes this database's keys, holding every write lock so no write interleaves. Only
     * metadata is deleted; the subkeys of its collections become garbage that compaction drops (their
     * versions are referenced by no metadata any more), so other databases are untouched.
     */
    public void flushDatabase() {
        try (LockStripes.Held all = lockEverything()) {
            deleteAll(ReadOptions.DEFAULT.withLowerBound(database.metadataStart())
                    .withUpperBound(database.metadataEnd()));
        }
    }

    /**
     * Deletes every record the bounds of {@code range} cover, as seen at one snapshot, in commits of 1024
     * (one commit when gathering: the gathered batch must not change under the iterator that reads it).
     */
    private void deleteAll(ReadOptions range) {
        boolean gathering = GATHERED.isBound();
        WriteBatch batch = new WriteBatch();
        try (Snapshot snapshot = db.snapshot(); DbIterator it = reads().iterator(range.withSnapshot(snapshot))) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                batch.delete(it.key());
                if (!gathering && batch.count() >= 1024) {
                    commit(batch);
                    batch = new WriteBatch();
                }
            }
        }
        commit(batch);
    }

    /**
     * A cluster node's FLUSHALL/FLUSHDB of one group: deletes this database's keys of {@code slots}, as seen
     * at one snapshot, holding every write lock, in commits of 1024. Their subkeys go with their metadata, as
     * after FLUSHDB.
     */
    public void flushSlots(BitSet slots) {
        try (LockStripes.Held all = lockEverything()) {
            WriteBatch batch = new WriteBatch();
            try (Snapshot snapshot = db.snapshot();
                 DbIterator it = metadataIterator(ReadOptions.at(snapshot), slots, EMPTY)) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    batch.delete(it.key());
                    if (batch.count() >= 1024) {
                        commit(batch);
                        batch = new WriteBatch();
                    }
                }
            }
            if (batch.count() > 0) {
                commit(batch);
            }
        }
    }

    private static final byte[] EMPTY = new byte[0];

    /**
     * An iterator over this database's metadata records of the keys in {@code slots} (null: every slot)
     * that start with {@code userPrefix} (empty: any), in key order: see {@link SlotRangeIterator}. The slotted
     * layout reads only those slots' ranges; the plain one narrows by the prefix and skips other slots' keys.
     */
    public DbIterator metadataIterator(ReadOptions base, BitSet slots, byte[] userPrefix) {
        return SlotRangeIterator.open(reads(), base, database, slots, userPrefix);
    }

    /** An iterator over this database's metadata records (seek with {@link Database#metadataKey}). */
    public DbIterator metadataIterator(ReadOptions base) {
        return reads().iterator(base.withLowerBound(database.metadataStart()).withUpperBound(database.metadataEnd()));
    }

    /**
     * Counts this database's live keys by a scan of its metadata records: {keys, keys with an expiry,
     * their average remaining time to live in milliseconds (0 when none)}.
     */
    public long[] countKeys() {
        long keys = 0;
        long withExpiry = 0;
        long ttlSum = 0;
        long now = now();
        try (Snapshot snapshot = db.snapshot(); DbIterator it = metadataIterator(ReadOptions.at(snapshot))) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                Metadata meta = Metadata.decodeHeader(it.value());
                if (!meta.isExpired(now)) {
                    keys++;
                    if (meta.hasExpiry()) {
                        withExpiry++;
                        ttlSum += meta.expireAt() - now;
                    }
                }
            }
        }
        return new long[] {keys, withExpiry, withExpiry == 0 ? 0 : ttlSum / withExpiry};
    }

    /**
     * FLUSHALL: deletes every client-visible record of every database (metadata and subkeys), holding every write lock so no write
     * interleaves. Readers running meanwhile may see part of the keyspace gone. Internal records stay.
     */
    public void flushAll() {
        try (LockStripes.Held all = lockEverything()) {
            deleteAll(ReadOptions.DEFAULT.withLowerBound(new byte[] {KeyEncoding.INTERNAL_PREFIX + 1}));
        }
    }

    // ---- statistics

    public long hits() {
        return hits.sum();
    }

    public long misses() {
        return misses.sum();
    }

    public long expiredKeysRemoved() {
        return expired.sum();
    }

    void countExpiredRemoval() {
        expired.increment();
    }

    /** Metadata records written with an expiry so far (lets the expiry sweep rest when there are none). */
    long expiringWrites() {
        return expiringWrites.sum();
    }

    /** Commits so far; the background syncer compares it with its last look to skip idle seconds. */
    public long commits() {
        return writes.sum();
    }
}
