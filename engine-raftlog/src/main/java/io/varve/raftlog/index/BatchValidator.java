package io.varve.raftlog.index;

import io.varve.raftlog.format.BatchItem;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a group-commit round's batches against Raft's append rule before any of them is written, so a
 * rejected batch never reaches the log. Batches earlier in the same round are not applied to the index yet
 * (that happens after the round's sync), so the validator keeps their effect on each touched group's range
 * in an overlay. Used only by the write leader; one instance per round.
 */
public final class BatchValidator {
    private final MemIndex index;
    /** group -> {first, count}; count 0 means no entries. */
    private final Map<Long, long[]> overlay = new HashMap<>();

    public BatchValidator(MemIndex index) {
        this.index = index;
    }

    /**
     * Accepts the batch (recording its effect for later batches of the round) or throws, leaving the
     * overlay untouched.
     *
     * @throws IllegalArgumentException if an append would leave a gap in a group's log
     */
    public void accept(List<BatchItem> items) {
        Map<Long, long[]> pending = null;
        for (BatchItem item : items) {
            if (item instanceof BatchItem.Put || item instanceof BatchItem.Delete
                    || item instanceof BatchItem.ClearState || item instanceof BatchItem.Commit) {
                continue; // state items never affect a group's entry range
            }
            if (pending == null) {
                pending = new HashMap<>();
            }
            long[] r = pending.computeIfAbsent(item.group(), g -> current(g).clone());
            switch (item) {
                case BatchItem.Entries e -> {
                    if (r[1] == 0 || e.firstIndex() <= r[0]) {
                        r[0] = e.firstIndex();
                        r[1] = e.count();
                    } else if (e.firstIndex() <= r[0] + r[1]) {
                        r[1] = e.firstIndex() - r[0] + e.count();
                    } else {
                        throw new IllegalArgumentException("group " + item.group() + ": appending at index "
                                + e.firstIndex() + " would leave a gap after last index " + (r[0] + r[1] - 1)
                                + " (entries must start at or below " + (r[0] + r[1]) + ")");
                    }
                }
                case BatchItem.Compact c -> {
                    if (r[1] > 0 && c.index() > r[0]) {
                        long drop = Math.min(r[1], c.index() - r[0]);
                        r[0] += drop;
                        r[1] -= drop;
                    }
                }
                case BatchItem.Clean c -> {
                    r[0] = 0;
                    r[1] = 0;
                }
                case BatchItem.Retain t -> {
                    long end = Math.min(r[0] + r[1], t.first() + t.count());
                    long start = Math.max(r[0], t.first());
                    r[0] = start;
                    r[1] = Math.max(0, end - start);
                }
                default -> throw new IllegalStateException("unexpected item " + item);
            }
        }
        if (pending != null) {
            overlay.putAll(pending);
        }
    }

    private long[] current(long group) {
        long[] r = overlay.get(group);
        if (r != null) {
            return r;
        }
        long[] fromIndex = index.range(group);
        return fromIndex == null ? new long[] {0, 0} : fromIndex;
    }
}
