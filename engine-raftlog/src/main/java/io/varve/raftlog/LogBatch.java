package io.varve.raftlog;

import io.varve.raftlog.format.BatchBuilder;
import java.util.List;

/**
 * Changes to any number of groups, written atomically by {@link RaftLogEngine#write}: after a crash either
 * the whole batch is recovered or none of it. Operations apply in the order they were added. Data is copied
 * when added, so arrays may be reused afterwards; a batch may be reused after {@link #clear()}.
 *
 * <p>Not thread-safe.
 */
public final class LogBatch {
    final BatchBuilder builder = new BatchBuilder();

    /**
     * Appends entries {@code firstIndex, firstIndex + 1, ...} to a group's log. Raft semantics: existing
     * entries at or after {@code firstIndex} are replaced (the old suffix is truncated). Appending beyond the
     * last index + 1 of a group that has entries is rejected at write time with IllegalArgumentException; a
     * group without entries accepts any first index.
     */
    public LogBatch addEntries(long group, long firstIndex, List<byte[]> entries) {
        builder.addEntries(group, firstIndex, entries);
        return this;
    }

    /** Sets a key of the group's state (e.g. the Raft hard state). */
    public LogBatch put(long group, byte[] key, byte[] value) {
        builder.put(group, key, value);
        return this;
    }

    public LogBatch delete(long group, byte[] key) {
        builder.delete(group, key);
        return this;
    }

    /** Drops the group's entries below {@code index} (all of them if it is past the last one). */
    public LogBatch compactTo(long group, long index) {
        builder.compactTo(group, index);
        return this;
    }

    /**
     * Drops the group's entries after {@code lastIndexKept} (all of them if it is below the first one; none if
     * it is at or past the last one), keeping its state. This is Raft's suffix truncation when a follower's
     * log conflicts with its leader's and nothing is appended in the same step; an append
     * ({@link #addEntries}) already truncates what it overwrites. Stored as the format's {@code RETAIN} item
     * over {@code [0, lastIndexKept]}, which recovery and purge replay like any other item.
     *
     * @throws IllegalArgumentException if {@code lastIndexKept} is negative or {@code Long.MAX_VALUE}
     */
    public LogBatch truncateAfter(long group, long lastIndexKept) {
        if (lastIndexKept < 0 || lastIndexKept == Long.MAX_VALUE) {
            throw new IllegalArgumentException("last index kept must be in [0, Long.MAX_VALUE): " + lastIndexKept);
        }
        builder.retain(group, 0, lastIndexKept + 1);
        return this;
    }

    /** Removes the group: all its entries and all its state. */
    public LogBatch clean(long group) {
        builder.clean(group);
        return this;
    }

    public boolean isEmpty() {
        return builder.isEmpty();
    }

    /** An upper bound of the bytes this batch will take in the log (before compression). */
    public long approximateSize() {
        return builder.approximateSize();
    }

    public LogBatch clear() {
        builder.clear();
        return this;
    }
}
