package io.varve.raftlog.format;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * Accumulates the items of one batch and serializes it. Entry payloads are copied into the entries block as
 * they are added, so the caller may reuse its arrays; keys and values are copied too.
 *
 * <p>Not thread-safe: a batch belongs to the thread filling it.
 */
public final class BatchBuilder {
    private static final LZ4Compressor COMPRESSOR = LZ4Factory.safeInstance().fastCompressor();

    private final ByteSink block = new ByteSink(256);
    private final List<BatchItem> items = new ArrayList<>();
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
            added += Varints.MAX_SIZE + e.length;
        }
        if (block.size() + added > BatchFormat.MAX_RAW_ENTRIES) {
            throw new IllegalArgumentException("batch entries exceed " + BatchFormat.MAX_RAW_ENTRIES
                    + " bytes; split the batch");
        }
        int regionStart = block.size();
        int[] lengths = new int[entries.size()];
        int i = 0;
        for (byte[] e : entries) {
            lengths[i++] = e.length;
            block.writeVarint(e.length);
            block.writeBytes(e);
        }
        add(new BatchItem.Entries(group, firstIndex, regionStart, lengths), 24L + 3L * lengths.length);
    }

    public void put(long group, byte[] key, byte[] value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        add(new BatchItem.Put(group, key.clone(), value.clone()), 24L + key.length + value.length);
    }

    public void delete(long group, byte[] key) {
        Objects.requireNonNull(key, "key");
        add(new BatchItem.Delete(group, key.clone()), 16L + key.length);
    }

    public void compactTo(long group, long index) {
        if (index < 0) {
            throw new IllegalArgumentException("compact index must be >= 0: " + index);
        }
        add(new BatchItem.Compact(group, index), 20);
    }

    public void clean(long group) {
        add(new BatchItem.Clean(group), 11);
    }

    public void retain(long group, long first, long count) {
        add(new BatchItem.Retain(group, first, count), 30);
    }

    public void clearState(long group) {
        add(new BatchItem.ClearState(group), 11);
    }

    public void commit() {
        add(new BatchItem.Commit(), 2);
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
        return BatchFormat.HEADER_SIZE + block.size() + footerEstimate;
    }

    public void clear() {
        block.clear();
        items.clear();
        footerEstimate = 0;
    }

    /**
     * Serializes the batch, LZ4-compressing the entries block if it is larger than
     * {@code compressionThreshold} bytes and compression actually saves space. The footer checksum is left
     * unbound; {@link EncodedBatch#bindTo} finishes it once the file is known.
     */
    public EncodedBatch encode(int compressionThreshold) {
        if (items.isEmpty()) {
            throw new IllegalStateException("empty batch");
        }
        int raw = block.size();
        byte[] stored = block.array();
        int storedLength = raw;
        int flags = 0;
        if (raw > compressionThreshold) {
            byte[] compressed = new byte[COMPRESSOR.maxCompressedLength(raw)];
            int n = COMPRESSOR.compress(block.array(), 0, raw, compressed, 0, compressed.length);
            if (n < raw) {
                stored = compressed;
                storedLength = n;
                flags |= BatchFormat.FLAG_LZ4;
            }
        }
        ByteSink footer = new ByteSink((int) Math.min(footerEstimate + 16, BatchFormat.MAX_FOOTER));
        FooterCodec.encode(items, footer);

        long total = (long) BatchFormat.HEADER_SIZE + storedLength + footer.size();
        if (total > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("batch of " + total + " bytes is too large; split it");
        }
        byte[] out = new byte[(int) total];
        ByteSink.putIntLE(out, BatchFormat.OFFSET_MAGIC, BatchFormat.MAGIC);
        out[BatchFormat.OFFSET_FLAGS] = (byte) flags;
        ByteSink.putIntLE(out, BatchFormat.OFFSET_STORED_LENGTH, storedLength);
        ByteSink.putIntLE(out, BatchFormat.OFFSET_RAW_LENGTH, raw);
        ByteSink.putIntLE(out, BatchFormat.OFFSET_FOOTER_LENGTH, footer.size());
        CRC32C entriesCrc = new CRC32C();
        entriesCrc.update(stored, 0, storedLength);
        ByteSink.putIntLE(out, BatchFormat.OFFSET_ENTRIES_CRC, (int) entriesCrc.getValue());
        System.arraycopy(stored, 0, out, BatchFormat.HEADER_SIZE, storedLength);
        int footerAt = BatchFormat.HEADER_SIZE + storedLength;
        System.arraycopy(footer.array(), 0, out, footerAt, footer.size());

        CRC32C footerCrc = new CRC32C();
        footerCrc.update(out, 0, BatchFormat.CHECKED_HEADER_LENGTH);
        footerCrc.update(out, footerAt, footer.size());
        return new EncodedBatch(out, List.copyOf(items), (int) footerCrc.getValue(), raw);
    }
}
