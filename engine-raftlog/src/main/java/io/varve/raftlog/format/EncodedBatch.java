package io.varve.raftlog.format;

import java.util.List;

/**
 * A serialized batch, ready to be appended once the writer knows which file it goes to. Encoding (and
 * compression) happens on the caller's thread; only {@link #bindTo} remains for the write leader.
 */
public final class EncodedBatch {
    private final byte[] bytes;
    private final List<BatchItem> items;
    private final int footerCrcOffset;
    private final int unboundFooterCrc;
    private final int entryCount;

    EncodedBatch(byte[] bytes, List<BatchItem> items, int footerCrcOffset, int unboundFooterCrc, int entryCount) {
        this.bytes = bytes;
        this.items = items;
        this.footerCrcOffset = footerCrcOffset;
        this.unboundFooterCrc = unboundFooterCrc;
        this.entryCount = entryCount;
    }

    /** Stamps the footer checksum for the file (queue, sequence) and returns the bytes to append. */
    public byte[] bindTo(int queue, long sequence) {
        ByteSink.putIntLE(bytes, footerCrcOffset, unboundFooterCrc ^ BatchFormat.fileBinding(queue, sequence));
        return bytes;
    }

    public int length() {
        return bytes.length;
    }

    public List<BatchItem> items() {
        return items;
    }

    public long entryCount() {
        return entryCount;
    }
}
