package io.varve.raftlog.format;

import io.varve.base.CorruptionException;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * A batch's header and decoded footer: everything about a batch except its payloads, which is all recovery
 * needs and what a reader needs to find an entry's bytes. Offsets are relative to the start of the batch.
 *
 * @param storedLength bytes of the entries block as stored (after the footer)
 */
public record BatchFrame(BatchFormat.Header header, FooterCodec.Footer footer, int storedLength) {

    public int footerStart() {
        return header.length();
    }

    public int blockStart() {
        return header.length() + header.footerLength();
    }

    public long totalLength() {
        return (long) blockStart() + storedLength;
    }

    /** Header and footer length together: how many bytes {@link #decode} needs. */
    public static int frameLength(BatchFormat.Header header) {
        return header.length() + header.footerLength();
    }

    /**
     * Verifies the footer checksum and decodes the footer of the batch at {@code b[off]}; its header and footer
     * must lie in {@code b[off, off + available)}.
     *
     * @param binding {@link BatchFormat#fileBinding} of the file the batch was read from
     * @param detail how much of the footer to return
     * @param batchOffset file offset of the batch, for error messages
     */
    public static BatchFrame decode(byte[] b, int off, int available, int binding, FooterCodec.Detail detail,
            Path file, long batchOffset) throws CorruptionException {
        BatchFormat.Header header = BatchFormat.Header.decode(b, off, available, file, batchOffset);
        if (frameLength(header) > available) {
            throw new CorruptionException(file, batchOffset, "batch footer cut short");
        }
        if (!checksumMatches(b, off, header, binding)) {
            throw new CorruptionException(file, batchOffset, "batch footer checksum mismatch");
        }
        return decodeFooter(b, off, header, detail, file, batchOffset);
    }

    /**
     * Whether the footer checksum matches under the file's binding, plain or after a sync; the header and
     * footer must be in {@code b} from {@code off}.
     */
    public static boolean checksumMatches(byte[] b, int off, BatchFormat.Header header, int binding) {
        return matchedBinding(b, off, header, binding) != NO_MATCH;
    }

    public static final int NO_MATCH = -1;
    public static final int PLAIN = 0;
    public static final int AFTER_SYNC = 1;

    /** {@link #PLAIN}, {@link #AFTER_SYNC} ({@link BatchFormat#afterSyncBinding}) or {@link #NO_MATCH}. */
    public static int matchedBinding(byte[] b, int off, BatchFormat.Header header, int binding) {
        CRC32C crc = new CRC32C();
        crc.update(b, off, header.checkedLength());
        crc.update(b, off + header.length(), header.footerLength());
        int bound = (int) crc.getValue() ^ header.footerCrc();
        return bound == binding ? PLAIN : bound == BatchFormat.afterSyncBinding(binding) ? AFTER_SYNC : NO_MATCH;
    }

    /** Decodes the footer without checking its checksum (the caller did, or only wants the claimed length). */
    public static BatchFrame decodeFooter(byte[] b, int off, BatchFormat.Header header, FooterCodec.Detail detail,
            Path file, long batchOffset) throws CorruptionException {
        int at = off + header.length();
        FooterCodec.Footer footer = FooterCodec.decode(new ByteCursor(b, at, at + header.footerLength(), file,
                batchOffset - off), detail);
        return new BatchFrame(header, footer, header.blockLength(footer.rawLength(), file, batchOffset));
    }
}
