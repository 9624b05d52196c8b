package io.varve.core;

import io.varve.core.base.InternalIterator;
import io.varve.core.base.InternalKey;
import io.varve.core.base.Keys;
import io.varve.core.base.ValueKind;
import io.varve.core.iterator.MergingIterator;
import io.varve.core.memtable.Memtable;
import io.varve.core.merge.MergeOperator;
import io.varve.core.merge.Merges;
import io.varve.core.sst.TableReader;
import io.varve.core.version.LevelIterator;
import io.varve.core.version.ReadView;
import io.varve.core.version.TableCache;
import io.varve.core.version.TableMeta;
import io.varve.core.version.Version;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The slow path of a point lookup that met a merge operand: walks the key's entries at or below the read
 * sequence across every memtable and table of the view, newest first, collecting operands until a put (the
 * base), a delete (no base), an entry a range tombstone hides (no base: the tombstone deletes like a point
 * delete at its sequence) or the end, then applies the operator once. The fast path stays a single-entry
 * lookup per source; only keys that have operands pay for the merged walk.
 */
final class MergeLookup {

    private MergeLookup() {
    }

    /** The merged value of {@code key} at {@code sequence}, or null when it resolves to nothing. */
    static byte[] resolve(ReadView view, TableCache tableCache, MemorySegment key, long sequence,
                          MergeOperator operator) {
        long covering = coveringSequence(view, tableCache, key, sequence);
        try (MergingIterator merged = new MergingIterator(sources(view, tableCache))) {
            merged.seek(key, InternalKey.seekTrailer(sequence));
            List<byte[]> newestFirst = new ArrayList<>();
            byte[] base = null;
            for (; merged.valid() && Keys.compare(merged.userKey(), key) == 0; merged.next()) {
                long trailer = merged.trailer();
                if (InternalKey.sequence(trailer) < covering) {
                    break;
                }
                int kind = InternalKey.kindCode(trailer);
                if (kind == ValueKind.MERGE.code()) {
                    newestFirst.add(Keys.toArray(merged.value()));
                    continue;
                }
                if (kind == ValueKind.PUT.code()) {
                    base = Keys.toArray(merged.value());
                }
                break;
            }
            if (newestFirst.isEmpty()) {
                return base;
            }
            Collections.reverse(newestFirst);
            return Merges.fullMerge(operator, Keys.toArray(key), base, newestFirst);
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

    /** Every source of {@code view}, newest first, as internal iterators (the caller closes them). */
    private static List<InternalIterator> sources(ReadView view, TableCache tableCache) {
        List<InternalIterator> children = new ArrayList<>();
        try {
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
        } catch (RuntimeException e) {
            children.forEach(InternalIterator::close);
            throw e;
        }
        return children;
    }
}
