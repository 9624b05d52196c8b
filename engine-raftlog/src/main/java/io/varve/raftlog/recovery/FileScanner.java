package io.varve.raftlog.recovery;

import io.varve.core.base.CorruptionException;
import io.varve.core.fs.FileSystem;
import io.varve.core.fs.ReadableFile;
import io.varve.raftlog.file.FileId;
import io.varve.raftlog.file.LogFileName;
import io.varve.raftlog.format.BatchFormat;
import io.varve.raftlog.format.BatchItem;
import io.varve.raftlog.format.ByteCursor;
import io.varve.raftlog.format.FooterCodec;
import io.varve.raftlog.format.LogFileFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads one log file's batch headers and footers without reading entry payloads. It reads through a window:
 * a batch's footer that lies inside the current window is taken from it, otherwise the scanner seeks to the
 * footer, so a large entries block is skipped without being read while many small batches cost one read
 * per window rather than two per batch. Stops at the first damaged batch.
 */
final class FileScanner {
    static final int WINDOW = 256 * 1024;

    private final ReadableFile file;
    private final Path path;
    private final long size;
    private byte[] buf = new byte[0];
    private long bufStart;
    private int bufLen;

    private FileScanner(ReadableFile file, Path path, long size) {
        this.file = file;
        this.path = path;
        this.size = size;
    }

    static ScannedFile scan(FileSystem fs, Path dir, long fileId) throws IOException {
        Path path = LogFileName.path(dir, fileId);
        try (ReadableFile file = fs.openReadable(path)) {
            return new FileScanner(file, path, file.size()).scan(fileId);
        }
    }

    private ScannedFile scan(long fileId) throws IOException {
        List<ScannedFile.Batch> batches = new ArrayList<>();
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
            if (size - pos < BatchFormat.HEADER_SIZE) {
                return damaged(fileId, true, batches, pos, new CorruptionException(path, pos,
                        "batch header cut short by the end of the file"), true);
            }
            int h = window(pos, BatchFormat.HEADER_SIZE);
            BatchFormat.Header header;
            try {
                header = BatchFormat.Header.decode(buf, h, path, pos);
            } catch (CorruptionException e) {
                return damaged(fileId, true, batches, pos, e, zeroFrom(pos));
            }
            long end = pos + header.totalLength();
            if (end > size) {
                return damaged(fileId, true, batches, pos, new CorruptionException(path, pos, "batch of "
                        + header.totalLength() + " bytes runs past the end of the file"), true);
            }
            CRC32C crc = new CRC32C();
            crc.update(buf, h, BatchFormat.CHECKED_HEADER_LENGTH);
            long footerPos = pos + BatchFormat.HEADER_SIZE + header.storedLength();
            int f = window(footerPos, header.footerLength());
            crc.update(buf, f, header.footerLength());
            if (((int) crc.getValue() ^ binding) != header.footerCrc()) {
                return damaged(fileId, true, batches, pos, new CorruptionException(path, pos,
                        "batch footer checksum mismatch"), end == size);
            }
            List<BatchItem> items;
            try {
                items = FooterCodec.decode(new ByteCursor(buf, f, f + header.footerLength(), path,
                        footerPos - f), header.rawLength());
            } catch (CorruptionException e) {
                // The checksum matched, so these bytes were written like this: not a torn write.
                return damaged(fileId, true, batches, pos, e, false);
            }
            long entries = 0;
            for (BatchItem item : items) {
                if (item instanceof BatchItem.Entries e) {
                    entries += e.count();
                }
            }
            batches.add(new ScannedFile.Batch(pos, end, items, entries));
            pos = end;
        }
        return new ScannedFile(fileId, path, size, true, batches, pos, null, false);
    }

    private ScannedFile damaged(long fileId, boolean headerValid, List<ScannedFile.Batch> batches, long validLength,
            CorruptionException damage, boolean reachesEnd) {
        return new ScannedFile(fileId, path, size, headerValid, batches, validLength, damage, reachesEnd);
    }

    /** Makes [offset, offset + length) available in {@code buf} and returns where it starts there. */
    private int window(long offset, int length) throws IOException {
        if (offset >= bufStart && offset + length <= bufStart + bufLen) {
            return (int) (offset - bufStart);
        }
        int n = (int) Math.min(Math.max(length, WINDOW), size - offset);
        if (buf.length < n) {
            buf = new byte[Math.max(n, WINDOW)];
        }
        file.readFully(ByteBuffer.wrap(buf, 0, n), offset);
        bufStart = offset;
        bufLen = n;
        return 0;
    }

    /** Whether every byte from {@code offset} to the end is zero: space the file system allocated but never wrote. */
    private boolean zeroFrom(long offset) throws IOException {
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
