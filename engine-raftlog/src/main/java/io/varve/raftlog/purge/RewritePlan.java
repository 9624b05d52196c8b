package io.varve.raftlog.purge;

import io.varve.raftlog.format.BatchItem;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A cut of the index taken while no write was in flight: which entries to copy to the rewrite queue, and the
 * state of every group at that moment (see {@link Purger} for why the whole state is written).
 */
final class RewritePlan {

    /** Entries {@code firstIndex ..} of a group and where they are now. */
    record Copy(long group, long firstIndex, long[] locations, int[] ordinals) {
    }

    /** A live group's range ({@code count} 0 if it has no entries) and key/values. */
    record GroupSnapshot(long group, long first, long count, List<Map.Entry<byte[], byte[]>> state) {
    }

    /** Append files below this sequence are covered by the plan. */
    final long appendCut;
    /** The oldest append file below the cut that a reported (not copied) group still has entries in. */
    long oldestPinned = Long.MAX_VALUE;
    /** What the plan's commit records: where the append queue was synced, and which files must survive. */
    BatchItem.Commit commit;
    final List<Copy> copies = new ArrayList<>();
    final List<GroupSnapshot> snapshot = new ArrayList<>();
    /** Groups with data in the rewrite queue that no longer exist: written as Clean. */
    final List<Long> deadGroups = new ArrayList<>();
    final List<Long> heavyGroups = new ArrayList<>();

    RewritePlan(long appendCut) {
        this.appendCut = appendCut;
    }
}
