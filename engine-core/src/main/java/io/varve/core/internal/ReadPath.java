package io.varve.core.internal;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.keys.LookupResult;
import io.varve.core.internal.iterator.MergingIterator;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.merge.MergeOperator;
import io.varve.core.internal.rangedel.FragmentedTombstones;
import io.varve.core.internal.rangedel.RangeDeletions;
import io.varve.core.internal.sst.TableReader;
import io.varve.core.internal.version.LevelIterator;
import io.varve.core.internal.version.ReadView;
import io.varve.core.internal.version.TableCache;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;
import io.varve.core.internal.version.VersionSet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import java.util.stream.LongStream;

/**
 * Point lookups and iterators. A read pins a {@link ReadView} and only then takes the sequence it reads at, so
 * the view always holds every write that sequence covers: a flush moves data from a memtable to a table in one
 * view swap.
 *
 * <p>Every lookup and every call on an iterator runs inside the {@link ReadGate}; {@link #close} closes the
 * gate, waits (bounded) for the reads inside, then releases every iterator still open — nothing is freed under
 * a running read. An iterator released that way throws the closed state on its next use; its
 * {@code close()} is then a no-op.
 */
public final class ReadPath {

    private final System.Logger log;
    /** {@link #lookupTable}'s answer when the table does not decide the key. */
    private static final long NOT_IN_TABLE = Long.MIN_VALUE;
    /** {@link #lookupTable}'s answer when the table's newest entry for the key is a merge operand. */
    private static final long MERGE_OPERAND = Long.MIN_VALUE + 1;

    private final VersionSet versions;
    private final TableCache tableCache;
    private final SnapshotList snapshots;
    private final LongSupplier visibleSequence;
    private final ReadGate gate;
    private final Set<DbIteratorImpl> openIterators = ConcurrentHashMap.newKeySet();
    private final IntFunction<MergeOperator> mergeOperators;

    ReadPath(VersionSet versions, TableCache tableCache, SnapshotList snapshots, LongSupplier visibleSequence,
             ReadGate gate, IntFunction<MergeOperator> mergeOperators, System.Logger log) {
        this.log = log;
        this.mergeOperators = mergeOperators;
        this.versions = versions;
        this.tableCache = tableCache;
        this.snapshots = snapshots;
        this.visibleSequence = visibleSequence;
        this.gate = gate;
    }

    /**
     * Each thread's point-lookup scratch, so that a get into the caller's segment allocates nothing. A lookup
     * that finds it in use (a merge operator reading the database from inside a lookup on the same thread)
     * takes a fresh one.
     */
    private static final ThreadLocal<PointRead> SCRATCH = ThreadLocal.withInitial(() -> new PointRead(null));

    /**
     * One point lookup's scratch and its way out: the result the sources fill in, and where the value is
     * copied while its memory is pinned (the destination segment, or a new array when there is none). One
     * small object per lookup, or one per thread reused through {@link #SCRATCH}, instead of capturing lambdas
     * and holder arrays.
     */
    private static final class PointRead {
        final LookupResult result = new LookupResult();
        MemorySegment destination;
        boolean inUse;
        byte[] array;
        /** The newest sequence, at or below the read's, of a range tombstone seen so far covering the key. */
        long covering;
        int family;
        /** Only the newest entry's sequence is wanted: a merge operand is not resolved. */
        boolean sequenceOnly;
        /**
         * Tables whose newest sequence is at or below this are skipped: they cannot hold an entry (or a range
         * tombstone) newer than it, and only newer ones are wanted. -1 reads every table.
         */
        long tablesNewerThan = -1;

        PointRead(MemorySegment destination) {
            this.destination = destination;
        }

        /** Forgets the last lookup, holding on to nothing it found (a block, a memtable's memory). */
        void clear() {
            inUse = false;
            destination = null;
            array = null;
            covering = 0;
            sequenceOnly = false;
            tablesNewerThan = -1;
            result.setNotFound();
        }

        void cover(FragmentedTombstones tombstones, byte[] key, long readSequence) {
            covering = Math.max(covering, tombstones.coveringSequence(key, readSequence));
        }

        /**
         * The answer for a source that holds the key: its entry, unless a newer range tombstone hides it, or
         * {@link #MERGE_OPERAND} when the entry is an operand the caller must resolve.
         */
        long decide() {
            LookupResult.Status status = result.status();
            if (status == LookupResult.Status.DELETED || status == LookupResult.Status.NOT_FOUND
                    || result.sequence() < covering) {
                return -1;
            }
            return status == LookupResult.Status.MERGE ? MERGE_OPERAND : take();
        }

        /** Copies the found value out and returns its full length. */
        long take() {
            if (destination == null) {
                array = result.valueToArray();
                return array.length;
            }
            return result.copyValueTo(destination);
        }

