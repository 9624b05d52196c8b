package io.varve.core;

import io.varve.core.base.InternalIterator;
import io.varve.core.base.LookupResult;
import io.varve.core.iterator.MergingIterator;
import io.varve.core.memtable.Memtable;
import io.varve.core.merge.MergeOperator;
import io.varve.core.sst.TableReader;
import io.varve.core.version.LevelIterator;
import io.varve.core.version.ReadView;
import io.varve.core.version.TableCache;
import io.varve.core.version.TableMeta;
import io.varve.core.version.Version;
import io.varve.core.version.VersionSet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

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
final class ReadPath {

    private static final System.Logger LOG = System.getLogger(ReadPath.class.getName());
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
             ReadGate gate, IntFunction<MergeOperator> mergeOperators) {
        this.mergeOperators = mergeOperators;
        this.versions = versions;
        this.tableCache = tableCache;
        this.snapshots = snapshots;
        this.visibleSequence = visibleSequence;
        this.gate = gate;
    }

    /**
     * One point lookup's scratch and its way out: the result the sources fill in, and where the value is
     * copied while its memory is pinned (the destination segment, or a new array when there is none). One
     * small object per lookup instead of capturing lambdas and holder arrays.
     */
    private static final class PointRead {
        final LookupResult result = new LookupResult();
        final MemorySegment destination;
        byte[] array;
        int family;

        PointRead(MemorySegment destination) {
            this.destination = destination;
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
        if (options != null && options.mayBeIncomplete()) {
            throw new IllegalArgumentException("a memtable-only or cached-only read can be incomplete, which only "
                    + "get(ReadOptions, MemorySegment, MemorySegment) can report");
        }
        PointRead read = new PointRead(null);
        lookup(options, family, MemorySegment.ofArray(key), read);
        return read.array;
    }

    long get(ReadOptions options, int family, MemorySegment key, MemorySegment destination) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(destination, "destination");
        return lookup(options, family, key, new PointRead(destination));
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
        long sequence = readSequence(options);
        LookupResult result = read.result;
        // mutable() and immutables() rather than memtablesNewestFirst(), which copies into a new list.
        if (view.mutable().get(key, sequence, result)) {
            return decided(options, view, key, sequence, read);
        }
        List<Memtable> immutables = view.immutables();
        for (int i = 0; i < immutables.size(); i++) {
            if (immutables.get(i).get(key, sequence, result)) {
                return decided(options, view, key, sequence, read);
            }
        }
        if (options != null && options.memtableOnly()) {
            return ReadOptions.INCOMPLETE;
        }
        boolean cachedOnly = options != null && options.cachedOnly();
        Version version = view.version();
        List<TableMeta> level0 = version.level(0);
        for (int i = 0; i < level0.size(); i++) {
            TableMeta table = level0.get(i);
            if (table.covers(key)) {
                long found = lookupTable(table, key, sequence, read, cachedOnly);
                if (found != NOT_IN_TABLE) {
                    return found == MERGE_OPERAND ? merged(options, view, key, sequence, read) : found;
                }
            }
        }
        for (int level = 1; level < Version.NUM_LEVELS; level++) {
            TableMeta table = version.findInSortedLevel(level, key);
            if (table != null) {
                long found = lookupTable(table, key, sequence, read, cachedOnly);
                if (found != NOT_IN_TABLE) {
                    return found == MERGE_OPERAND ? merged(options, view, key, sequence, read) : found;
                }
            }
        }
        return -1;
    }

    /** The answer once a memtable decided the key. */
    private long decided(ReadOptions options, ReadView view, MemorySegment key, long sequence, PointRead read) {
        return switch (read.result.status()) {
            case FOUND -> read.take();
            case MERGE -> merged(options, view, key, sequence, read);
            case DELETED, NOT_FOUND -> -1;
        };
    }

    /**
     * Resolves a key whose newest entry is a merge operand. Memtable-only and cached-only reads report it as
     * incomplete: the operands' base may lie anywhere below.
     */
    private long merged(ReadOptions options, ReadView view, MemorySegment key, long sequence, PointRead read) {
        if (options != null && options.mayBeIncomplete()) {
            return ReadOptions.INCOMPLETE;
        }
        return read.deliver(MergeLookup.resolve(view, tableCache, key, sequence, mergeOperators.apply(read.family)));
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
            return switch (read.result.status()) {
                case FOUND -> read.take();
                case DELETED -> -1;
                case MERGE -> MERGE_OPERAND;
                case NOT_FOUND -> NOT_IN_TABLE;
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            reader.release();
        }
    }

    DbIterator iterator(ReadOptions options, int family) {
        Objects.requireNonNull(options, "options");
        if (options.mayBeIncomplete()) {
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
                for (Memtable memtable : view.memtablesNewestFirst()) {
                    children.add(memtable.iterator());
                }
                Version version = view.version();
                for (TableMeta table : version.level(0)) {
                    TableReader reader = tableCache.acquire(table);
                    try {
                        children.add(reader.newIterator());
                    } finally {
                        reader.release();
                    }
                }
                for (int level = 1; level < Version.NUM_LEVELS; level++) {
                    if (version.level(level).size() > 0) {
                        children.add(new LevelIterator(version.level(level), tableCache));
                    }
                }
                iterator = new DbIteratorImpl(this, view, new MergingIterator(children), sequence,
                        options.lowerBoundUnsafe(), options.upperBoundUnsafe(), mergeOperators.apply(family));
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
            LOG.log(System.Logger.Level.WARNING, "reads still running " + timeout + " " + unit
                    + " after close began; their iterators are released when closed");
            return;
        }
        for (DbIteratorImpl iterator : List.copyOf(openIterators)) {
            iterator.close();
        }
    }
}
