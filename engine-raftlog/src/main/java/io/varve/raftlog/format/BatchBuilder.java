package io.varve.raftlog.format;

import io.varve.base.Varint;
import io.varve.base.lz4.Lz4BlockCompressor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * Accumulates the items of one batch and serializes it. Entry payloads are copied into the entries block as
 * they are added, so the caller may reuse its arrays; keys and values are copied too.
 *
 * <p>Not thread-safe: a batch belongs to the thread filling it.
 */
public final class BatchBuilder {
    /** Bytes from the start of a block compressed first to decide whether compressing it all is worth it. */
    static final int PROBE = 8 << 10;

    private final ByteSink block = new ByteSink(256);
    /** Made on the first block worth compressing: its hash table is 16 KiB, and most batches are small. */
    private Lz4BlockCompressor compressor;
    private final List<BatchItem> items = new ArrayList<>();
    /** Payload length of every entry added, by entry number. */
    private int[] lengths = new int[8];
    private int entryCount;
    private long footerEstimate;

    public void addEntries(long group, long firstIndex, List<byte[]> entries) {
        Objects.requireNonNull(entries, "entries");
        if (firstIndex < 0) {
            throw new IllegalArgumentException("first index must be >= 0: " + firstIndex);
        }
        if (entries.isEmpty()) {
            return;
        }
        if (firstIndex > Long.MAX_VALUE - entries.size()) {
            throw new IllegalArgumentException("indexes overflow: first " + firstIndex + ", " + entries.size()
                    + " entries");
        }
        long added = 0;
        for (byte[] e : entries) {
            Objects.requireNonNull(e, "entry");
            added += e.length;
        }
        if (block.size() + added > BatchFormat.MAX_RAW_ENTRIES) {
            throw new IllegalArgumentException("batch entries exceed " + BatchFormat.MAX_RAW_ENTRIES
                    + " bytes; split the batch");
        }
        int n = entries.size();
        // Tag, group, first index, count, and a length per entry, each varint at its widest.
        add(new BatchItem.Entries(group, firstIndex, entryCount, n), 1 + 3L * Varint.MAX_LONG_LENGTH + 5L * n);
        if (entryCount + n > lengths.length) {
            lengths = Arrays.copyOf(lengths, Math.max(entryCount + n, lengths.length * 2));
        }
        for (byte[] e : entries) {
            lengths[entryCount++] = e.length;
            block.writeBytes(e);
        }
    }

    public void put(long group, byte[] key, byte[] value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        add(new BatchItem.Put(group, key.clone(), value.clone()), 21L + key.length + value.length);
    }

    public void delete(long group, byte[] key) {
        Objects.requireNonNull(key, "key");
        add(new BatchItem.Delete(group, key.clone()), 16L + key.length);
    }

    public void compactTo(long group, long index) {
        if (index < 0) {
            throw new IllegalArgumentException("compact index must be >= 0: " + index);
        }
        add(new BatchItem.Compact(group, index), 21);
    }

    public void clean(long group) {
        add(new BatchItem.Clean(group), 11);
    }

    public void retain(long group, long first, long count) {
        add(new BatchItem.Retain(group, first, count), 31);
    }

    public void clearState(long group) {
        add(new BatchItem.ClearState(group), 11);
    }

    public void commit(BatchItem.Commit commit) {
        add(commit, 51);
    }

    private void add(BatchItem item, long footerBytes) {
        if (footerEstimate + footerBytes > BatchFormat.MAX_FOOTER) {
            throw new IllegalArgumentException("batch footer would exceed " + BatchFormat.MAX_FOOTER
                    + " bytes; split the batch");
        }
        footerEstimate += footerBytes;
        items.add(item);
    }

    public boolean isEmpty() {
        return items.isEmpty();
    }

    public List<BatchItem> items() {
        return items;
    }

    /** An upper-bound estimate of the encoded size, for callers sizing their batches. */
    public long approximateSize() {
        return BatchFormat.MAX_HEADER_SIZE + block.size() + footerEstimate;
    }

    public void clear() {
        block.clear();
        items.clear();
        entryCount = 0;
        footerEstimate = 0;
    }

    /**
     * Compressing incompressible data (already compressed or encrypted payloads) costs as much CPU as
     * compressing anything else and saves nothing, so a large block is first judged by its first
     * {@value #PROBE} bytes: unless they shrink by at least an eighth, the block is stored as it is.
     */
    private boolean worthCompressing(int raw) {
        if (raw <= 2 * PROBE) {
            return true; // the probe would cost about as much as compressing the whole block
        }
        byte[] probe = new byte[Lz4BlockCompressor.maxCompressedLength(PROBE)];
        int n = compressor().compress(block.array(), 0, PROBE, probe, 0);
        return n <= PROBE - PROBE / 8;
    }

    private Lz4BlockCompressor compressor() {
        if (compressor == null) {
            compressor = new Lz4BlockCompressor();
        }
        return compressor;
    }

    /**
     * Serializes the batch, LZ4-compressing the entries block if it is larger than
     * {@code compressionThreshold} bytes, its start compresses well, and compression actually saves space.
     * The footer checksum is left unbound; {@link EncodedBatch#bindTo} finishes it once the file is known.
     */
    public EncodedBatch encode(int compressionThreshold) {
        if (items.isEmpty()) {
            throw new IllegalStateException("empty batch");
        }
        int raw = block.size();
        byte[] stored = block.array();
        int storedLength = raw;
        int flags = raw > 0 ? BatchFormat.FLAG_ENTRIES : 0;
        if (raw > compressionThreshold && raw <= Lz4BlockCompressor.MAX_INPUT_LENGTH && worthCompressing(raw)) {
            byte[] compressed = new byte[Lz4BlockCompressor.maxCompressedLength(raw)];
            int n = compressor().compress(block.array(), 0, raw, compressed, 0);
            if (n < raw) {
                stored = compressed;
                storedLength = n;
                flags |= BatchFormat.FLAG_LZ4;
            }
        }
        ByteSink footer = new ByteSink((int) Math.min(footerEstimate, BatchFormat.MAX_FOOTER));
        FooterCodec.encode(items, lengths, footer);
        int entriesCrc = 0;
        if (raw > 0) {
            CRC32C crc = new CRC32C();
            crc.update(stored, 0, storedLength);
            entriesCrc = (int) crc.getValue();
        }
        int headerSize = BatchFormat.headerSize(flags, footer.size(), storedLength);
        long total = (long) headerSize + footer.size() + storedLength;
        if (total > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("batch of " + total + " bytes is too large; split it");
        }
        byte[] bytes = new byte[(int) total];
        int crcAt = BatchFormat.encodeHeader(bytes, flags, footer.size(), storedLength, entriesCrc);
        System.arraycopy(footer.array(), 0, bytes, headerSize, footer.size());
        System.arraycopy(stored, 0, bytes, headerSize + footer.size(), storedLength);

        CRC32C footerCrc = new CRC32C();
        footerCrc.update(bytes, 0, crcAt);
        footerCrc.update(footer.array(), 0, footer.size());
        return new EncodedBatch(bytes, List.copyOf(items), flags, headerSize, footer.size(), (int) footerCrc.getValue(),
                entryCount);
    }
}
