package io.varve.core.ingest;

/**
 * How {@code Db.ingestExternalFiles} treats the files and concurrent writes. Immutable; start from
 * {@link #defaults()} and change with the {@code with} methods.
 *
 * <ul>
 *   <li>{@link #moveFiles()} (default false): hard-link each file into the database and, once the ingestion
 *       is durable, remove the original name, so the file moves without being copied. Where the file system
 *       cannot link (another device, no hard links), the file is copied and the original still removed.
 *       Never a rename: a failed ingestion must leave the caller's file where it was, and a crash must not
 *       leave it under a table name the next open would delete as a leftover. False copies the files and
 *       leaves the originals alone.</li>
 *   <li>{@link #allowBlockingFlush()} (default true): when a memtable of the family holds keys in the files'
 *       ranges, flush it first and go on. False: fail with {@link IngestRequiresFlushException} and change
 *       nothing. Either way writes are never paused for the flush.</li>
 *   <li>{@link #allowWrite()} (default false): false keeps ingestion ordered with every write — later writes
 *       become visible only once the files are installed (a pause of one manifest sync for writes that arrive
 *       meanwhile). True never pauses writes: the caller guarantees that nothing writes into the files' key
 *       ranges during the call, and the ingestion holds the database's {@link RangeLatch} over those ranges so
 *       that cooperating writers wait. See {@code docs/architecture.md}, "Ingestion", for exactly what is
 *       relaxed.</li>
 * </ul>
 */
public final class IngestOptions {

    private static final IngestOptions DEFAULTS = new IngestOptions(false, true, false);

    private final boolean moveFiles;
    private final boolean allowBlockingFlush;
    private final boolean allowWrite;

    private IngestOptions(boolean moveFiles, boolean allowBlockingFlush, boolean allowWrite) {
        this.moveFiles = moveFiles;
        this.allowBlockingFlush = allowBlockingFlush;
        this.allowWrite = allowWrite;
    }

    /** Copy the files, flush when needed, keep writes ordered with the ingestion. */
    public static IngestOptions defaults() {
        return DEFAULTS;
    }

    public boolean moveFiles() {
        return moveFiles;
    }

    public boolean allowBlockingFlush() {
        return allowBlockingFlush;
    }

    public boolean allowWrite() {
        return allowWrite;
    }

    public IngestOptions withMoveFiles(boolean move) {
        return new IngestOptions(move, allowBlockingFlush, allowWrite);
    }

    public IngestOptions withAllowBlockingFlush(boolean allow) {
        return new IngestOptions(moveFiles, allow, allowWrite);
    }

    public IngestOptions withAllowWrite(boolean allow) {
        return new IngestOptions(moveFiles, allowBlockingFlush, allow);
    }

    @Override
    public String toString() {
        return "IngestOptions{moveFiles=" + moveFiles + ", allowBlockingFlush=" + allowBlockingFlush
                + ", allowWrite=" + allowWrite + "}";
    }
}
