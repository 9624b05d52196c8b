package io.varve.core;

/**
 * Per-write durability. Without sync, a write that returned survives a crash of the process but may be lost
 * by a crash of the machine; with sync, the write and every write before it are on the device (fdatasync)
 * before {@code write} returns.
 *
 * @param sync whether to fsync the log before returning
 */
public record WriteOptions(boolean sync) {

    /** Written to the OS before returning, not synced. */
    public static final WriteOptions DEFAULT = new WriteOptions(false);
    /** Synced to the device before returning; concurrent synced writers share one fsync. */
    public static final WriteOptions SYNC = new WriteOptions(true);
}
