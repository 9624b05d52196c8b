package io.varve.core.memtable;

import java.lang.foreign.MemorySegment;

/**
 * The answer of one {@link Memtable#get point lookup}. The caller owns it and reuses it across lookups, so the
 * read path allocates nothing per lookup; a value slice is only made if {@link #value()} is asked for.
 *
 * <p>The value stays readable only while the memtable it came from is retained by the caller.
 */
public final class LookupResult {

    public enum Status {
        /** The memtable holds no entry for the key at or below the snapshot: look in older sources. */
        NOT_FOUND,
        /** The newest visible entry is a tombstone: the key does not exist at the snapshot. */
        DELETED,
        /** The newest visible entry is a value. */
        FOUND
    }

    private Status status = Status.NOT_FOUND;
    private long trailer;
    private MemorySegment memory;
    private long valueOffset;
    private long valueLength;

    public Status status() {
        return status;
    }

    /** The trailer of the entry found (FOUND or DELETED). */
    public long trailer() {
        requireEntry();
        return trailer;
    }

    public long valueLength() {
        requireValue();
        return valueLength;
    }

    /** A zero-copy view of the value in the memtable's memory. */
    public MemorySegment value() {
        requireValue();
        return memory.asSlice(valueOffset, valueLength);
    }

    void setNotFound() {
        status = Status.NOT_FOUND;
        memory = null;
    }

    void setDeleted(long trailer) {
        status = Status.DELETED;
        this.trailer = trailer;
        memory = null;
    }

    void setFound(long trailer, MemorySegment memory, long valueOffset, long valueLength) {
        status = Status.FOUND;
        this.trailer = trailer;
        this.memory = memory;
        this.valueOffset = valueOffset;
        this.valueLength = valueLength;
    }

    private void requireEntry() {
        if (status == Status.NOT_FOUND) {
            throw new IllegalStateException("lookup found no entry");
        }
    }

    private void requireValue() {
        if (status != Status.FOUND) {
            throw new IllegalStateException("lookup has no value: " + status);
        }
    }

    @Override
    public String toString() {
        return status == Status.FOUND ? "FOUND(" + valueLength + " bytes)" : status.toString();
    }
}
