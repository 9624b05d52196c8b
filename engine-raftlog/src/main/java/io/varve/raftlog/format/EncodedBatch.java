package io.varve.raftlog.format;

import java.util.List;

/**
 * A serialized batch, ready to be appended once the writer knows which file it goes to. Encoding (and
 * compression) happens on the caller's thread; only {@link #bindTo} remains for the write leader, or
 * {@link BatchMerger} when the leader joins several small batches into one.
 */
public final class EncodedBatch {
    private final byte[] bytes;
    private final List<BatchItem> items;
    private final int flags;
    private final int headerLength;
    private final int footerLength;
    private final int unboundFooterCrc;
    private final int entryCount;

    EncodedBatch(byte[] bytes, List<BatchItem> items, int flags, int headerLength, int footerLength,
            int unboundFooterCrc, int entryCount) {
        this.bytes = bytes;
        this.items = items;
        this.flags = flags;
        this.headerLength = headerLength;
        this.footerLength = footerLength;
        this.unboundFooterCrc = unboundFooterCrc;
        this.entryCount = entryCount;
    }

    /** Stamps the footer checksum for the file (queue, sequence) and returns the bytes to append. */
    public byte[] bindTo(int queue, long sequence) {
        return bindTo(queue, sequence, false);
    }

    /**
     * As {@link #bindTo(int, long)}; {@code afterSync}: every earlier byte of the file is durable, which the
     * batch records by its binding ({@link BatchFormat#afterSyncBinding}).
     */
    public byte[] bindTo(int queue, long sequence, boolean afterSync) {
        int binding = BatchFormat.fileBinding(queue, sequence);
        ByteSink.putIntLE(bytes, headerLength - BatchFormat.CRC_SIZE,
                unboundFooterCrc ^ (afterSync ? BatchFormat.afterSyncBinding(binding) : binding));
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

    boolean compressed() {
        return (flags & BatchFormat.FLAG_LZ4) != 0;
    }

    /** The batch's bytes; its footer checksum is meaningful only after {@link #bindTo}. */
    byte[] bytes() {
        return bytes;
    }

    int headerLength() {
        return headerLength;
    }

    int footerLength() {
        return footerLength;
    }

    int storedLength() {
        return bytes.length - headerLength - footerLength;
    }
}
