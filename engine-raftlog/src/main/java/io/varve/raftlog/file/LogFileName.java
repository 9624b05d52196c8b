package io.varve.raftlog.file;

import io.varve.raftlog.format.LogFileFormat;
import java.nio.file.Path;

/** File names: {@code <16-digit sequence>.append} and {@code <16-digit sequence>.rewrite}. */
public final class LogFileName {

    private LogFileName() {
    }

    public static String of(LogQueue queue, long sequence) {
        return String.format("%0" + LogFileFormat.NAME_DIGITS + "d%s", sequence, queue.suffix());
    }

    /** The name a purged append file is kept under until it is written over. */
    public static String recycled(long sequence) {
        return String.format("%0" + LogFileFormat.NAME_DIGITS + "d%s", sequence, LogFileFormat.RECYCLE_SUFFIX);
    }

    public static Path path(Path dir, long fileId) {
        return dir.resolve(of(FileId.queue(fileId), FileId.sequence(fileId)));
    }

    /** The file id a name denotes, or -1 if it is not a log file name. */
    public static long parse(String name) {
        for (LogQueue queue : LogQueue.values()) {
            String suffix = queue.suffix();
            if (name.length() == LogFileFormat.NAME_DIGITS + suffix.length() && name.endsWith(suffix)) {
                String digits = name.substring(0, LogFileFormat.NAME_DIGITS);
                if (!digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    return -1;
                }
                long seq = Long.parseLong(digits);
                if (seq < 1 || seq > LogFileFormat.MAX_SEQUENCE) {
                    return -1;
                }
                return FileId.of(queue, seq);
            }
        }
        return -1;
    }
}
