package io.varve.core.ingest;

/**
 * An ingestion with {@link IngestOptions#allowBlockingFlush()} false found keys of its files' ranges in a
 * memtable. Nothing was changed: the database holds what it held (its imported copies of the files are
 * deleted again, at most a sequence number went unused) and the caller's files are where they were. Flush
 * (which never pauses writes) and try again — what {@code Db.ingestExternalFilesWithFlushRetry} does.
 */
public final class IngestRequiresFlushException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public IngestRequiresFlushException(String message) {
        super(message);
    }
}
