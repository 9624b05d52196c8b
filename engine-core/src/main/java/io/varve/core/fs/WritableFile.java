package io.varve.core.fs;

import java.io.IOException;
import java.nio.ByteBuffer;

/** An append-only file. One owner; not safe for concurrent use. */
public interface WritableFile extends AutoCloseable {

    /** Appends every remaining byte of {@code source}, advancing its position to its limit. */
    void write(ByteBuffer source) throws IOException;

    /** Forces written data (not necessarily metadata such as mtime) to the device: fdatasync. */
    void sync() throws IOException;

    /** Bytes written so far, including those not yet synced. */
    long size();

    @Override
    void close() throws IOException;
}
