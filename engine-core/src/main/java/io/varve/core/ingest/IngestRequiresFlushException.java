package io.varve.core.ingest;

/**
 * An ingestion with {@link IngestOptions#allowBlockingFlush()} false found keys of its files' ranges in a
 * memtable. Nothing was changed: no file was linked or copied into the database, no sequence was used.
 * Flush (which never pauses writes) and try again — what {@code Db.ingestExternalFilesFlushingFirst} does.
 */
public final class IngestRequiresFlushException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public IngestRequiresFlushException(String message) {
        super(message);
    }
}
