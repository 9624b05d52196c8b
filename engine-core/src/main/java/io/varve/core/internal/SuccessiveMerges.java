package io.varve.core.internal;

import io.varve.core.ColumnFamilyOptions;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.batch.WriteBatchReader;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.merge.MergeOperator;

import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.function.IntFunction;

/**
 * The write path's side of {@link ColumnFamilyOptions#withMaxSuccessiveMerges} (RocksDB's
 * {@code max_successive_merges}): while a batch is inserted, a merge whose key already has that many operands
 * on top in the memtable is applied at once to the key's value just below it, and the result is inserted as
 * a put at the operand's own sequence.
 *
 * <p>Why it is exact. The put holds what a read at its sequence would compute, and nothing is removed:
 * readers and snapshots below that sequence still read the older operands. To compute it every write below
 * the sequence must be in the memtables, but writers insert concurrently; so before the first fold of a
 * batch the writer waits until every earlier batch is published (hence applied), and the batch's own earlier
 * records are in place since one thread inserts them in order. In unordered mode publication says nothing
 * about insertion, so the pipeline does not fold there.
 *
 * <p>Why memory stays bounded. A batch is admitted with room for its own records only, and the put may be
 * larger than the operand. The difference is reserved like an admission, under the log lock, and only if the
 * lock is free at once and the memtable has the room; otherwise, or if the operator throws, the operand is
 * inserted as it is. Folding is an optimisation: skipping it never changes what a read returns.
 */
public final class SuccessiveMerges {

    private final System.Logger log;
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    /** The options of a family by id, null for one that no longer exists. */
    private final IntFunction<ColumnFamilyOptions> familyOptions;
    private final ReadPath reads;

    SuccessiveMerges(IntFunction<ColumnFamilyOptions> familyOptions, ReadPath reads, System.Logger log) {
        this.log = log;
        this.familyOptions = familyOptions;
        this.reads = reads;
    }

    /**
     * Inserts a sequenced batch like {@link CommitPipeline#apply}, folding merges where the family asks.
     *
     * @param awaitEarlier blocks until every batch sequenced before this one is applied
     * @param logLock the lock under which memtable room is promised
     */
    void apply(MemorySegment batch, ActiveMemtable[] targets, Runnable awaitEarlier, Lock logLock) {
        boolean earlierApplied = false;
        try {
            WriteBatchReader reader = new WriteBatchReader(batch);
            long sequence = reader.sequence();
            while (reader.next()) {
                long entrySequence = sequence++;
                ActiveMemtable target = targets[reader.columnFamily()];
                Memtable memtable = target.memtable;
                MemorySegment value = reader.value() == null ? EMPTY : reader.value();
                if (reader.kind() == ValueKind.MERGE && due(reader.columnFamily(), memtable, reader.key())) {
                    if (!earlierApplied) {
                        awaitEarlier.run();
                        earlierApplied = true;
                    }
                    if (insertFolded(target, reader.columnFamily(), reader.key(), entrySequence, value, logLock)) {
                        continue;
                    }
                }
                if (!memtable.add(reader.key(), InternalKey.trailer(entrySequence, reader.kind()), value)) {
                    throw new IllegalStateException("memtable full despite reservation: a bug in ENTRY_OVERHEAD");
                }
            }
        } catch (WriteBatchReader.MalformedBatchException e) {
            throw new IllegalStateException("batch encoding is broken", e);
        }
    }

    private boolean due(int family, Memtable memtable, MemorySegment key) {
        ColumnFamilyOptions options = familyOptions.apply(family);
        if (options == null || options.mergeOperator() == null || options.maxSuccessiveMerges() == 0) {
            return false;
        }
        int limit = options.maxSuccessiveMerges();
        return memtable.successiveMerges(key, limit) >= limit;
    }

    /** Inserts the folded put; false, with nothing inserted, when the operand must go in as it is. */
    private boolean insertFolded(ActiveMemtable target, int family, MemorySegment key, long sequence,
                                 MemorySegment operand, Lock logLock) {
        MergeOperator operator = familyOptions.apply(family).mergeOperator();
        byte[] folded;
        try {
            byte[] existing = reads.valueAt(family, key, sequence - 1);
            folded = operator.fullMerge(key.asReadOnly(),
                    existing == null ? null : MemorySegment.ofArray(existing).asReadOnly(),
                    List.of(operand.asReadOnly()));
        } catch (RuntimeException e) {
            log.log(System.Logger.Level.DEBUG, () -> "not folding the merge of key "
                    + HexFormat.of().formatHex(Keys.toArray(key)) + ": " + e);
            return false;
        }
        if (folded == null) {
            return false;
        }
        long extra = Math.max(0, folded.length - operand.byteSize());
        if (extra > 0 && !reserve(target, extra, logLock)) {
            return false;
        }
        try {
            if (!target.memtable.add(key, InternalKey.trailer(sequence, ValueKind.PUT),
                    MemorySegment.ofArray(folded))) {
                throw new IllegalStateException("memtable full despite reservation of a folded merge");
            }
        } finally {
            if (extra > 0) {
                target.finishedApplying(extra);
            }
        }
        return true;
    }

    /** Promises {@code extra} more bytes of the memtable to this write, if the log lock is free and room is left. */
    private static boolean reserve(ActiveMemtable target, long extra, Lock logLock) {
        if (!logLock.tryLock()) {
            return false;
        }
        try {
            if (!target.fits(extra)) {
                return false;
            }
            target.assign(extra);
            return true;
        } finally {
            logLock.unlock();
        }
    }
}
