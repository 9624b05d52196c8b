package io.varve.core.internal.sst;

import io.varve.base.CorruptionException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * The uncompressed contents of one data or index block, whose restart array has been checked, plus where
 * the block is stored so that any damage found later can be reported against the right file and offset.
 *
 * <p>{@link #contents} is either a slice of the table's mapping (valid while the table reader is retained)
 * or a heap array produced by decompression (valid as long as it is referenced). Immutable.
 */
final class Block {

    static final ValueLayout.OfInt FIXED32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    final MemorySegment contents;
    /** Entries occupy {@code [0, entriesEnd)}; the restart array starts here. */
    final int entriesEnd;
    final int restartCount;
    final Path file;
    /** File offset of the block's stored contents: the offset named in corruption reports. */
    final long fileOffset;

    private Block(MemorySegment contents, int entriesEnd, int restartCount, Path file, long fileOffset) {
        this.contents = contents;
        this.entriesEnd = entriesEnd;
        this.restartCount = restartCount;
        this.file = file;
        this.fileOffset = fileOffset;
    }

    /**
     * Validates the block's trailing restart array: the count fits, offsets are strictly increasing, start at
     * 0 and point inside the entry area. Entries themselves are validated as they are decoded.
     */
    static Block parse(MemorySegment contents, Path file, long fileOffset) throws CorruptionException {
        long size = contents.byteSize();
        if (size < TableFormat.RESTART_ENTRY_SIZE || size > TableFormat.MAX_BLOCK_CONTENTS_SIZE) {
            throw new CorruptionException(file, fileOffset, "block of impossible size " + size);
        }
        int count = contents.get(FIXED32, size - TableFormat.RESTART_ENTRY_SIZE);
        long maxCount = (size - TableFormat.RESTART_ENTRY_SIZE) / TableFormat.RESTART_ENTRY_SIZE;
        if (count < 0 || count > maxCount) {
            throw new CorruptionException(file, fileOffset, "restart count " + count + " does not fit a "
                    + size + "-byte block");
        }
        int entriesEnd = (int) (size - (long) (count + 1) * TableFormat.RESTART_ENTRY_SIZE);
        if (count == 0 && entriesEnd != 0) {
            throw new CorruptionException(file, fileOffset, "block has entries but no restart points");
        }
        int previous = -1;
        for (int i = 0; i < count; i++) {
            int restart = contents.get(FIXED32, entriesEnd + (long) i * TableFormat.RESTART_ENTRY_SIZE);
            if (restart <= previous || restart >= entriesEnd || (i == 0 && restart != 0)) {
                throw new CorruptionException(file, fileOffset, "restart point " + i + " has bad offset "
                        + restart);
            }
            previous = restart;
        }
        return new Block(contents, entriesEnd, count, file, fileOffset);
    }

    /** The offset of restart point {@code i}, already validated. */
    int restart(int i) {
        return contents.get(FIXED32, entriesEnd + (long) i * TableFormat.RESTART_ENTRY_SIZE);
    }

    long byteSize() {
        return contents.byteSize();
    }

    CorruptionException corruption(String detail) {
        return new CorruptionException(file, fileOffset, detail);
    }
}
