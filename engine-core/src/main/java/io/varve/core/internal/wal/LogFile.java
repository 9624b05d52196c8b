package io.varve.core.internal.wal;

import io.varve.base.fs.WritableFile;

/** One write-ahead log file in use by {@link WriteAheadLog}: its number, its file and the writer appending to it. */
final class LogFile {

    final long number;
    final WritableFile file;
    final WalWriter writer;
    /** Set when sealed (under the log lock): the position, across logs, of the log's last byte plus one. */
    long end;

    LogFile(long number, WritableFile file) {
        this.number = number;
        this.file = file;
        this.writer = new WalWriter(file, number);
    }
}
