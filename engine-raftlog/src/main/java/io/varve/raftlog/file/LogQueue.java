package io.varve.raftlog.file;

import io.varve.raftlog.format.LogFileFormat;

/**
 * The two queues of log files. New batches go to the append queue; purge copies the live data of old append
 * files (and of a mostly-dead rewrite queue) to the rewrite queue so the old files can be deleted. Recovery
 * replays the rewrite queue first, then the append queue.
 */
public enum LogQueue {
    APPEND(LogFileFormat.QUEUE_APPEND, LogFileFormat.APPEND_SUFFIX),
    REWRITE(LogFileFormat.QUEUE_REWRITE, LogFileFormat.REWRITE_SUFFIX);

    private final int code;
    private final String suffix;

    LogQueue(int code, String suffix) {
        this.code = code;
        this.suffix = suffix;
    }

    /** The queue number stored in file headers and mixed into footer checksums. */
    public int code() {
        return code;
    }

    public String suffix() {
        return suffix;
    }

    public static LogQueue ofCode(int code) {
        return code == LogFileFormat.QUEUE_APPEND ? APPEND : REWRITE;
    }
}
