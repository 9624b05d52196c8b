package io.varve.raftlog.file;

import io.varve.raftlog.format.LogFileFormat;

/**
 * Names a log file with one long: {@code sequence << 1 | queue code}. Ordering ids of one queue orders the
 * files by sequence. Ids stay below 2^28, which the index relies on to pack a location into a long.
 */
public final class FileId {
    public static final int BITS = 28;

    private FileId() {
    }

    public static long of(LogQueue queue, long sequence) {
        if (sequence < 1 || sequence > LogFileFormat.MAX_SEQUENCE) {
            throw new IllegalStateException("file sequence " + sequence + " is outside [1, "
                    + LogFileFormat.MAX_SEQUENCE + "]");
        }
        return sequence << 1 | queue.code();
    }

    public static LogQueue queue(long id) {
        return LogQueue.ofCode((int) (id & 1));
    }

    public static long sequence(long id) {
        return id >>> 1;
    }

    public static String toString(long id) {
        return queue(id).name().toLowerCase() + "#" + sequence(id);
    }
}
