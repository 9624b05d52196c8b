package io.varve.raftlog.recovery;

import io.varve.base.CorruptionException;
import io.varve.raftlog.format.BatchItem;
import io.varve.raftlog.format.ByteCursor;
import io.varve.raftlog.format.FooterCodec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The valid batches of one scanned file, kept compact until they are applied: their footers' bytes back to
 * back in a few large arrays, and a few primitive arrays. Scanners run ahead of the thread that applies files in
 * order, so whatever they produce lives a while; as one object per item it would be copied by every young
 * collection meanwhile, which made recovery's garbage collection cost as much as the rest of it. Items are
 * decoded again, briefly, when the batch is applied.
 *
 * <p>Filled by one scanner thread, then handed over (through a Future) to the applying thread.
 */
final class ScannedBatches {
    /**
     * Footers are stored in chunks of this size (a larger footer gets a chunk of its own) so that storing a
     * file's footers never copies them again as one growing array would.
     */
    static final int CHUNK = 256 << 10;

    private final Path path;
    private final List<byte[]> chunks = new ArrayList<>();
    private long[] positions = new long[64];
    private long[] ends = new long[64];
    private int[] footerChunks = new int[64];
    private int[] footerStarts = new int[64];
    private int[] footerLengths = new int[64];
    private int[] entryCounts = new int[64];
    private boolean[] commits = new boolean[64];
    private int chunkUsed = CHUNK;
    private int count;

    ScannedBatches(Path path) {
        this.path = path;
    }

    /** Adds a batch whose footer, already checked, is {@code b[footerAt, footerAt + footerLength)}. */
    void add(long position, long end, byte[] b, int footerAt, int footerLength, int entryCount,
            boolean endsWithCommit) {
        if (count == positions.length) {
            int n = count * 2;
            positions = Arrays.copyOf(positions, n);
            ends = Arrays.copyOf(ends, n);
            footerChunks = Arrays.copyOf(footerChunks, n);
            footerStarts = Arrays.copyOf(footerStarts, n);
            footerLengths = Arrays.copyOf(footerLengths, n);
            entryCounts = Arrays.copyOf(entryCounts, n);
            commits = Arrays.copyOf(commits, n);
        }
        if (chunks.isEmpty() || chunkUsed + footerLength > chunks.getLast().length) {
            chunks.add(new byte[Math.max(CHUNK, footerLength)]);
            chunkUsed = 0;
        }
        System.arraycopy(b, footerAt, chunks.getLast(), chunkUsed, footerLength);
        positions[count] = position;
        ends[count] = end;
        footerChunks[count] = chunks.size() - 1;
        footerStarts[count] = chunkUsed;
        footerLengths[count] = footerLength;
        entryCounts[count] = entryCount;
        commits[count] = endsWithCommit;
        chunkUsed += footerLength;
        count++;
    }

    int size() {
        return count;
    }

    /** Keeps only the first {@code n} batches (their footer bytes stay in the chunks, unused). */
    void truncate(int n) {
        count = Math.min(count, n);
    }

    long position(int k) {
        return positions[k];
    }

    long end(int k) {
        return ends[k];
    }

    int entryCount(int k) {
        return entryCounts[k];
    }

    /** Whether the batch's last item is a Commit (it closes a purge in the rewrite queue). */
    boolean commits(int k) {
        return commits[k];
    }

    /** The batch's items, decoded from its footer (which the scanner verified). */
    List<BatchItem> items(int k) throws CorruptionException {
        ByteCursor in = new ByteCursor(chunks.get(footerChunks[k]), footerStarts[k], footerStarts[k] + footerLengths[k],
                path, positions[k] - footerStarts[k]);
        return FooterCodec.decode(in, FooterCodec.Detail.ITEMS).items();
    }
}
