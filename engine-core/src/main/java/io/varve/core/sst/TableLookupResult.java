package io.varve.core.sst;

import java.lang.foreign.MemorySegment;

/**
 * The answer of one {@link TableReader#get point lookup}. The caller owns it and may reuse it across
 * lookups; the value slice is only made when {@link #value()} is asked for.
 *
 * <p>The value is a view of table memory (the file mapping, or a decompressed block) and stays readable only
 * while the caller holds its reference to the {@link TableReader} it came from.
 */
public final class TableLookupResult {

    public enum Status {
        /** The table holds no entry for the key at or below the snapshot: look in older tables. */
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

    /** The trailer of the entry found (FOUND or DELETED), global sequence applied. */
    public long trailer() {
        requireEntry();
        return trailer;
    }

    /** The sequence of the entry found (FOUND or DELETED), global sequence applied. */
    public long sequence() {
        requireEntry();
        return trailer >>> 8;
    }

    public long valueLength() {
        requireValue();
        return valueLength;
    }

    /** A zero-copy view of the value. */
    public MemorySegment value() {
        requireValue();
        return memory.asSlice(valueOffset, valueLength);
    }

    void setNotFound() {
        status = Status.NOT_FOUND;
        memory = null;
    }

    void setDeleted(long entryTrailer) {
        status = Status.DELETED;
        this.trailer = entryTrailer;
        memory = null;
    }

    void setFound(long entryTrailer, MemorySegment blockMemory, long offset, long length) {
        status = Status.FOUND;
        this.trailer = entryTrailer;
        this.memory = blockMemory;
        this.valueOffset = offset;
        this.valueLength = length;
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
        return switch (status) {
            case FOUND -> "FOUND(seq " + sequence() + ", " + valueLength + " bytes)";
            case DELETED -> "DELETED(seq " + sequence() + ")";
            case NOT_FOUND -> "NOT_FOUND";
        };
    }
}
