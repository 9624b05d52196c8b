package io.varve.core.internal;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.merge.MergeOperator;
import io.varve.core.internal.merge.Merges;
import io.varve.core.internal.sst.TableReader;
import io.varve.core.internal.version.ReadView;
import io.varve.core.internal.version.TableCache;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;

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
 * rules the key out is skipped without reading a block. The fast path stays a single-entry lookup per
 * source; only keys that have operands pay for the walk.
 */
public final class MergeLookup {

    private MergeLookup() {
    }

    /** What the walk has gathered: operands newest first, and the base once a source decided it. */
    private static final class Walk {
        final MemorySegment key;
        final long sequence;
        final long covering;
        final List<byte[]> newestFirst = new ArrayList<>(4);
        byte[] base;

        Walk(MemorySegment key, long sequence, long covering) {
            this.key = key;
            this.sequence = sequence;
            this.covering = covering;
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
                    newestFirst.add(Keys.toArray(source.value()));
                    continue;
                }
                if (kind == ValueKind.PUT.code()) {
                    base = Keys.toArray(source.value());
                }
                return true;
            }
            return false;
        }

        boolean scanTable(TableCache tableCache, TableMeta table) {
            TableReader reader = tableCache.acquire(table);
            try {
                if (!reader.mayContain(key)) {
                    return false;
                }
                try (InternalIterator source = reader.newIterator()) {
                    return scan(source);
                }
            } finally {
                reader.release();
            }
        }

        byte[] result(MergeOperator operator) {
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
        Walk walk = new Walk(key, sequence, coveringSequence(view, tableCache, key, sequence));
        if (scanMemtable(walk, view.mutable())) {
            return walk.result(operator);
        }
        List<Memtable> immutables = view.immutables();
        for (int i = 0; i < immutables.size(); i++) {
            if (scanMemtable(walk, immutables.get(i))) {
                return walk.result(operator);
            }
        }
        Version version = view.version();
        List<TableMeta> level0 = version.level(0);
        for (int i = 0; i < level0.size(); i++) {
            TableMeta table = level0.get(i);
            if (table.covers(key) && walk.scanTable(tableCache, table)) {
                return walk.result(operator);
            }
        }
        for (int level = 1; level < Version.NUM_LEVELS; level++) {
            TableMeta table = version.findInSortedLevel(level, key);
            if (table != null && walk.scanTable(tableCache, table)) {
                return walk.result(operator);
            }
        }
        return walk.result(operator);
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
