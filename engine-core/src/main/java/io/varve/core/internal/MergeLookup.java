package io.varve.core.internal;

import io.varve.base.CorruptionException;
import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.keys.LookupResult;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.merge.LongMergeOperator;
import io.varve.core.merge.MergeOperator;
import io.varve.core.internal.merge.Merges;
import io.varve.core.internal.sst.TableReader;
import io.varve.core.internal.version.ReadView;
import io.varve.core.internal.version.TableCache;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;

import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The slow path of a point lookup that met a merge operand: walks the key's entries at or below the read
 * sequence source by source, newest first (memtables, then level 0, then one table per sorted level),
 * collecting operands until a put (the base), a delete (no base), an entry a range tombstone hides (no base:
 * the tombstone deletes like a point delete at its sequence) or the end, then applies the operator once.
 *
 * <p>A source holds only entries older than every newer source's entries of the same key, so the walk
 * stops at the first source that decides the base and never opens the older ones; a table whose filter
 * rules the key out is skipped without reading a block, and a table is first asked for the key's newest
 * entry alone (a point lookup, no iterator), which decides the walk whenever it is a put or a delete. The
 * fast path stays a single-entry lookup per source; only keys that have operands pay for the walk.
 *
 * <p>With a {@link LongMergeOperator} the walk folds each operand into a {@code long} where it is stored,
 * in the memtable's arena or the table's block, so resolving a counter allocates its result and nothing per
 * operand. If the operator rejects a value or an operand there, the walk starts over the general way, which
 * copies the operands and calls {@code fullMerge}: a malformed operand then fails the read exactly as it
 * would have without the fast path.
 */
public final class MergeLookup {

    private MergeLookup() {
    }

    /** What the walk has gathered: operands newest first (or their fold), and the base once decided. */
    private static final class Walk {
        final MemorySegment key;
        final long sequence;
        final long covering;
        /** Null for the general path. */
        final LongMergeOperator folding;
        final List<byte[]> newestFirst = new ArrayList<>(4);
        /** The base's bytes: on the general path, or when folding met no operand above it. */
        byte[] base;
        long folded;
        int foldedOperands;
        boolean foldedBase;
        long baseValue;
        /** The folding met something its operator rejects: the general path must resolve the key. */
        boolean abandoned;
        private LookupResult point;

        Walk(MemorySegment key, long sequence, long covering, LongMergeOperator folding) {
            this.key = key;
            this.sequence = sequence;
            this.covering = covering;
            this.folding = folding;
        }

        /** Reads the key's entries from {@code source}; true once the base is decided (a put, or none). */
        boolean scan(InternalIterator source) {
            source.seek(key, InternalKey.seekTrailer(sequence));
            for (; source.valid() && Keys.compare(source.userKey(), key) == 0; source.next()) {
                long trailer = source.trailer();
                if (InternalKey.sequence(trailer) < covering) {
                    return true;
                }
                int kind = InternalKey.kindCode(trailer);
                if (kind == ValueKind.MERGE.code()) {
                    if (!addOperand(source.value())) {
                        return true;
                    }
                    continue;
                }
                if (kind == ValueKind.PUT.code()) {
                    setBase(source.value());
                }
                return true;
            }
            return false;
        }

        boolean scanTable(TableCache tableCache, TableMeta table) {
            TableReader reader = tableCache.acquire(table);
            try {
                if (point == null) {
                    point = new LookupResult();
                }
                // Consults the filter first: a table it rules out costs no block.
                reader.get(key, sequence, point);
                switch (point.status()) {
                    case NOT_FOUND -> {
                        return false;
                    }
                    case DELETED -> {
                        return true;
                    }
                    case FOUND -> {
                        if (point.sequence() >= covering) {
                            setBase(point.value());
                        }
                        return true;
                    }
                    default -> {
                        // The table's newest entry is an operand: read what lies below it too.
                        try (InternalIterator source = reader.newIterator()) {
                            return scan(source);
                        }
                    }
                }
            } catch (CorruptionException e) {
                throw new UncheckedIOException(e);
            } finally {
                reader.release();
            }
        }

        private boolean addOperand(MemorySegment operand) {
            if (folding == null) {
                newestFirst.add(Keys.toArray(operand));
                return true;
            }
            try {
                long start = foldedOperands == 0 ? folding.identity() : folded;
                folded = folding.combine(start, folding.decode(operand));
                foldedOperands++;
                return true;
            } catch (RuntimeException e) {
                abandoned = true;
                return false;
            }
        }

