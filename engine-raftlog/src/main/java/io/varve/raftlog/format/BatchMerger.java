package io.varve.raftlog.format;

import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Joins batches that group commit writes together into one batch, so concurrent writers share one header
 * and one write. The format makes this a concatenation: a footer's first item always names its group, so
 * footers can follow each other, and entries are numbered in footer order, so the blocks follow each other
 * in the same order. Only the entries of later members are renumbered, and the checksums are computed anew.
 *
 * <p>The merged batch is atomic as a whole, which is stronger than what each member asked for. Only small
 * uncompressed batches are merged, into batches that stay small: a large or compressed block gains nothing
 * from sharing a header and would cost the leader a checksum pass over it.
 */
public final class BatchMerger {
    /** Largest entries block, and largest footer, a batch may have to be merged. */
    public static final int MAX_MEMBER_PART = 32 << 10;
    /**
     * Largest entries block, and largest footer, of a merged batch. A reader fetches and checks a batch's whole
     * footer and block to return any entry of it, so merging stops before that read costs much more than the
     * members' own would.
     */
    public static final int MAX_MERGED_PART = 128 << 10;

    private BatchMerger() {
    }

    public static boolean mergeable(EncodedBatch batch) {
        return !batch.compressed() && batch.storedLength() <= MAX_MEMBER_PART
                && batch.footerLength() <= MAX_MEMBER_PART;
    }

    /** Consecutive batches being collected for one merge. Not thread-safe (the write leader's). */
    public static final class Run {
        private final List<EncodedBatch> members = new ArrayList<>();
        private long footerBytes;
        private long blockBytes;

        /** Adds the batch if it can be merged with the others (it is small, and so are the sums). */
        public boolean tryAdd(EncodedBatch batch) {
            if (!mergeable(batch) || footerBytes + batch.footerLength() > MAX_MERGED_PART
                    || blockBytes + batch.storedLength() > MAX_MERGED_PART) {
                return false;
            }
            members.add(batch);
            footerBytes += batch.footerLength();
            blockBytes += batch.storedLength();
            return true;
        }

        public boolean isEmpty() {
            return members.isEmpty();
        }

        /** The members merged into one batch; the run is empty afterwards. */
        public EncodedBatch take() {
            EncodedBatch merged = merge(members);
            members.clear();
            footerBytes = 0;
            blockBytes = 0;
            return merged;
        }
    }

    /** One batch with the members' items in order; the members must be mergeable and within the limits together. */
    static EncodedBatch merge(List<EncodedBatch> members) {
        if (members.size() == 1) {
            return members.getFirst();
        }
        int footer = 0;
        int raw = 0;
        int itemCount = 0;
        for (EncodedBatch m : members) {
            if (!mergeable(m)) {
                throw new IllegalArgumentException("batch cannot be merged");
            }
            footer += m.footerLength();
            raw += m.storedLength();
            itemCount += m.items().size();
        }
        int flags = raw > 0 ? BatchFormat.FLAG_ENTRIES : 0;
        int headerSize = BatchFormat.headerSize(flags, footer, raw);
        byte[] bytes = new byte[headerSize + footer + raw];
        List<BatchItem> items = new ArrayList<>(itemCount);
        int footerAt = headerSize;
        int blockAt = headerSize + footer;
        int entries = 0;
        for (EncodedBatch m : members) {
            byte[] b = m.bytes();
            System.arraycopy(b, m.headerLength(), bytes, footerAt, m.footerLength());
            System.arraycopy(b, m.headerLength() + m.footerLength(), bytes, blockAt, m.storedLength());
            footerAt += m.footerLength();
            blockAt += m.storedLength();
            for (BatchItem item : m.items()) {
                items.add(entries > 0 && item instanceof BatchItem.Entries e
                        ? new BatchItem.Entries(e.group(), e.firstIndex(), e.firstOrdinal() + entries, e.count())
                        : item);
            }
            entries += (int) m.entryCount();
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, headerSize + footer, raw);
        int crcAt = BatchFormat.encodeHeader(bytes, flags, footer, raw, (int) crc.getValue());
        crc.reset();
        crc.update(bytes, 0, crcAt);
        crc.update(bytes, headerSize, footer);
        return new EncodedBatch(bytes, items, flags, headerSize, footer, (int) crc.getValue(), entries);
    }
}
