package io.varve.core;

/**
 * Per-write options.
 *
 * <p>Durability: without sync, a write that returned survives a crash of the process but may be lost by a crash
 * of the machine; with sync, the write and every write before it are on the device (fdatasync) before
 * {@code write} returns.
 *
 * <p>Waiting: a write normally waits while background work has fallen behind (a write stop) and is slowed down
 * near that point (see {@link Options#withWriteStallTriggers}). With {@code noSlowdown} it fails at once with
 * {@link WriteStallException} instead, having written nothing (RocksDB's {@code no_slowdown}). A caller that must
 * not block, such as a network event loop, can then retry the write on a thread that may wait.
 *
 * @param sync whether to fsync the log before returning
 * @param noSlowdown whether to fail with {@link WriteStallException} instead of waiting for background work
 */
public record WriteOptions(boolean sync, boolean noSlowdown) {

    /** Written to the OS before returning, not synced. */
    public static final WriteOptions DEFAULT = new WriteOptions(false);
    /** Synced to the device before returning; concurrent synced writers share one fsync. */
    public static final WriteOptions SYNC = new WriteOptions(true);

    /** Options that wait for background work when they must. */
    public WriteOptions(boolean sync) {
        this(sync, false);
    }

    /** These options with {@code noSlowdown} set as given. */
    public WriteOptions withNoSlowdown(boolean enabled) {
        return new WriteOptions(sync, enabled);
    }
}