        private void setBase(MemorySegment value) {
            if (folding == null || foldedOperands == 0) {
                // Without operands above it the base is the answer as stored, well-formed for the operator
                // or not.
                base = Keys.toArray(value);
                return;
            }
            try {
                baseValue = folding.decode(value);
                foldedBase = true;
            } catch (RuntimeException e) {
                abandoned = true;
            }
        }

        byte[] result(MergeOperator operator) {
            if (folding != null) {
                if (foldedOperands == 0) {
                    return base;
                }
                try {
                    return folding.encode(foldedBase ? folding.combine(folded, baseValue) : folded);
                } catch (RuntimeException e) {
                    abandoned = true;
                    return null;
                }
            }
            if (newestFirst.isEmpty()) {
                return base;
            }
            Collections.reverse(newestFirst);
            return Merges.fullMerge(operator, Keys.toArray(key), base, newestFirst);
        }
    }

    /** The merged value of {@code key} at {@code sequence}, or null when it resolves to nothing. */
    static byte[] resolve(ReadView view, TableCache tableCache, MemorySegment key, long sequence,
                          MergeOperator operator) {
        long covering = coveringSequence(view, tableCache, key, sequence);
        if (operator instanceof LongMergeOperator folding) {
            Walk walk = walk(view, tableCache, new Walk(key, sequence, covering, folding));
            if (!walk.abandoned) {
                byte[] result = walk.result(operator);
                if (!walk.abandoned) {
                    return result;
                }
            }
        }
        return walk(view, tableCache, new Walk(key, sequence, covering, null)).result(operator);
    }

    /** Runs the walk through the view's sources until one decides the base, or a folding walk gives up. */
    private static Walk walk(ReadView view, TableCache tableCache, Walk walk) {
        if (scanMemtable(walk, view.mutable())) {
            return walk;
        }
        List<Memtable> immutables = view.immutables();
        for (int i = 0; i < immutables.size(); i++) {
            if (scanMemtable(walk, immutables.get(i))) {
                return walk;
            }
        }
        Version version = view.version();
        List<TableMeta> level0 = version.level(0);
        for (int i = 0; i < level0.size(); i++) {
            TableMeta table = level0.get(i);
            if (table.covers(walk.key) && walk.scanTable(tableCache, table)) {
                return walk;
            }
        }
        for (int level = 1; level < Version.NUM_LEVELS; level++) {
            TableMeta table = version.findInSortedLevel(level, walk.key);
            if (table != null && walk.scanTable(tableCache, table)) {
                return walk;
            }
        }
        return walk;
    }

    private static boolean scanMemtable(Walk walk, Memtable memtable) {
        try (InternalIterator source = memtable.iterator()) {
            return walk.scan(source);
        }
    }

    /**
     * The newest sequence at or below {@code sequence} of a range tombstone in any source of the view that
     * covers {@code key}, or 0. A sorted level's tombstones over the key lie in the one table whose range takes
     * in the key, since a table's range takes in its tombstones.
     */
    private static long coveringSequence(ReadView view, TableCache tableCache, MemorySegment key, long sequence) {
        byte[] bytes = key.toArray(ValueLayout.JAVA_BYTE);
        long covering = 0;
        for (Memtable memtable : view.memtablesNewestFirst()) {
            if (memtable.rangeTombstoneCount() > 0) {
                covering = Math.max(covering, memtable.rangeTombstones().coveringSequence(bytes, sequence));
            }
        }
        Version version = view.version();
        for (TableMeta table : version.level(0)) {
            if (table.covers(key)) {
                covering = Math.max(covering, tableCovering(tableCache, table, bytes, sequence));
            }
        }
        for (int level = 1; level < Version.NUM_LEVELS; level++) {
            TableMeta table = version.findInSortedLevel(level, key);
            if (table != null) {
                covering = Math.max(covering, tableCovering(tableCache, table, bytes, sequence));
            }
        }
        return covering;
    }

    private static long tableCovering(TableCache tableCache, TableMeta table, byte[] key, long sequence) {
        TableReader reader = tableCache.acquire(table);
        try {
            return reader.rangeTombstones().coveringSequence(key, sequence);
        } finally {
            reader.release();
        }
    }
}
