package io.varve.server.types;

import io.varve.server.store.StreamId;

/**
 * How XADD and XTRIM trim: by length ({@code MAXLEN}) or by lowest ID ({@code MINID}), exactly or
 * approximately ({@code ~}), at most {@code limit} entries when approximate (0: no limit).
 *
 * <p>Approximate trimming follows Redis's observable rule: Redis stores entries in nodes of
 * {@value #NODE_ENTRIES} ({@code stream-node-max-entries}) and {@code ~} removes only whole nodes from the
 * head. Varve has no nodes, so it counts the head in runs of that many entries and removes whole runs, which
 * gives the lengths Redis gives for streams built by XADD.
 */
public record StreamTrim(boolean byLength, long maxLength, StreamId minId, boolean approximate, long limit) {

    /** Redis's default {@code stream-node-max-entries}. */
    public static final int NODE_ENTRIES = 100;
    /** The work limit of {@code ~} without LIMIT: a hundred nodes. */
    public static final long DEFAULT_APPROXIMATE_LIMIT = 100L * NODE_ENTRIES;

    /**
     * How many of the {@code candidates} head entries (of a stream of {@code length}) that the strategy would
     * remove it does remove: all when exact; when approximate, whole runs of {@value #NODE_ENTRIES} from the
     * head (the last run may be shorter, as Redis's tail node is), within {@code limit}.
     */
    long allowed(long candidates, long length) {
        if (!approximate) {
            return candidates;
        }
        long removed = 0;
        while (removed < length) {
            long node = Math.min(NODE_ENTRIES, length - removed);
            if (removed + node > candidates || (limit > 0 && removed + node > limit)) {
                break;
            }
            removed += node;
        }
        return removed;
    }
}
