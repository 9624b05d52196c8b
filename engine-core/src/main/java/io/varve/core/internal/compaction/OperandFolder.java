package io.varve.core.internal.compaction;

import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.merge.MergeOperator;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Shortens chains of merge operands while compaction writes a key's entries (newest first). Successive
 * operands are combined only when no reader can tell them apart: all at or below the oldest snapshot, or all
 * above the newest one (the snapshot zone), and no range tombstone over the key lies between them (the same
 * stripe: a reader above such a tombstone sees only the operands above it). Such a run followed, in the same
 * zone and stripe, by a put or delete becomes one put (fullMerge with the base, or with none below a
 * delete); otherwise it becomes one operand if the operator's partialMerge can, and is kept as it is if not.
 * An operator that throws never fails the compaction: the operands are written unchanged, the failure logged
 * and counted.
 */
final class OperandFolder {

    /** Where folded entries go, in the order compaction must write them. */
    interface Sink {
        void add(MemorySegment userKey, long trailer, MemorySegment value) throws IOException;
    }

    private final System.Logger log;
    private static final int UNSAFE_ZONE = 1;

    private final MergeOperator operator;
    private final long oldestSnapshot;
    private final long newestSnapshot;
    private final LongAdder failures;
    private final Sink sink;

    private byte[] key;
    /** Pending operands of {@link #key}, newest first, with their trailers. */
    private final List<byte[]> operands = new ArrayList<>();
    private final List<Long> trailers = new ArrayList<>();
    private int zone;
    private long stripe;

    OperandFolder(MergeOperator operator, long oldestSnapshot, long newestSnapshot, LongAdder failures,
                  System.Logger log, Sink sink) {
        this.log = log;
        this.operator = operator;
        this.oldestSnapshot = oldestSnapshot;
        this.newestSnapshot = newestSnapshot;
        this.failures = failures;
        this.sink = sink;
    }

    /**
     * Takes the next entry to write; entries arrive in internal-key order.
     *
     * @param entryStripe the sequence of the newest range tombstone over the key at or below the entry's
     *     sequence (0 for none): entries of one key with equal stripes have no tombstone between them
     */
    void add(MemorySegment userKey, long trailer, MemorySegment value, long entryStripe) throws IOException {
        if (!operands.isEmpty() && Keys.compare(MemorySegment.ofArray(key), userKey) != 0) {
            flush();
        }
        if (operator == null) {
            sink.add(userKey, trailer, value);
            return;
        }
        int kind = InternalKey.kindCode(trailer);
        int entryZone = zone(InternalKey.sequence(trailer));
        if (kind == ValueKind.MERGE.code() && entryZone != UNSAFE_ZONE) {
            if (!operands.isEmpty() && (entryZone != zone || entryStripe != stripe)) {
                flush();
            }
            if (operands.isEmpty()) {
                key = Keys.toArray(userKey);
                zone = entryZone;
                stripe = entryStripe;
            }
            operands.add(Keys.toArray(value));
            trailers.add(trailer);
            return;
        }
        if (!operands.isEmpty() && kind != ValueKind.MERGE.code() && entryZone == zone && entryStripe == stripe) {
            byte[] merged = fullMerge(kind == ValueKind.PUT.code() ? value : null);
            if (merged != null) {
                // The base is shadowed by the merged put within a zone no snapshot reads: it goes.
                long sequence = InternalKey.sequence(trailers.getFirst());
                clear();
                sink.add(userKey, InternalKey.trailer(sequence, ValueKind.PUT), MemorySegment.ofArray(merged));
                return;
            }
        }
        flush();
        sink.add(userKey, trailer, value);
    }

    /** Writes what is pending; call at the end of each key and of the compaction. */
    void flush() throws IOException {
        if (operands.isEmpty()) {
            return;
        }
        MemorySegment userKey = MemorySegment.ofArray(key);
        if (operands.size() > 1) {
            byte[] combined = partialMerge(userKey);
            if (combined != null) {
                long trailer = trailers.getFirst();
                clear();
                sink.add(userKey, trailer, MemorySegment.ofArray(combined));
                return;
            }
        }
        for (int i = 0; i < operands.size(); i++) {
            sink.add(userKey, trailers.get(i), MemorySegment.ofArray(operands.get(i)));
        }
        clear();
    }

    private int zone(long sequence) {
        if (sequence <= oldestSnapshot) {
            return 0;
        }
        return sequence > newestSnapshot ? 2 : UNSAFE_ZONE;
    }

    private List<MemorySegment> oldestFirst() {
        List<MemorySegment> views = new ArrayList<>(operands.size());
        for (byte[] operand : operands) {
            views.add(MemorySegment.ofArray(operand).asReadOnly());
        }
        Collections.reverse(views);
        return views;
    }

    private byte[] fullMerge(MemorySegment base) {
        try {
            return operator.fullMerge(MemorySegment.ofArray(key).asReadOnly(),
                    base == null ? null : base.asReadOnly(), oldestFirst());
        } catch (RuntimeException e) {
            failed(e);
            return null;
        }
    }

    private byte[] partialMerge(MemorySegment userKey) {
        try {
            return operator.partialMerge(userKey.asReadOnly(), oldestFirst());
        } catch (RuntimeException e) {
            failed(e);
            return null;
        }
    }

    private void failed(RuntimeException e) {
        failures.increment();
        log.log(System.Logger.Level.WARNING, "merge operator " + operator.name() + " failed in compaction; "
                + "keeping the operands unmerged", e);
    }

    private void clear() {
        operands.clear();
        trailers.clear();
    }
}
