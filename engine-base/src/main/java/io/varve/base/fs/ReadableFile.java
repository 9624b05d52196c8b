package io.varve.base.fs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/** A file opened for reading. Positional reads are safe from several threads at once. */
public interface ReadableFile extends AutoCloseable {

    long size() throws IOException;

    /**
     * Reads up to {@code destination.remaining()} bytes starting at {@code position}.
     *
     * @return the number of bytes read, or -1 at end of file
     */
    int read(ByteBuffer destination, long position) throws IOException;

    /** Reads exactly {@code destination.remaining()} bytes or throws {@link java.io.EOFException}. */
    default void readFully(ByteBuffer destination, long position) throws IOException {
        long at = position;
        while (destination.hasRemaining()) {
            int n = read(destination, at);
            if (n < 0) {
                throw new java.io.EOFException("end of file at offset " + at);
            }
            at += n;
        }
    }

    /**
     * Maps the whole file read-only into memory owned by {@code arena}: the mapping lives until the arena is
     * closed, independently of this file handle.
     */
    MemorySegment map(Arena arena) throws IOException;

    @Override
    void close() throws IOException;
}
