package io.varve.replication;

import io.varve.core.Db;
import java.util.Arrays;
import java.util.List;

/**
 * The key ranges a group sharing its database owns, as {@link ReplicatedDb#openShared} takes them: each
 * {@code [start, limit)} non-empty and bounded, in ascending order, none overlapping the next. Checked where
 * they are used, since a wrong list would make a snapshot carry, or a load delete, another group's keys.
 */
final class OwnedRanges {

    private OwnedRanges() {
    }

    static List<Db.Range> check(List<Db.Range> ranges) {
        byte[] previousLimit = null;
        for (Db.Range range : ranges) {
            if (range.start() == null || range.limit() == null
                    || Arrays.compareUnsigned(range.start(), range.limit()) >= 0) {
                throw new IllegalArgumentException("an owned range must be bounded and non-empty");
            }
            if (previousLimit != null && Arrays.compareUnsigned(previousLimit, range.start()) > 0) {
                throw new IllegalArgumentException("owned ranges must be ascending and disjoint");
            }
            previousLimit = range.limit();
        }
        return List.copyOf(ranges);
    }
}
