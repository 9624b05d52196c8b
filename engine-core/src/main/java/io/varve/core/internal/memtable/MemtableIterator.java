package io.varve.core.internal.memtable;

import static io.varve.core.internal.memtable.SkiplistNodeLayout.NIL;

import io.varve.core.internal.keys.InternalIterator;
import java.lang.foreign.MemorySegment;
import java.util.NoSuchElementException;

/**
 * A cursor over a memtable's skiplist. It holds one reference on the memtable from creation until
 * {@link #close()}, so the arena cannot be freed under it.
 *
 * <p>Forward steps follow level-0 links, which always form one sorted list however inserts interleave, so the
 * entries seen are sorted and complete. Entries inserted after the iterator was created may or may not be seen.
 * A backward step is a fresh search from the head for the last entry before the current one.
 */
final class MemtableIterator implements InternalIterator {

    private final Memtable memtable;
    private final Skiplist list;
    private int node = NIL;
    private boolean closed;

    MemtableIterator(Memtable memtable, Skiplist list) {
        memtable.retain();
        this.memtable = memtable;
        this.list = list;
    }

    @Override
    public boolean valid() {
        return node != NIL;
    }

    @Override
    public void seekToFirst() {
        requireOpen();
        node = list.first();
    }

    @Override
    public void seekToLast() {
        requireOpen();
        node = list.last();
    }

    @Override
    public void seek(MemorySegment userKey, long trailer) {
        requireOpen();
        node = list.findGreaterOrEqual(userKey, 0, userKey.byteSize(), trailer);
    }

    @Override
    public void seekForPrev(MemorySegment userKey, long trailer) {
        requireOpen();
        node = list.findLessOrEqual(userKey, 0, userKey.byteSize(), trailer);
    }

    @Override
    public void next() {
        requireValid();
        node = list.next(node);
    }

    @Override
    public void prev() {
        requireValid();
        node = list.previous(node);
    }

    @Override
    public MemorySegment userKey() {
        requireValid();
        return list.userKey(node);
    }

    @Override
    public long trailer() {
        requireValid();
        return list.trailer(node);
    }

    @Override
    public MemorySegment value() {
        requireValid();
        return list.value(node);
    }

    @Override
    public int copyUserKey(byte[] dest) {
        requireValid();
        return list.copyUserKey(node, dest);
    }

    @Override
    public int copyValue(byte[] dest) {
        requireValid();
        return list.copyValue(node, dest);
    }

    /** Releases the iterator's reference on the memtable; closing twice is harmless. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            node = NIL;
            memtable.release();
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("iterator is closed");
        }
    }

    private void requireValid() {
        requireOpen();
        if (node == NIL) {
            throw new NoSuchElementException("iterator is not positioned on an entry");
        }
    }
}
