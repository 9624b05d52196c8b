package io.varve.core.internal.sst;

import io.varve.base.CorruptionException;
import io.varve.core.internal.keys.InternalIterator;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;

/**
 * The two-level iterator of a table: the index picks a data block, a {@link BlockIterator} walks it, and
 * running off either end of a block moves to the neighbouring block.
 *
 * <p><b>Where a block's bytes live.</b> A block reached by a seek is loaded as a point lookup loads it: in
 * place from the mapping if stored uncompressed, else from the block cache or decoded into a new array that
 * the cache then keeps. A block reached by stepping off the end of the previous one (a sequential scan) is
 * decoded, on a cache miss, into this iterator's own {@link BlockScratch} whenever the cache has no room for
 * it without evicting another block, and is then not cached. That is safe because nothing else can hold
 * those bytes: the scratch never enters the cache (cached blocks are shared with other threads and must
 * never change), the previous block in it was this iterator's current block and nobody else's, and the
 * segments the iterator hands out are valid only until it moves ({@link InternalIterator}), which loading
 * the next block is. A scan over more data than the cache holds thus neither allocates a block per block nor
 * evicts blocks that point reads keep hot; a scan over data that fits still fills the cache for the next one.
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
    /** Made on the first step into another block: seeks and point-like uses never need it. */
    private BlockScratch scratch;
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
            loadBlock(blockOrdinal + 1, scratch());
            blockCursor.seekToFirst();
        }
    }

    /** While the cursor is off the start of its block, moves to the end of the previous one. */
    private void skipEmptyBackward() throws CorruptionException {
        while (!blockCursor.valid() && blockOrdinal > 0) {
            loadBlock(blockOrdinal - 1, scratch());
            blockCursor.seekToLast();
        }
    }

    private BlockScratch scratch() {
        if (scratch == null) {
            scratch = new BlockScratch();
        }
        return scratch;
    }

    private void loadBlock(int ordinal) throws CorruptionException {
        loadBlock(ordinal, null);
    }

    /** Loads block {@code ordinal}, into {@code scratch} if not null and the cache will not keep it. */
    private void loadBlock(int ordinal, BlockScratch into) throws CorruptionException {
        if (ordinal != blockOrdinal) {
            blockOrdinal = -1;
            blockCursor.invalidate();
            blockCursor.reset(table.dataBlock(ordinal, into));
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
