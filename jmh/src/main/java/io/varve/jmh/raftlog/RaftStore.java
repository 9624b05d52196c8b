package io.varve.jmh.raftlog;

import java.io.IOException;

/**
 * A Raft log store as the benchmarks drive it: append one entry to each of several groups plus their hard
 * state in one atomic write, garbage-collect old entries, and account for the bytes that reached the device.
 */
interface RaftStore extends AutoCloseable {

    /** One atomic write: {@code entries[i]} at {@code indexes[i]} of {@code groups[i]}, and each group's state. */
    void append(long[] groups, long[] indexes, byte[][] entries, byte[] hardState, boolean sync) throws IOException;

    /** Drops the group's entries below {@code index} (Raft log GC); not synced. */
    void compact(long group, long index) throws IOException;

    /** Periodic housekeeping the store needs (Varve: purge); may compact groups it reports. */
    void maintain(long[] lastIndexes, int keep) throws IOException;

    /** Bytes written to the device so far, by the store's own accounting. */
    long deviceBytesWritten();

    /** Extra facts for the report (e.g. fsyncs per write); empty if none. */
    default String details() {
        return "";
    }

    /** How {@link #deviceBytesWritten()} is counted, for the report. */
    String accounting();

    @Override
    void close() throws IOException;
}
