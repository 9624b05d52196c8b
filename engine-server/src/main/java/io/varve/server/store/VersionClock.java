package io.varve.server.store;

import io.varve.core.Db;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hands out collection versions that never repeat, across restarts and even if the wall clock moves back.
 * A version is {@code max(previous + 1, now in microseconds)}: time-based so a fresh process starts above
 * anything an earlier one issued, and strictly increasing within a process.
 *
 * <p>Why it matters: deleting a hash leaves its subkeys behind under the old version until a compaction
 * filter removes them. If a new hash under the same key got that same version again, the stale fields
 * would reappear. So the clock also persists a <em>floor</em> (synced) an hour ahead of what it has issued,
 * and a restart never issues a version below the floor, whatever the wall clock says.
 */
public final class VersionClock {

    static final byte[] FLOOR_KEY = KeyEncoding.internalKey("version-floor");
    private static final long FLOOR_AHEAD_MICROS = 3_600_000_000L;

    private final Db db;
    private final CommitTarget target;
    private final AtomicLong last;
    /** Versions below it may be issued without a write; 0 until the first version persists one. */
    private volatile long floor;

    public VersionClock(Db db) {
        this(db, CommitTarget.local(db));
    }

    /**
     * The floor is persisted through {@code target} (so replicated, a new leader finds its predecessor's) and
     * only when the first version is issued: a replica that never writes never writes a floor.
     */
    public VersionClock(Db db, CommitTarget target) {
        this.db = db;
        this.target = target;
        this.last = new AtomicLong(Math.max(storedFloor(), nowMicros()));
    }

    /** Continues above the stored floor, which another writer may have raised; persists a new one before use. */
    synchronized void resume() {
        long stored = storedFloor();
        last.accumulateAndGet(stored, Math::max);
        floor = 0;
    }

    private long storedFloor() {
        byte[] stored = db.get(FLOOR_KEY);
        return stored == null ? 0 : ByteBuffer.wrap(stored).getLong();
    }

    public long next() {
        long v = last.updateAndGet(previous -> Math.max(previous + 1, nowMicros()));
        if (v >= floor) {
            persistFloor(v);
        }
        return v;
    }

    private synchronized void persistFloor(long issued) {
        if (issued < floor) {
            return;
        }
        long newFloor = issued + FLOOR_AHEAD_MICROS;
        target.write(new WriteBatch().put(FLOOR_KEY, ByteBuffer.allocate(8).putLong(newFloor).array()),
                WriteOptions.SYNC);
        floor = newFloor;
    }

    private static long nowMicros() {
        return System.currentTimeMillis() * 1000;
    }
}
