package io.varve.raftlog.file;

import io.varve.raftlog.format.BatchFormat;
import io.varve.raftlog.format.EntriesBlock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Reads the raw (checksum-verified, decompressed) entries block of the batch at a (file, position), keeping
 * the last few blocks in a tiny direct-mapped cache: reading a range of entries usually touches one block
 * many times in a row. Cached arrays are never modified, so sharing them between readers is safe.
 */
public final class BlockReader {
    private static final int CACHE_SLOTS = 8;

    private record CachedBlock(long fileId, long position, byte[] raw) {
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

    public byte[] rawBlock(long fileId, long batchPosition) throws IOException {
        int slot = (int) ((fileId * 31 + batchPosition) * 0x9E3779B97F4A7C15L >>> 61) & (CACHE_SLOTS - 1);
        CachedBlock cached = cache.get(slot);
        if (cached != null && cached.fileId == fileId && cached.position == batchPosition) {
            counters.blockCacheHits.increment();
            return cached.raw;
        }
        Path path = LogFileName.path(dir, fileId);
        FileReaders.Handle handle = readers.acquire(fileId);
        byte[] raw;
        try {
            byte[] headerBytes = new byte[BatchFormat.HEADER_SIZE];
            handle.file().readFully(ByteBuffer.wrap(headerBytes), batchPosition);
            BatchFormat.Header header = BatchFormat.Header.decode(headerBytes, 0, path, batchPosition);
            byte[] stored = new byte[header.storedLength()];
            long blockOffset = batchPosition + BatchFormat.HEADER_SIZE;
            handle.file().readFully(ByteBuffer.wrap(stored), blockOffset);
            raw = EntriesBlock.decode(header, stored, path, blockOffset);
        } finally {
            readers.release(handle);
        }
        counters.blockReads.increment();
        cache.set(slot, new CachedBlock(fileId, batchPosition, raw));
        return raw;
    }

    public byte[] entry(long fileId, long batchPosition, int recordStart) throws IOException {
        byte[] raw = rawBlock(fileId, batchPosition);
        return EntriesBlock.readRecord(raw, recordStart, LogFileName.path(dir, fileId),
                batchPosition + BatchFormat.HEADER_SIZE);
    }

    public void invalidate() {
        for (int i = 0; i < CACHE_SLOTS; i++) {
            cache.set(i, null);
        }
    }
}
