package io.varve.core;

import io.varve.core.merge.MergeOperator;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Map;
import java.util.NavigableMap;

/**
 * A database iterator with a batch's newest operations laid over it ({@link WriteBatchWithIndex#iterator}).
 *
 * <p>Two cursors move in step: the database iterator and a cursor into the batch's sorted entries (already
 * cut to the read bounds). In the current direction both rest at or beyond the current key; the iterator
 * shows the nearer of the two, the batch's when both are at the same key, and skips keys the batch
 * deletes. A batch entry with merge operands shows them applied to its own put or delete, or, when the batch
 * only merges into the key, to the database's value at the same key (none if the database cursor is
 * elsewhere). Changing direction re-seeks both cursors around the current key.
 */
final class BatchOverlayIterator implements DbIterator {

    private final DbIterator base;
    private final NavigableMap<byte[], WriteBatchWithIndex.Entry> batch;
    private final MergeOperator mergeOperator;
    /** The batch's entry at or beyond the current key in the current direction; null when exhausted. */
    private Map.Entry<byte[], WriteBatchWithIndex.Entry> batchCursor;
    private boolean forward = true;
    /** Which side the current key comes from; meaningless when not valid. */
    private boolean currentFromBatch;
    private boolean valid;
    /** The current key's value when it comes from the batch. */
    private byte[] batchValue;

    BatchOverlayIterator(DbIterator base, NavigableMap<byte[], WriteBatchWithIndex.Entry> batch,
                         MergeOperator mergeOperator) {
        this.base = base;
        this.batch = batch;
        this.mergeOperator = mergeOperator;
    }

    @Override
    public void seekToFirst() {
        forward = true;
        base.seekToFirst();
        batchCursor = batch.firstEntry();
        settle();
    }

    @Override
    public void seekToLast() {
        forward = false;
        base.seekToLast();
        batchCursor = batch.lastEntry();
        settle();
    }

    @Override
    public void seek(byte[] key) {
        forward = true;
        base.seek(key);
        batchCursor = batch.ceilingEntry(key);
        settle();
    }

    @Override
    public void seekForPrev(byte[] key) {
        forward = false;
        base.seekForPrev(key);
        batchCursor = batch.floorEntry(key);
        settle();
    }

    @Override
    public boolean valid() {
        return valid;
    }

    @Override
    public void next() {
        requireValid();
        byte[] current = key();
        if (!forward) {
            seek(current);
        }
        step(current, true);
    }

    @Override
    public void prev() {
        requireValid();
        byte[] current = key();
        if (forward) {
            seekForPrev(current);
        }
        step(current, false);
    }

    @Override
    public byte[] key() {
        requireValid();
        return currentFromBatch ? batchCursor.getKey().clone() : base.key();
    }

    @Override
    public byte[] value() {
        requireValid();
        return currentFromBatch ? batchValue.clone() : base.value();
    }

    @Override
    public MemorySegment keySegment() {
        requireValid();
        return currentFromBatch ? MemorySegment.ofArray(batchCursor.getKey()) : base.keySegment();
    }

    @Override
    public MemorySegment valueSegment() {
        requireValid();
        return currentFromBatch ? MemorySegment.ofArray(batchValue) : base.valueSegment();
    }

    @Override
    public int key(byte[] dest) {
        requireValid();
        return currentFromBatch ? copy(batchCursor.getKey(), dest) : base.key(dest);
    }

    @Override
    public int value(byte[] dest) {
        requireValid();
        return currentFromBatch ? copy(batchValue, dest) : base.value(dest);
    }

    private static int copy(byte[] source, byte[] dest) {
        System.arraycopy(source, 0, dest, 0, Math.min(source.length, dest.length));
        return source.length;
    }

    @Override
    public void close() {
        base.close();
    }

    /** Moves both cursors past {@code current} in the (now current) direction, then settles. */
    private void step(byte[] current, boolean ahead) {
        if (base.valid() && Arrays.compareUnsigned(base.key(), current) == 0) {
            if (ahead) {
                base.next();
            } else {
                base.prev();
            }
        }
        if (batchCursor != null && Arrays.compareUnsigned(batchCursor.getKey(), current) == 0) {
            batchCursor = ahead ? batch.higherEntry(current) : batch.lowerEntry(current);
        }
        settle();
    }

    /**
     * Makes the nearer cursor current, skipping keys the batch deletes (and the database's entry for the
     * same key).
     */
    private void settle() {
        while (true) {
            boolean baseValid = base.valid();
            if (batchCursor == null) {
                valid = baseValid;
                currentFromBatch = false;
                return;
            }
            int order = baseValid ? Arrays.compareUnsigned(batchCursor.getKey(), base.key()) : -1;
            if (!forward && baseValid) {
                order = -order;
            }
            if (order > 0) {
                valid = true;
                currentFromBatch = false;
                return;
            }
            WriteBatchWithIndex.Entry entry = batchCursor.getValue();
            if (!entry.deleted()) {
                // Not positioned if the merge operator throws: the caller must seek again.
                valid = false;
                batchValue = entry.resolve(batchCursor.getKey(), order == 0 ? base.value() : null, mergeOperator);
                valid = true;
                currentFromBatch = true;
                return;
            }
            byte[] deleted = batchCursor.getKey();
            if (order == 0) {
                if (forward) {
                    base.next();
                } else {
                    base.prev();
                }
            }
            batchCursor = forward ? batch.higherEntry(deleted) : batch.lowerEntry(deleted);
        }
    }

    private void requireValid() {
        if (!valid) {
            throw new IllegalStateException("iterator is not positioned on a key");
        }
    }
}