        /** Hands out a merged value (or none, -1) and returns its full length. */
        long deliver(byte[] value) {
            if (value == null) {
                return -1;
            }
            if (destination == null) {
                array = value;
            } else {
                MemorySegment.copy(MemorySegment.ofArray(value), 0, destination, 0,
                        Math.min(value.length, destination.byteSize()));
            }
            return value.length;
        }
    }

    byte[] get(ReadOptions options, int family, byte[] key) {
        Objects.requireNonNull(key, "key");
        if (options != null && ApiAccess.get().mayBeIncomplete(options)) {
            throw new IllegalArgumentException("a memtable-only or cached-only read can be incomplete, which only "
                    + "get(ReadOptions, MemorySegment, MemorySegment) can report");
        }
        PointRead read = scratch(null);
        try {
            lookup(options, family, MemorySegment.ofArray(key), read);
            return read.array;
        } finally {
            read.clear();
        }
    }

    long get(ReadOptions options, int family, MemorySegment key, MemorySegment destination) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(destination, "destination");
        PointRead read = scratch(destination);
        try {
            return lookup(options, family, key, read);
        } finally {
            read.clear();
        }
    }

    /** This thread's scratch, taken, or a fresh one if a lookup on this thread already holds it. */
    private static PointRead scratch(MemorySegment destination) {
        PointRead read = SCRATCH.get();
        if (read.inUse) {
            return new PointRead(destination);
        }
        read.inUse = true;
        read.destination = destination;
        return read;
    }

    /**
     * The value of {@code key} at {@code sequence}, merges resolved, or null: the write path reads a key's
     * state just below a merge it folds, a sequence that may be above the visible one (every write at or below
     * it is applied by then).
     */
    byte[] valueAt(int family, MemorySegment key, long sequence) {
        gate.enter();
        try {
            ReadView view = versions.acquire(family);
            try {
                PointRead read = new PointRead(null);
                read.family = family;
                lookup(null, view, sequence, key, read);
                return read.array;
            } finally {
                view.release();
            }
        } finally {
            gate.exit();
        }
    }

    /**
     * The values of {@code keys} (null where absent), in the caller's order, all read from one view at one
     * sequence. The lookups run in key order, so the tables and blocks they touch are visited in file order
     * and a block shared by neighbouring keys is found warm.
     */
    List<byte[]> multiGet(ReadOptions options, int family, List<byte[]> keys) {
        Objects.requireNonNull(keys, "keys");
        if (options != null && ApiAccess.get().mayBeIncomplete(options)) {
            throw new IllegalArgumentException("a memtable-only or cached-only read can be incomplete, which only "
                    + "get(ReadOptions, MemorySegment, MemorySegment) can report");
        }
        byte[][] keyArray = keys.toArray(new byte[0][]);
        Integer[] order = new Integer[keyArray.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
            Objects.requireNonNull(keyArray[i], "key");
        }
        Arrays.sort(order, (a, b) -> Keys.compare(keyArray[a], keyArray[b]));
        byte[][] values = new byte[keyArray.length][];
        gate.enter();
        try {
            ReadView view = versions.acquire(family);
            try {
                long sequence = readSequence(options);
                for (int i : order) {
                    PointRead read = new PointRead(null);
                    read.family = family;
                    lookup(options, view, sequence, MemorySegment.ofArray(keyArray[i]), read);
                    values[i] = read.array;
                }
            } finally {
                view.release();
            }
        } finally {
            gate.exit();
        }
        return Arrays.asList(values);
    }

    /**
     * Finds the newest visible entry of {@code key}: memtables newest first, then level 0 newest first, then
     * one table per deeper level (unless the options say memtables only). Copies a value found through
     * {@code read} while its memory is still pinned.
     *
     * @return the value's length, -1 for an absent or deleted key, or {@link ReadOptions#INCOMPLETE} when a
     *     memtable-only read reaches the tables
     */
    private long lookup(ReadOptions options, int family, MemorySegment key, PointRead read) {
        gate.enter();
        try {
            ReadView view = versions.acquire(family);
            try {
                read.family = family;
                return lookup(options, view, key, read);
            } finally {
                view.release();
            }
        } finally {
            gate.exit();
        }
    }

    private long lookup(ReadOptions options, ReadView view, MemorySegment key, PointRead read) {
        return lookup(options, view, readSequence(options), key, read);
    }

    private long lookup(ReadOptions options, ReadView view, long sequence, MemorySegment key, PointRead read) {
        LookupResult result = read.result;
        // Range tombstones are checked per source on a heap copy of the key; most reads find none to check.
        read.covering = 0;
        byte[] keyBytes = null;
        // mutable() and immutables() rather than memtablesNewestFirst(), which copies into a new list.
        Memtable mutable = view.mutable();
        if (mutable.rangeTombstoneCount() > 0) {
            keyBytes = key.toArray(ValueLayout.JAVA_BYTE);
            read.cover(mutable.rangeTombstones(), keyBytes, sequence);
        }
        if (mutable.get(key, sequence, result)) {
            return resolved(options, view, sequence, key, read, read.decide());
        }
        List<Memtable> immutables = view.immutables();
        for (int i = 0; i < immutables.size(); i++) {
            Memtable memtable = immutables.get(i);
            if (memtable.rangeTombstoneCount() > 0) {
                keyBytes = keyBytes != null ? keyBytes : key.toArray(ValueLayout.JAVA_BYTE);
                read.cover(memtable.rangeTombstones(), keyBytes, sequence);
            }
            if (memtable.get(key, sequence, result)) {
                return resolved(options, view, sequence, key, read, read.decide());
            }
        }
        if (options != null && options.memtableOnly()) {
            // Not decided even when a memtable tombstone covers the key: an ingested table can be newer.
            return ReadOptions.INCOMPLETE;
        }
        boolean cachedOnly = options != null && options.cachedOnly();
        Version version = view.version();
        List<TableMeta> level0 = version.level(0);
        for (int i = 0; i < level0.size(); i++) {
            TableMeta table = level0.get(i);
            if (table.covers(key) && table.effectiveLargestSequence() > read.tablesNewerThan) {
                long found = lookupTable(table, key, sequence, read, cachedOnly);
                if (found != NOT_IN_TABLE) {
                    return resolved(options, view, sequence, key, read, found);
                }
            }
        }
        for (int level = 1; level < Version.NUM_LEVELS; level++) {
            TableMeta table = version.findInSortedLevel(level, key);
            if (table != null && table.effectiveLargestSequence() > read.tablesNewerThan) {
                long found = lookupTable(table, key, sequence, read, cachedOnly);
                if (found != NOT_IN_TABLE) {
                    return resolved(options, view, sequence, key, read, found);
                }
            }
        }
        return -1;
    }

    /**
     * The lookup's answer once a source decided the key: {@code found} itself, or for a merge operand the
     * merged value. Memtable-only and cached-only reads report an operand as incomplete: its base may lie
     * anywhere below.
     */
    private long resolved(ReadOptions options, ReadView view, long sequence, MemorySegment key, PointRead read,
                          long found) {
        if (found != MERGE_OPERAND) {
            return found;
        }
        if (read.sequenceOnly) {
            return 0;
        }
        if (options != null && ApiAccess.get().mayBeIncomplete(options)) {
            return ReadOptions.INCOMPLETE;
        }
        return read.deliver(MergeLookup.resolve(view, tableCache, key, sequence,
                mergeOperators.apply(read.family)));
    }

    /**
     * The value's length (copied out), -1 for a tombstone, {@link #NOT_IN_TABLE}, or (cached-only) {@link
     * ReadOptions#INCOMPLETE} when the table is not open or the block needed is not in the block cache.
     */
    private long lookupTable(TableMeta table, MemorySegment key, long sequence, PointRead read,
                             boolean cachedOnly) {
        // A cached-only lookup uses only tables already open: opening one reads the file.
        TableReader reader = cachedOnly ? tableCache.acquireIfOpen(table) : tableCache.acquire(table);
        if (reader == null) {
            return ReadOptions.INCOMPLETE;
        }
        try {
            if (cachedOnly) {
                if (!reader.getCached(key, sequence, read.result)) {
                    return ReadOptions.INCOMPLETE;
                }
            } else {
                reader.get(key, sequence, read.result);
            }
            FragmentedTombstones tombstones = reader.rangeTombstones();
            if (!tombstones.isEmpty()) {
                read.cover(tombstones, key.toArray(ValueLayout.JAVA_BYTE), sequence);
            }
            return read.result.status() == LookupResult.Status.NOT_FOUND ? NOT_IN_TABLE : read.decide();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            reader.release();
        }
    }

    /**
     * The sequence of the newest entry of {@code key} (a value, a deletion or a range deletion covering it)
     * visible now if it is above {@code since}, else some sequence at or below {@code since} (0 when the key
     * has no entry): how an optimistic transaction learns that someone wrote a key after its snapshot.
     * Compaction keeps the sequences of entries newer than the oldest snapshot, which the transaction holds.
     *
     * <p>Only the memtables and the tables holding something newer than {@code since} are searched: a key
     * found nowhere else is unchanged since then, so the common check after a short transaction touches
     * the memtables and the newest tables, not every level.
     */
    long newestSequence(int family, byte[] key, long since) {
        PointRead read = new PointRead(null);
        read.sequenceOnly = true;
        read.tablesNewerThan = since;
        long found = lookup(null, family, MemorySegment.ofArray(key), read);
        // A range deletion covering the key is a write to it too.
        if (found == -1 && read.result.status() == LookupResult.Status.NOT_FOUND) {
            return read.covering;
        }
        return Math.max(InternalKey.sequence(read.result.trailer()), read.covering);
    }

    DbIterator iterator(ReadOptions options, int family) {
        Objects.requireNonNull(options, "options");
        if (ApiAccess.get().mayBeIncomplete(options)) {
            throw new IllegalArgumentException("memtable-only and cached-only reads are point lookups; iterators "
                    + "read everything");
        }
        gate.enter();
        try {
            ReadView view = versions.acquire(family);
            List<InternalIterator> children = new ArrayList<>();
            DbIteratorImpl iterator;
            try {
                long sequence = readSequence(options);
                RangeDeletions rangeDeletions = new RangeDeletions(sequence);
                // Per child, the newest sequence it can hold; memtables are not bounded, tables are.
                LongStream.Builder newest = LongStream.builder();
                for (Memtable memtable : view.memtablesNewestFirst()) {
                    children.add(memtable.iterator());
                    newest.add(Long.MAX_VALUE);
                    rangeDeletions.add(memtable.rangeTombstones());
                }
                Version version = view.version();
                for (TableMeta table : version.level(0)) {
                    TableReader reader = tableCache.acquire(table);
                    try {
                        children.add(reader.newIterator());
                        newest.add(table.effectiveLargestSequence());
                        rangeDeletions.add(reader.rangeTombstones());
                    } finally {
                        reader.release();
                    }
                }
                for (int level = 1; level < Version.NUM_LEVELS; level++) {
                    List<TableMeta> tables = version.level(level);
                    if (tables.size() > 0) {
                        children.add(new LevelIterator(tables, tableCache));
                        newest.add(tables.stream().mapToLong(TableMeta::effectiveLargestSequence).max().orElseThrow());
                        addRangeTombstones(tables, options, rangeDeletions);
                    }
                }
                MergingIterator merged = new MergingIterator(children, newest.build().toArray());
                iterator = new DbIteratorImpl(this, view, merged, sequence,
                        ApiAccess.get().lowerBound(options), ApiAccess.get().upperBound(options), rangeDeletions,
                        mergeOperators.apply(family));
            } catch (RuntimeException e) {
                children.forEach(InternalIterator::close);
                view.release();
                throw e;
            }
            // Registered inside the gate: close() drains the gate before it releases what is registered.
            openIterators.add(iterator);
            return iterator;
        } finally {
            gate.exit();
        }
    }

    /**
     * Gathers the range tombstones of a sorted level's tables within the iterator's bounds. The tables'
     * readers stay in the table cache, so this mostly costs a lookup per table; a table's key range takes in
     * its tombstones, so tables outside the bounds cannot hide anything the iterator returns.
     */
    private void addRangeTombstones(List<TableMeta> tables, ReadOptions options, RangeDeletions into) {
        byte[] lower = ApiAccess.get().lowerBound(options);
        byte[] upper = ApiAccess.get().upperBound(options);
        for (int i = 0; i < tables.size(); i++) {
            TableMeta table = tables.get(i);
            if (!table.overlaps(lower, upper)) {
                continue;
            }
            TableReader reader = tableCache.acquire(table);
            try {
                into.add(reader.rangeTombstones());
            } finally {
                reader.release();
            }
        }
    }

    long readSequence(ReadOptions options) {
        Snapshot snapshot = options == null ? null : options.snapshot();
        if (snapshot == null) {
            return visibleSequence.getAsLong();
        }
        if (snapshot instanceof SnapshotList.Entry entry) {
            entry.checkUsable(snapshots);
        }
        return snapshot.sequence();
    }

    ReadGate gate() {
        return gate;
    }

    void iteratorClosed(DbIteratorImpl iterator) {
        openIterators.remove(iterator);
    }

    /**
     * Refuses new reads, waits up to {@code timeout} for the running ones, then releases every iterator still
     * open. If a read outlives the bound, nothing is released under it: the iterators keep their views until
     * their owners close them.
     */
    void close(long timeout, TimeUnit unit) {
        if (!gate.closeAndAwait(timeout, unit)) {
            log.log(System.Logger.Level.WARNING, "reads still running " + timeout + " " + unit
                    + " after close began; their iterators are released when closed");
            return;
        }
        for (DbIteratorImpl iterator : List.copyOf(openIterators)) {
            iterator.close();
        }
    }
}
