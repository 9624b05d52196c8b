package io.varve.raftlog.recovery;

import io.varve.base.CorruptionException;
import io.varve.base.LeakDetector;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ReadableFile;
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
 *
 * <p>The exception is the unsynced tail of the last file of a queue, the only place a crash can tear (a file
 * is synced before the next one is used): from the last batch bound after a sync on, a lost sector can sit
 * inside an entries block that the footer checksum does not cover, so those batches' entries checksums are
 * verified, and the first that fails is where the file's batches end.
 */
final class FileScanner {
    /** Chunk for checking a tail for zeros, and the copy buffer of recovery's repairs. */
    static final int WINDOW = 256 * 1024;

    private final MemorySegment file;
    private final Path path;
    private final long size;
    private byte[] buf = new byte[4096];
    private int bufLen;
    private LogFileFormat.FileHeader fileHeader;
    private int binding;
    /** For a recycled file, where the next file's header says its batches end; 0 if not known. */
    private long expectedEnd;
    /** The last batch bound after a sync: every byte before it is durable. -1: none. */
    private int lastAfterSync = -1;

    /** Whether this is the last file of its queue, whose unsynced tail a crash may have torn anywhere. */
    private final boolean lastOfQueue;

    private FileScanner(MemorySegment file, Path path, boolean lastOfQueue) {
        this.file = file;
        this.path = path;
        this.size = file.byteSize();
        this.lastOfQueue = lastOfQueue;
    }

    /** @param lastOfQueue whether {@code fileId} is the newest file of its queue */
    static ScannedFile scan(FileSystem fs, Path dir, long fileId, boolean lastOfQueue) throws IOException {
        Path path = LogFileName.path(dir, fileId);
        try (ReadableFile file = fs.openReadable(path); Arena arena = Arena.ofConfined();
                LeakDetector.Handle ignored = LeakDetector.track("mapping", path)) {
            FileScanner scanner = new FileScanner(file.map(arena), path, lastOfQueue);
            return scanner.scan(fileId, () -> recordedEnd(fs, dir, fileId));
        }
    }

    private interface EndLookup {
        long get() throws IOException;
    }

    /**
     * What the header of the file after {@code fileId} in its queue records as this file's length, 0 if that
     * file is missing, damaged or records nothing.
     */
    private static long recordedEnd(FileSystem fs, Path dir, long fileId) throws IOException {
        long nextSeq = FileId.sequence(fileId) + 1;
        if (nextSeq > LogFileFormat.MAX_SEQUENCE) {
            return 0;
        }
        long next = FileId.of(FileId.queue(fileId), nextSeq);
        Path nextPath = LogFileName.path(dir, next);
        if (!fs.exists(nextPath)) {
            return 0;
        }
        try (ReadableFile in = fs.openReadable(nextPath)) {
            byte[] h = new byte[(int) Math.min(LogFileFormat.HEADER_SIZE, in.size())];
            in.readFully(java.nio.ByteBuffer.wrap(h), 0);
            return LogFileFormat.checkHeader(h, nextPath, FileId.queue(fileId).code(), nextSeq).previousEnd();
        } catch (CorruptionException | java.nio.file.NoSuchFileException e) {
            return 0;
        }
    }

