package io.varve.core.internal.sst;

import io.varve.base.CorruptionException;
import io.varve.core.internal.keys.InternalIterator;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;

/**
 * The two-level iterator of a table: the index picks a data block, a {@link BlockIterator} walks it, and
 * running off either end of a block moves to the neighbouring block.
 *
 * <p>Holds a reference to its {@link TableReader} from creation to {@link #close()}. Damage is thrown as
 * {@link UncheckedIOException} wrapping {@link CorruptionException}, leaving the iterator invalid. Calling
 * {@link #next()}, {@link #prev()} or an accessor while not {@link #valid()} is a bug and throws
 * {@link IllegalStateException}. Not thread-safe.
 */
final class TableIterator implements InternalIterator {

    private final TableReader table;
    private final IndexBlock index;
    private final BlockIterator blockCursor;
    /** The data block loaded into {@link #blockCursor}, or -1. */
    private int blockOrdinal = -1;
    private boolean closed;

    TableIterator(TableReader table, IndexBlock index) {
        this.table = table;
        this.index = index;
        this.blockCursor = new BlockIterator(table.globalSequence(), true);
    }

    @Override
    public boolean valid() {
        return !closed && blockCursor.valid();
    }

    @Override
    public void seekToFirst() {
        requireOpen();
        try {
            loadBlock(0);
            blockCursor.seekToFirst();
            skipEmptyForward();
        } catch (CorruptionException e) {
            throw failed(e);
        }
    }

    @Override
    public void seekToLast() {
        requireOpen();
        try {
            loadBlock(index.count() - 1);
            blockCursor.seekToLast();
            skipEmptyBackward();
        } catch (CorruptionException e) {
            throw failed(e);
        }
    }

    @Override
    public void seek(MemorySegment userKey, long trailer) {
        requireOpen();
        try {
            int ordinal = index.findFirstAtOrAfter(userKey, trailer);
            if (ordinal == index.count()) {
                blockCursor.invalidate();
                return;
            }
            loadBlock(ordinal);
            blockCursor.seek(userKey, trailer);
            skipEmptyForward();
        } catch (CorruptionException e) {
            throw failed(e);
        }
    }

    @Override
    public void seekForPrev(MemorySegment userKey, long trailer) {
        requireOpen();
        try {
            int ordinal = index.findFirstAtOrAfter(userKey, trailer);
            if (ordinal == index.count()) {
                // Every separator, hence every entry, is below the target.
                loadBlock(ordinal - 1);
                blockCursor.seekToLast();
            } else {
                // Earlier blocks end below their separators, which are below the target.
                loadBlock(ordinal);
                blockCursor.seekForPrev(userKey, trailer);
            }
            skipEmptyBackward();
        } catch (CorruptionException e) {
            throw failed(e);
        }
    }

    @Override
    public void next() {
        requireValid();
        try {
            blockCursor.next();
            skipEmptyForward();
        } catch (CorruptionException e) {
            throw failed(e);
        }
    }

    @Override
    public void prev() {
        requireValid();
        try {
            blockCursor.prev();
            skipEmptyBackward();
        } catch (CorruptionException e) {
            throw failed(e);
        }
    }

    @Override
    public MemorySegment userKey() {
        requireValid();
        return blockCursor.userKey();
    }

    @Override
    public long trailer() {
        requireValid();
        return blockCursor.trailer();
    }

    @Override
    public MemorySegment value() {
        requireValid();
        return blockCursor.value();
    }

    @Override
    public int copyUserKey(byte[] dest) {
        requireValid();
        return blockCursor.copyUserKey(dest);
    }

    @Override
    public int copyValue(byte[] dest) {
        requireValid();
        return blockCursor.copyValue(dest);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            blockCursor.invalidate();
            table.release();
        }
    }

    /** While the cursor is off the end of its block, moves to the start of the next one. */
    private void skipEmptyForward() throws CorruptionException {
        while (!blockCursor.valid() && blockOrdinal + 1 < index.count()) {
            loadBlock(blockOrdinal + 1);
            blockCursor.seekToFirst();
        }
    }

    /** While the cursor is off the start of its block, moves to the end of the previous one. */
    private void skipEmptyBackward() throws CorruptionException {
        while (!blockCursor.valid() && blockOrdinal > 0) {
            loadBlock(blockOrdinal - 1);
            blockCursor.seekToLast();
        }
    }

    private void loadBlock(int ordinal) throws CorruptionException {
        if (ordinal != blockOrdinal) {
            blockOrdinal = -1;
            blockCursor.invalidate();
            blockCursor.reset(table.dataBlock(ordinal));
            blockOrdinal = ordinal;
        }
    }

    private UncheckedIOException failed(CorruptionException e) {
        blockCursor.invalidate();
        return new UncheckedIOException(e);
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("iterator is closed");
        }
    }

    private void requireValid() {
        requireOpen();
        if (!blockCursor.valid()) {
            throw new IllegalStateException("iterator is not positioned on an entry");
        }
    }
}
