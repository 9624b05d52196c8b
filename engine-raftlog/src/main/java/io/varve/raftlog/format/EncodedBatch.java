package io.varve.raftlog.format;

import java.util.List;

/**
 * A serialized batch, ready to be appended once the writer knows which file it goes to. Encoding (and
 * compression) happens on the caller's thread; only {@link #bindTo} remains for the write leader.
 */
public final class EncodedBatch {
    private final byte[] bytes;
    private final List<BatchItem> items;
    private final int unboundFooterCrc;
    private final int rawEntriesLength;

    EncodedBatch(byte[] bytes, List<BatchItem> items, int unboundFooterCrc, int rawEntriesLength) {
        this.bytes = bytes;
        this.items = items;
        this.unboundFooterCrc = unboundFooterCrc;
        this.rawEntriesLength = rawEntriesLength;
    }

    /** Stamps the footer checksum for the file (queue, sequence) and returns the bytes to append. */
    public byte[] bindTo(int queue, long sequence) {
        ByteSink.putIntLE(bytes, BatchFormat.OFFSET_FOOTER_CRC,
                unboundFooterCrc ^ BatchFormat.fileBinding(queue, sequence));
        return bytes;
    }

    public int length() {
        return bytes.length;
    }

    public List<BatchItem> items() {
        return items;
    }

    public int rawEntriesLength() {
        return rawEntriesLength;
    }

    public long entryCount() {
        long n = 0;
        for (BatchItem item : items) {
            if (item instanceof BatchItem.Entries e) {
                n += e.count();
            }
        }
        return n;
    }
}
