package io.varve.raftlog.file;

import io.varve.base.CorruptionException;
import io.varve.base.fs.ReadableFile;
import io.varve.raftlog.format.BatchFormat;
import io.varve.raftlog.format.BatchFrame;
import io.varve.raftlog.format.EntriesBlock;
import io.varve.raftlog.format.FooterCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Reads the entries of the batch at a (file, position): the frame (header and footer, whose checksum is
 * verified again since the footer gives the entry offsets) and the checksum-verified, decompressed entries
 * block. The last few batches are kept in a tiny direct-mapped cache: reading a range of entries usually
 * touches one batch many times in a row. Cached blocks are immutable, so sharing them between readers is safe.
 *
 * <p>A small batch costs one read: the first read fetches {@value #FIRST_READ} bytes, which usually hold
 * the header, the footer and the entries; only a larger batch needs a second read for the rest.
 */
public final class BlockReader {
    private static final int CACHE_SLOTS = 8;
    static final int FIRST_READ = 4096;

    private record CachedBlock(long fileId, long position, EntriesBlock block) {
    }

    private final FileReaders readers;
    private final Path dir;
    private final IoCounters counters;
    private final AtomicReferenceArray<CachedBlock> cache = new AtomicReferenceArray<>(CACHE_SLOTS);

    public BlockReader(FileReaders readers, Path dir, IoCounters counters) {
        this.readers = readers;
        this.dir = dir;
        this.counters = counters;
    }

    public EntriesBlock block(long fileId, long batchPosition) throws IOException {
        int slot = (int) ((fileId * 31 + batchPosition) * 0x9E3779B97F4A7C15L >>> 61) & (CACHE_SLOTS - 1);
        CachedBlock cached = cache.get(slot);
        if (cached != null && cached.fileId == fileId && cached.position == batchPosition) {
            counters.blockCacheHits.increment();
            return cached.block;
        }
        Path path = LogFileName.path(dir, fileId);
        int binding = BatchFormat.fileBinding(FileId.queue(fileId).code(), FileId.sequence(fileId));
        FileReaders.Handle handle = readers.acquire(fileId);
        EntriesBlock block;
        try {
            ReadableFile file = handle.file();
            byte[] buf = new byte[FIRST_READ];
            int got = readUpTo(file, buf, 0, buf.length, batchPosition);
            BatchFormat.Header header = BatchFormat.Header.decode(buf, 0, got, path, batchPosition);
            int frameLength = BatchFrame.frameLength(header);
            if (frameLength > got) {
                buf = grow(file, buf, got, frameLength, batchPosition, path);
                got = frameLength;
            }
            BatchFrame frame = BatchFrame.decode(buf, 0, got, binding, FooterCodec.Detail.OFFSETS, path, batchPosition);
            long total = frame.totalLength();
            if (total > got) {
                buf = grow(file, buf, got, total, batchPosition, path);
            } else if (total < buf.length) {
                buf = Arrays.copyOf(buf, (int) total); // the cache should not keep the next batches' bytes
            }
            block = EntriesBlock.decode(frame, buf, 0, path, batchPosition);
        } finally {
            readers.release(handle);
        }
        counters.blockReads.increment();
        cache.set(slot, new CachedBlock(fileId, batchPosition, block));
        return block;
    }

    /** The payload of entry number {@code ordinal} of the batch at (file, position). */
    public byte[] entry(long fileId, long batchPosition, int ordinal) throws IOException {
        return block(fileId, batchPosition).entry(ordinal);
    }

    public void invalidate() {
        for (int i = 0; i < CACHE_SLOTS; i++) {
            cache.set(i, null);
        }
    }

    private static int readUpTo(ReadableFile file, byte[] buf, int from, int to, long position) throws IOException {
        ByteBuffer dst = ByteBuffer.wrap(buf, from, to - from);
        long at = position + from;
        while (dst.hasRemaining()) {
            int n = file.read(dst, at);
            if (n < 0) {
                break;
            }
            at += n;
        }
        return dst.position();
    }

    /** {@code buf} holds {@code have} bytes of the batch; returns a buffer holding its first {@code need}. */
    private static byte[] grow(ReadableFile file, byte[] buf, int have, long need, long position, Path path)
            throws IOException {
        if (need > Integer.MAX_VALUE - 16) {
            throw new CorruptionException(path, position, "batch of " + need + " bytes cannot be read");
        }
        byte[] bigger = Arrays.copyOf(buf, (int) need);
        if (readUpTo(file, bigger, have, (int) need, position) < need) {
            throw new CorruptionException(path, position, "batch of " + need + " bytes runs past the end of the file");
        }
        return bigger;
    }
}
