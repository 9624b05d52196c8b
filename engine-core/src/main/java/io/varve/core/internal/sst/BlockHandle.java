package io.varve.core.internal.sst;

/**
 * Where a block is stored: the file offset of its first byte and the size of its stored contents, not
 * counting the {@link TableFormat#BLOCK_TRAILER_SIZE}-byte trailer that follows them.
 */
record BlockHandle(long offset, int size) {

    /** The offset just past the block's trailer. */
    long end() {
        return offset + size + TableFormat.BLOCK_TRAILER_SIZE;
    }
}
