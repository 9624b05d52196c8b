package io.varve.base.fs;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A file being written sequentially: each write continues where the previous one ended. Opened with
 * {@link FileSystem#create} or {@link FileSystem#openForAppend} it appends; opened with
 * {@link FileSystem#openForOverwrite} it writes over existing bytes first. One owner; not safe for concurrent use.
 */
public interface WritableFile extends AutoCloseable {

    /** Writes every remaining byte of {@code source} at {@link #size()}, advancing its position to its limit. */
    void write(ByteBuffer source) throws IOException;

    /** Forces written data (not necessarily metadata such as mtime) to the device: fdatasync. */
    void sync() throws IOException;

    /**
     * Where the next write goes: the end of what this handle has written, synced or not. For a file opened by
     * {@code create} or {@code openForAppend} that is the file's length; an overwritten file may be longer.
     */
    long size();

    @Override
    void close() throws IOException;
}
