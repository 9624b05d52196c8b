package io.varve.core;

/**
 * A write named an entry whose key plus value exceeds {@link WriteBatch#MAX_ENTRY_BYTES}. Thrown before anything
 * is logged or applied: the database is unchanged, and the batch that refused the entry keeps what it held.
 */
public final class EntryTooLargeException extends IllegalArgumentException {

    private final long entryBytes;

    public EntryTooLargeException(long entryBytes) {
        super("entry of " + entryBytes + " bytes (key plus value) exceeds the limit of "
                + WriteBatch.MAX_ENTRY_BYTES + " bytes");
        this.entryBytes = entryBytes;
    }

    /** The refused entry's key plus value, in bytes. */
    public long entryBytes() {
        return entryBytes;
    }
}
