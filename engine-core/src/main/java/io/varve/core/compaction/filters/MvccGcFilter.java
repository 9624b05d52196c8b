package io.varve.core.compaction.filters;

import io.varve.core.compaction.CompactionFilter;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * MVCC garbage collection during compaction of the <b>write</b> column family, in the shape TiKV runs it
 * (see {@link MvccKeys} for the layout). Below the GC safe point, readers only ever ask for the newest
 * version at or below it, so for each user key the filter keeps:
 * <ul>
 *   <li>every record committed after the safe point;</li>
 *   <li>the newest PUT or DELETE committed at or before it (the version a read at the safe point sees).</li>
 * </ul>
 * It removes older PUTs and DELETEs, and every ROLLBACK and LOCK record at or below the safe point (they hold
 * no data). For each removed PUT it hands the values-family key to {@code obsoleteValues}, whose owner deletes
 * it with an ordinary write later: a filter must never write to the database itself.
 *
 * <h2>Why removing is safe when a compaction sees only part of the tree</h2>
 * A compaction sees only its inputs, and the engine hands a filter only entries no snapshot can see. A record
 * is removed only after a newer PUT or DELETE at or below the safe point of the same key was seen in this
 * compaction and kept, so the version a read at the safe point needs is never the one removed; versions the
 * compaction does not see are kept. The kept DELETE itself stays (older versions may sit in deeper levels
 * this compaction does not touch; removing the DELETE could let them reappear).
 *
 * <p>Keys arrive in ascending order, so a key's versions arrive newest first; the per-key state makes an
 * instance single-compaction, hence {@link #forCompaction()} returns a fresh one.
 */
public final class MvccGcFilter implements CompactionFilter {

    private final LongSupplier safePoint;
    private final Consumer<byte[]> obsoleteValues;

    private byte[] currentUserKey;
    private boolean keptVersionAtSafePoint;
    private long compactionSafePoint;

    /**
     * @param safePoint      the current GC safe point (read once per compaction)
     * @param obsoleteValues receives the values-family keys of removed PUTs; called on compaction threads
     */
    public MvccGcFilter(LongSupplier safePoint, Consumer<byte[]> obsoleteValues) {
        this.safePoint = safePoint;
        this.obsoleteValues = obsoleteValues;
    }

    @Override
    public CompactionFilter forCompaction() {
        MvccGcFilter fresh = new MvccGcFilter(safePoint, obsoleteValues);
        fresh.compactionSafePoint = safePoint.getAsLong();
        return fresh;
    }

    @Override
    public Decision filter(int level, byte[] key, byte[] value) {
        byte[] userKey;
        long commitTs;
        byte kind;
        try {
            userKey = MvccKeys.encodedUserKey(key);
            commitTs = MvccKeys.timestamp(key);
            kind = MvccKeys.kind(value);
        } catch (IllegalArgumentException notMvcc) {
            return KEEP; // not written in the MVCC layout: not ours to judge
        }
        if (!Arrays.equals(userKey, currentUserKey)) {
            currentUserKey = userKey;
            keptVersionAtSafePoint = false;
        }
        if (commitTs > compactionSafePoint) {
            return KEEP;
        }
        if (kind == MvccKeys.ROLLBACK || kind == MvccKeys.LOCK) {
            return REMOVE;
        }
        if (!keptVersionAtSafePoint) {
            keptVersionAtSafePoint = true;
            return KEEP;
        }
        if (kind == MvccKeys.PUT) {
            obsoleteValues.accept(MvccKeys.withTimestamp(userKey, MvccKeys.startTimestamp(value)));
        }
        return REMOVE;
    }
}
