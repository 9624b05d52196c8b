package io.varve.raftlog.index;

import java.util.HashMap;
import java.util.Map;

/**
 * Everything the index knows about one Raft group: its entry locations and its key/value state (values kept
 * on the heap: Raft state such as the hard state is small). A group exists while it has an entry or a key.
 */
final class GroupState {
    private static final long MAP_ENTRY_OVERHEAD = 64;

    final long group;
    final EntryRing entries = new EntryRing();
    Map<ByteKey, byte[]> state;
    /** Recovery only: the batch whose gap created the most recent placeholders, for error messages. */
    long gapFileId = -1;
    long gapPosition;
    /**
     * Recovery only: a gap too large to fill with placeholders was met, so the entries below it were dropped
     * outright. Later batches cannot bring them back, so this is reported like a hole left open.
     */
    boolean droppedBelowGap;

    GroupState(long group) {
        this.group = group;
    }

    boolean isEmpty() {
        return entries.isEmpty() && (state == null || state.isEmpty());
    }

    Map<ByteKey, byte[]> state() {
        if (state == null) {
            state = new HashMap<>();
        }
        return state;
    }

    long heapBytes() {
        long bytes = 48 + entries.heapBytes();
        if (state != null) {
            bytes += 48;
            for (Map.Entry<ByteKey, byte[]> e : state.entrySet()) {
                bytes += MAP_ENTRY_OVERHEAD + e.getKey().bytes().length + e.getValue().length;
            }
        }
        return bytes;
    }
}
