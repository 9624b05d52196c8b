package io.varve.core.internal.keys;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The answer of one point lookup in a memtable or a table. The caller owns it and reuses it across lookups,
 * so the read path allocates nothing per lookup; a value slice is only made if {@link #value()} is asked for.
 * The source that answers fills it in through the {@code set} methods.
 *
 * <p>The value is a view of the source's memory (memtable arena, table mapping or decompressed block) and
 * stays readable only while the caller keeps that source retained.
 */
public final class LookupResult {

    public enum Status {
        /** The source holds no entry for the key at or below the snapshot: look in older sources. */
        NOT_FOUND,
        /** The newest visible entry is a tombstone: the key does not exist at the snapshot. */
        DELETED,
        /** The newest visible entry is a value. */
        FOUND,
        /**
         * The newest visible entry is a merge operand (readable like a value): the caller must collect the
         * key's older entries and apply the merge operator.
         */
        MERGE
    }

    private Status status = Status.NOT_FOUND;
    private long trailer;
    private MemorySegment memory;
    private long valueOffset;
    private long valueLength;

    public Status status() {
        return status;
    }

    /** The trailer of the entry found (FOUND or DELETED), a table's global sequence applied. */
    public long trailer() {
        requireEntry();
        return trailer;
    }

    /** The sequence of the entry found (FOUND or DELETED). */
    public long sequence() {
        requireEntry();
        return InternalKey.sequence(trailer);
    }

    public long valueLength() {
        requireValue();
        return valueLength;
    }

    /** A zero-copy view of the value in the source's memory. */
    public MemorySegment value() {
        requireValue();
        return memory.asSlice(valueOffset, valueLength);
    }

    /**
     * Copies the value, or as much of it as fits, to the start of {@code destination}, without slicing,
     * and returns the value's full length.
     */
    public long copyValueTo(MemorySegment destination) {
        requireValue();
        MemorySegment.copy(memory, valueOffset, destination, 0, Math.min(valueLength, destination.byteSize()));
        return valueLength;
    }

    /** The value copied into a new array. */
    public byte[] valueToArray() {
        requireValue();
        byte[] copy = new byte[Math.toIntExact(valueLength)];
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, valueOffset, copy, 0, copy.length);
        return copy;
    }

    public void setNotFound() {
        status = Status.NOT_FOUND;
        memory = null;
    }

    public void setDeleted(long trailer) {
        status = Status.DELETED;
        this.trailer = trailer;
        memory = null;
    }

    public void setFound(long trailer, MemorySegment memory, long valueOffset, long valueLength) {
        status = Status.FOUND;
        this.trailer = trailer;
        this.memory = memory;
        this.valueOffset = valueOffset;
        this.valueLength = valueLength;
    }

    /** Like {@link #setFound}, for a merge operand. */
    public void setMerge(long trailer, MemorySegment memory, long valueOffset, long valueLength) {
        setFound(trailer, memory, valueOffset, valueLength);
        status = Status.MERGE;
    }

    private void requireEntry() {
        if (status == Status.NOT_FOUND) {
            throw new IllegalStateException("lookup found no entry");
        }
    }

    private void requireValue() {
        if (status != Status.FOUND && status != Status.MERGE) {
            throw new IllegalStateException("lookup has no value: " + status);
        }
    }

    @Override
    public String toString() {
        return status == Status.FOUND ? "FOUND(" + valueLength + " bytes)" : status.toString();
    }
}
