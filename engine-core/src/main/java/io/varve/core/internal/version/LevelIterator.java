package io.varve.core.internal.version;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.sst.TableReader;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * Iterates a sorted level (non-overlapping tables in key order) as one sequence, opening each table's
 * iterator only when the cursor reaches it. Exactly one table iterator is open at a time. Tables are reached
 * by position ({@link List#get}), which for a version's {@link LevelFiles} is a search over its chunk
 * directory: cheap next to opening a table.
 */
public final class LevelIterator implements InternalIterator {

    private final List<TableMeta> tables;
    private final TableCache cache;
    private int index = -1;
    private InternalIterator table;

    /** @param tables a sorted level, e.g. {@link Version#level}; must not change while iterated */
    public LevelIterator(List<TableMeta> tables, TableCache cache) {
        this.tables = tables;
        this.cache = cache;
    }

    public LevelIterator(TableMeta[] tables, TableCache cache) {
        this(Arrays.asList(tables), cache);
    }

    @Override
    public boolean valid() {
        return table != null && table.valid();
    }

    @Override
    public void seekToFirst() {
        open(0);
        if (table != null) {
            table.seekToFirst();
        }
        skipForward();
    }

    @Override
    public void seekToLast() {
        open(tables.size() - 1);
        if (table != null) {
            table.seekToLast();
        }
        skipBackward();
    }

    @Override
    public void seek(MemorySegment userKey, long trailer) {
        // The first table whose largest key is at or after the target.
        int low = 0;
        int high = tables.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            TableMeta t = tables.get(mid);
            if (InternalKey.compare(MemorySegment.ofArray(t.largestKey()), t.largestTrailer(), userKey, trailer) < 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        open(low);
        if (table != null) {
            table.seek(userKey, trailer);
        }
        skipForward();
    }

    @Override
    public void seekForPrev(MemorySegment userKey, long trailer) {
        // The last table whose smallest key is at or before the target.
        int low = 0;
        int high = tables.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            TableMeta t = tables.get(mid);
            if (InternalKey.compare(MemorySegment.ofArray(t.smallestKey()), t.smallestTrailer(), userKey, trailer) <= 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        open(low - 1);
        if (table != null) {
            table.seekForPrev(userKey, trailer);
        }
        skipBackward();
    }

    @Override
    public void next() {
        table.next();
        skipForward();
    }

    @Override
    public void prev() {
        table.prev();
        skipBackward();
    }

    @Override
    public MemorySegment userKey() {
        return table.userKey();
    }

    @Override
    public long trailer() {
        return table.trailer();
    }

    @Override
    public MemorySegment value() {
        return table.value();
    }

    @Override
    public int copyUserKey(byte[] dest) {
        return table.copyUserKey(dest);
    }

    @Override
    public int copyValue(byte[] dest) {
        return table.copyValue(dest);
    }

    @Override
    public void close() {
        closeTable();
        index = -1;
    }

    private void skipForward() {
        while (table != null && !table.valid()) {
            if (index + 1 >= tables.size()) {
                return;
            }
            open(index + 1);
            table.seekToFirst();
        }
    }

    private void skipBackward() {
        while (table != null && !table.valid()) {
            if (index - 1 < 0) {
                return;
            }
            open(index - 1);
            table.seekToLast();
        }
    }

    /** Makes table {@code i} the open one; out of range leaves none open. */
    private void open(int i) {
        if (i == index && table != null) {
            return;
        }
        closeTable();
        index = i;
        if (i < 0 || i >= tables.size()) {
            return;
        }
        TableReader reader = cache.acquire(tables.get(i));
        try {
            table = reader.newIterator();
        } finally {
            // The iterator holds a reference of its own.
            reader.release();
        }
    }

    private void closeTable() {
        if (table != null) {
            table.close();
            table = null;
        }
    }
}
