package io.varve.raftlog.recovery;

import io.varve.core.base.CorruptionException;
import io.varve.core.fs.FileSystem;
import io.varve.core.fs.ReadableFile;
import io.varve.raftlog.file.FileId;
import io.varve.raftlog.file.LogFileName;
import io.varve.raftlog.format.BatchFormat;
import io.varve.raftlog.format.BatchFrame;
import io.varve.raftlog.format.FooterCodec;
import io.varve.raftlog.format.LogFileFormat;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

/**
 * Reads one log file's batch headers and footers without reading entry payloads. The file is mapped, and
 * only each batch's header and footer (which lie together at its start) are copied out to be checked, so
 * entries blocks are never read nor copied: with read calls, either every block would cross the heap or
 * every batch would cost a call. Stops at the first damaged batch.
 */
final class FileScanner {
    /** Chunk for checking a tail for zeros, and the copy buffer of recovery's repairs. */
    static final int WINDOW = 256 * 1024;

    private final MemorySegment file;
    private final Path path;
    private final long size;
    private byte[] buf = new byte[4096];
    private int bufLen;

    private FileScanner(MemorySegment file, Path path) {
        this.file = file;
        this.path = path;
        this.size = file.byteSize();
    }

    static ScannedFile scan(FileSystem fs, Path dir, long fileId) throws IOException {
        Path path = LogFileName.path(dir, fileId);
        try (ReadableFile file = fs.openReadable(path); Arena arena = Arena.ofConfined()) {
            return new FileScanner(file.map(arena), path).scan(fileId);
        }
    }

    private ScannedFile scan(long fileId) throws IOException {
        ScannedBatches batches = new ScannedBatches(path);
        if (size < LogFileFormat.HEADER_SIZE) {
            return damaged(fileId, false, batches, 0,
                    new CorruptionException(path, 0, "file of " + size + " bytes is shorter than its header"), true);
        }
        try {
            int at = window(0, LogFileFormat.HEADER_SIZE);
            byte[] header = java.util.Arrays.copyOfRange(buf, at, at + LogFileFormat.HEADER_SIZE);
            LogFileFormat.checkHeader(header, path, FileId.queue(fileId).code(), FileId.sequence(fileId));
        } catch (CorruptionException e) {
            return damaged(fileId, false, batches, 0, e, zeroFrom(0));
        }
        int queue = FileId.queue(fileId).code();
        int binding = BatchFormat.fileBinding(queue, FileId.sequence(fileId));
        long pos = LogFileFormat.HEADER_SIZE;
        while (pos < size) {
            int h = window(pos, (int) Math.min(BatchFormat.MAX_HEADER_SIZE, size - pos));
            BatchFormat.Header header;
            try {
                header = BatchFormat.Header.decode(buf, h, (int) Math.min(bufLen - h, size - pos), path, pos);
            } catch (CorruptionException e) {
                // Reported at the batch, where the file would be cut, whichever header field was bad.
                CorruptionException atBatch = e.offset() == pos ? e
                        : new CorruptionException(path, pos, "unreadable batch header: " + e.getMessage());
                return damaged(fileId, true, batches, pos, atBatch, zeroFrom(pos) || headerCutShort(h, pos));
            }
            int frameLength = BatchFrame.frameLength(header);
            if (pos + frameLength > size) {
                return damaged(fileId, true, batches, pos, new CorruptionException(path, pos, "batch footer runs "
                        + "past the end of the file"), true);
            }
            int f = window(pos, frameLength);
            if (!BatchFrame.checksumMatches(buf, f, header, binding)) {
                return damaged(fileId, true, batches, pos, new CorruptionException(path, pos,
                        "batch footer checksum mismatch"), claimedEnd(f, header, pos) == size);
            }
            BatchFrame frame;
            try {
                frame = BatchFrame.decodeFooter(buf, f, header, FooterCodec.Detail.TOTALS, path, pos);
            } catch (CorruptionException e) {
                // The checksum matched, so these bytes were written like this: not a torn write.
                return damaged(fileId, true, batches, pos, e, false);
            }
            long end = pos + frame.totalLength();
            if (end > size) {
                return damaged(fileId, true, batches, pos, new CorruptionException(path, pos, "batch of "
                        + frame.totalLength() + " bytes runs past the end of the file"), true);
            }
            batches.add(pos, end, buf, f + header.length(), header.footerLength(), frame.footer().entryCount(),
                    frame.footer().endsWithCommit());
            pos = end;
        }
        return new ScannedFile(fileId, path, size, true, batches, pos, null, false);
    }

    /**
     * Whether the bytes from {@code pos} to the end of the file are the start of a valid header that the end
     * cut short: some completion of them decodes. Completions tried: zeros, and a 1 then zeros (a varint cut
     * after bytes whose value bits are all zero needs a non-zero byte to end with a non-zero length).
     */
    private boolean headerCutShort(int h, long pos) {
        int left = (int) Math.min(BatchFormat.MAX_HEADER_SIZE, size - pos);
        if (left == BatchFormat.MAX_HEADER_SIZE) {
            return false;
        }
        for (int firstPad : new int[] {0, 1}) {
            byte[] padded = java.util.Arrays.copyOfRange(buf, h, h + BatchFormat.MAX_HEADER_SIZE);
            java.util.Arrays.fill(padded, left, padded.length, (byte) 0);
            padded[left] = (byte) firstPad;
            try {
                BatchFormat.Header.decode(padded, 0, padded.length, path, pos);
                return true;
            } catch (CorruptionException e) {
                // try the next completion
            }
        }
        return false;
    }

    /**
     * Where a batch whose checksum failed would end if its footer were right, or -1: a batch that fails only
     * because the write of its end was cut short claims to end exactly at the end of the file.
     */
    private long claimedEnd(int f, BatchFormat.Header header, long pos) {
        try {
            return pos + BatchFrame.decodeFooter(buf, f, header, FooterCodec.Detail.TOTALS, path, pos).totalLength();
        } catch (CorruptionException e) {
            return -1;
        }
    }

    private ScannedFile damaged(long fileId, boolean headerValid, ScannedBatches batches, long validLength,
            CorruptionException damage, boolean reachesEnd) {
        return new ScannedFile(fileId, path, size, headerValid, batches, validLength, damage, reachesEnd);
    }

    /** Copies [offset, offset + length) of the file to the start of {@code buf}; returns 0, where it starts. */
    private int window(long offset, int length) {
        if (buf.length < length) {
            buf = new byte[Math.max(length, buf.length * 2)];
        }
        MemorySegment.copy(file, ValueLayout.JAVA_BYTE, offset, buf, 0, length);
        bufLen = length;
        return 0;
    }

    /** Whether every byte from {@code offset} to the end is zero: space the file system allocated but never wrote. */
    private boolean zeroFrom(long offset) {
        for (long at = offset; at < size; ) {
            int n = (int) Math.min(WINDOW, size - at);
            int w = window(at, n);
            for (int i = 0; i < n; i++) {
                if (buf[w + i] != 0) {
                    return false;
                }
            }
            at += n;
        }
        return true;
    }
}