    private ScannedFile scan(long fileId, EndLookup endLookup) throws IOException {
        ScannedBatches batches = new ScannedBatches(path);
        if (size < LogFileFormat.HEADER_SIZE_V2) {
            return damaged(fileId, false, batches, 0,
                    new CorruptionException(path, 0, "file of " + size + " bytes is shorter than its header"), true);
        }
        try {
            int n = (int) Math.min(LogFileFormat.HEADER_SIZE, size);
            int at = window(0, n);
            fileHeader = LogFileFormat.checkHeader(java.util.Arrays.copyOfRange(buf, at, at + n), path,
                    FileId.queue(fileId).code(), FileId.sequence(fileId));
        } catch (CorruptionException e) {
            // A header shorter than a version-3 one was cut short: its write is what was torn.
            return damaged(fileId, false, batches, 0, e, size < LogFileFormat.HEADER_SIZE || zeroFrom(0));
        }
        int queue = FileId.queue(fileId).code();
        binding = BatchFormat.fileBinding(queue, FileId.sequence(fileId));
        expectedEnd = fileHeader.recycled() ? endLookup.get() : 0;
        long pos = fileHeader.size();
        while (pos < size && (expectedEnd == 0 || pos < expectedEnd)) {
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
            int matched = BatchFrame.matchedBinding(buf, f, header, binding);
            if (matched == BatchFrame.NO_MATCH) {
                return damaged(fileId, true, batches, pos, new CorruptionException(path, pos,
                        "batch footer checksum mismatch"), claimedEnd(f, header, pos) == size);
            }
            if (matched == BatchFrame.AFTER_SYNC) {
                lastAfterSync = batches.size();
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
        if (fileHeader.recycled()) {
            return recycledEnd(fileId, batches, pos);
        }
        int torn = firstTornEntries(batches);
        if (torn >= 0) {
            return tornEntries(fileId, batches, torn);
        }
        return new ScannedFile(fileId, path, size, true, batches, pos, null, false, fileHeader.size(), false);
    }

    /**
     * In the last file of its queue, the first batch from the last one bound after a sync whose entries
     * checksum fails, or -1: such a batch lost a sector of its entries to a crash. Batches before the last one
     * bound after a sync were durable, and a read of their entries checks them when it comes.
     */
    private int firstTornEntries(ScannedBatches batches) throws CorruptionException {
        if (!lastOfQueue) {
            return -1;
        }
        for (int k = Math.max(0, lastAfterSync); k < batches.size(); k++) {
            if (!entriesIntact(batches.position(k), batches.end(k))) {
                return k;
            }
        }
        return -1;
    }

    /**
     * The file's batches end at batch {@code k}, whose entries a crash tore: no batch bound after a sync
     * follows it (it is at or after the last one), so this is a torn tail, cut in the tolerant modes.
     */
    private ScannedFile tornEntries(long fileId, ScannedBatches batches, int k) {
        long at = batches.position(k);
        batches.truncate(k);
        return new ScannedFile(fileId, path, size, true, batches, at, new CorruptionException(path, at,
                "entries block checksum mismatch"), true, fileHeader.size(), false);
    }

    /**
     * The scan of a recycled file went through its valid batches up to {@code pos} (the end of the file, or
     * the end its successor recorded). With a recorded end, the batches must stop exactly there; without one,
     * the unsynced tail's entries are checked, since only they can be torn.
     */
    private ScannedFile recycledEnd(long fileId, ScannedBatches batches, long pos) throws CorruptionException {
        if (expectedEnd == 0) {
            return confirmedTail(fileId, batches, pos);
        }
        // A file that ends right after valid batches is whole, even short of the recorded end: recycled files
        // never shrink, so it was cut by a repair that tolerated damage (or truncated by someone else).
        if (pos == expectedEnd || (pos == size && pos < expectedEnd)) {
            return new ScannedFile(fileId, path, size, true, batches, pos, null, false, fileHeader.size(), pos < size);
        }
        long at = pos;
        if (pos > expectedEnd && batches.size() > 0) {
            at = batches.position(batches.size() - 1); // the batch that runs across the recorded end
            batches.truncate(batches.size() - 1);
        }
        return new ScannedFile(fileId, path, size, true, batches, at, new CorruptionException(path, at, "batches do not "
                + "end at " + expectedEnd + ", where the next file records this file's end"), false, fileHeader.size(),
                false);
    }

    /**
     * A recycled file whose end nobody recorded (the last one) stopped at {@code pos}: its batches from the last
     * one bound after a sync may be torn writes, whose header and footer reached the device but not all of
     * their entries (the old bytes are still there), so their entries checksums are verified here; the first
     * that fails is where the file's batches end. Earlier batches were durable: a later batch says so.
     */
    private ScannedFile confirmedTail(long fileId, ScannedBatches batches, long pos) throws CorruptionException {
        for (int k = Math.max(0, lastAfterSync); k < batches.size(); k++) {
            if (!entriesIntact(batches.position(k), batches.end(k))) {
                long at = batches.position(k);
                batches.truncate(k);
                return new ScannedFile(fileId, path, size, true, batches, at, null, false, fileHeader.size(), true);
            }
        }
        return new ScannedFile(fileId, path, size, true, batches, pos, null, false, fileHeader.size(), pos < size);
    }

    private boolean entriesIntact(long pos, long end) throws CorruptionException {
        int h = window(pos, (int) Math.min(BatchFormat.MAX_HEADER_SIZE, size - pos));
        BatchFormat.Header header = BatchFormat.Header.decode(buf, h, bufLen, path, pos);
        if ((header.flags() & BatchFormat.FLAG_ENTRIES) == 0) {
            return true;
        }
        long blockStart = pos + BatchFrame.frameLength(header);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(file.asSlice(blockStart, end - blockStart).asByteBuffer());
        return (int) crc.getValue() == header.entriesCrc();
    }

    /**
     * Whether the invalid batch at {@code pos} of a recycled file is damage rather than where the file's
     * batches end (a torn write or the stale bytes of the file it was written over): it is if its lengths lead
     * to batches valid in this file, one of which was written after a sync — then the bad batch had been
     * durable before it. A torn batch is never followed by such a batch: the sync would have made it whole.
     * Trusting the bad batch's lengths is the same bet as the torn-tail rule for files that are not recycled.
     */
    private boolean damageBeforeLaterBatches(long pos) {
        try {
            int h = window(pos, (int) Math.min(BatchFormat.MAX_HEADER_SIZE, size - pos));
            BatchFormat.Header header = BatchFormat.Header.decode(buf, h, bufLen, path, pos);
            int frameLength = BatchFrame.frameLength(header);
            if (pos + frameLength > size) {
                return false;
            }
            long at = claimedEnd(window(pos, frameLength), header, pos);
            while (at > pos && at < size) {
                h = window(at, (int) Math.min(BatchFormat.MAX_HEADER_SIZE, size - at));
                header = BatchFormat.Header.decode(buf, h, bufLen, path, at);
                frameLength = BatchFrame.frameLength(header);
                if (at + frameLength > size) {
                    return false;
                }
                int f = window(at, frameLength);
                int matched = BatchFrame.matchedBinding(buf, f, header, binding);
                if (matched == BatchFrame.AFTER_SYNC) {
                    return true;
                }
                if (matched == BatchFrame.NO_MATCH) {
                    return false;
                }
                at += BatchFrame.decodeFooter(buf, f, header, FooterCodec.Detail.TOTALS, path, at).totalLength();
            }
            return false;
        } catch (CorruptionException e) {
            return false;
        }
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
            CorruptionException damage, boolean reachesEnd) throws CorruptionException {
        if (!headerValid) {
            return new ScannedFile(fileId, path, size, false, batches, validLength, damage, reachesEnd, 0, false);
        }
        if (fileHeader.recycled()) {
            // The old bytes after a recycled file's batches look like damage that does not reach the end.
            if (expectedEnd > 0) {
                return new ScannedFile(fileId, path, size, true, batches, validLength, new CorruptionException(path,
                        validLength, damage.getMessage() + " before " + expectedEnd + ", where the next file "
                        + "records this file's end"), false, fileHeader.size(), false);
            }
            if (damageBeforeLaterBatches(validLength)) {
                return new ScannedFile(fileId, path, size, true, batches, validLength, damage, false,
                        fileHeader.size(), false);
            }
            return confirmedTail(fileId, batches, validLength);
        }
        // Torn or junk tail, not damage inside the log: no sync made the damaged bytes durable.
        boolean tail = reachesEnd || !afterSyncBatchAfter(validLength);
        if (tail) {
            int torn = firstTornEntries(batches);
            if (torn >= 0) {
                return tornEntries(fileId, batches, torn);
            }
        }
        return new ScannedFile(fileId, path, size, true, batches, validLength, damage, tail, fileHeader.size(),
                false);
    }

    /**
     * Whether a batch of this file bound after a sync (its checksum bound to this file's queue and sequence
     * with the after-sync bit) starts anywhere after the damaged one at {@code damaged}. Every offset is tried,
     * as the damaged batch's lengths cannot be trusted. Such a batch was written once every earlier byte of
     * the file was durable, so the damage is inside the log. Without one, the bytes from {@code damaged} on were
     * never synced, whatever they are (zeros, junk a disk returned, a batch torn in any way, sectors lost with
     * later ones kept — valid batches written after them but not synced included), so the tail rule applies.
     */
    private boolean afterSyncBatchAfter(long damaged) {
        for (long at = damaged + 1; at < size; at++) {
            int flags = file.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
            if ((flags & ~BatchFormat.KNOWN_FLAGS) != 0 || flags == BatchFormat.FLAG_LZ4) {
                continue; // cheap rejection; the full decode below would refuse it too
            }
            try {
                int h = window(at, (int) Math.min(BatchFormat.MAX_HEADER_SIZE, size - at));
                BatchFormat.Header header = BatchFormat.Header.decode(buf, h, bufLen, path, at);
                int frameLength = BatchFrame.frameLength(header);
                if (at + frameLength > size) {
                    continue;
                }
                int f = window(at, frameLength);
                if (BatchFrame.matchedBinding(buf, f, header, binding) == BatchFrame.AFTER_SYNC) {
                    return true;
                }
            } catch (CorruptionException notABatchHere) {
                // try the next offset
            }
        }
        return false;
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
