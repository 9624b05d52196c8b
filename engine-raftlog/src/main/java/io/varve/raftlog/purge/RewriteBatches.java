package io.varve.raftlog.purge;

import io.varve.raftlog.file.QueueWriter;
import io.varve.raftlog.format.BatchBuilder;
import io.varve.raftlog.format.BatchItem;
import io.varve.raftlog.format.EncodedBatch;
import io.varve.raftlog.index.Location;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Packs one purge's writes into rewrite-queue batches of about {@code batchBytes}, in the order given, and
 * remembers where each copied run landed so the index can be pointed at it once everything is durable.
 * {@link #commit} closes the purge: it appends the Commit item and syncs.
 */
final class RewriteBatches {

    /** A copied run: entries {@code firstIndex ..} of a group moved from the old to the new locations. */
    record Relocation(long group, long firstIndex, long[] oldLocations, int[] oldOrdinals, long newLocation,
            int newFirstOrdinal) {
    }

    private record PendingCopy(long group, long firstIndex, long[] oldLocations, int[] oldOrdinals) {
    }

    private final QueueWriter writer;
    private final int batchBytes;
    private final int compressionThreshold;
    private final BatchBuilder batch = new BatchBuilder();
    private final List<PendingCopy> pending = new ArrayList<>();
    private final List<Relocation> relocations = new ArrayList<>();
    private long bytesWritten;

    RewriteBatches(QueueWriter writer, int batchBytes, int compressionThreshold) {
        this.writer = writer;
        this.batchBytes = batchBytes;
        this.compressionThreshold = compressionThreshold;
    }

    void copy(long group, long firstIndex, List<byte[]> entries, long[] oldLocations, int[] oldOrdinals)
            throws IOException {
        batch.addEntries(group, firstIndex, entries);
        pending.add(new PendingCopy(group, firstIndex, oldLocations, oldOrdinals));
        flushIfFull();
    }

    void snapshot(RewritePlan.GroupSnapshot group) throws IOException {
        batch.retain(group.group(), group.first(), group.count());
        batch.clearState(group.group());
        for (var kv : group.state()) {
            batch.put(group.group(), kv.getKey(), kv.getValue());
        }
        flushIfFull();
    }

    void clean(long group) throws IOException {
        batch.clean(group);
        flushIfFull();
    }

    /** Ends the purge's writes with a Commit item and makes them durable. */
    void commit(BatchItem.Commit commit) throws IOException {
        batch.commit(commit);
        flush();
        writer.sync();
    }

    List<Relocation> relocations() {
        return relocations;
    }

    long bytesWritten() {
        return bytesWritten;
    }

    private void flushIfFull() throws IOException {
        if (batch.approximateSize() >= batchBytes) {
            flush();
        }
    }

    private void flush() throws IOException {
        if (batch.isEmpty()) {
            return;
        }
        EncodedBatch encoded = batch.encode(compressionThreshold);
        long position = writer.append(encoded);
        long location = Location.of(writer.activeFileId(), position);
        int k = 0;
        for (BatchItem item : encoded.items()) {
            if (item instanceof BatchItem.Entries e) {
                PendingCopy p = pending.get(k++);
                relocations.add(new Relocation(p.group(), p.firstIndex(), p.oldLocations(), p.oldOrdinals(),
                        location, e.firstOrdinal()));
            }
        }
        pending.clear();
        batch.clear();
        bytesWritten += encoded.length();
    }
}
