package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.compaction.CompactionSettings;
import io.varve.core.merge.MergeOperator;
import io.varve.core.merge.MergeOperators;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random puts, deletes, range deletions and merges (alone or mixed in one batch) against a {@code TreeMap}
 * that applies each merge at once: gets, multiGets, scans both ways with bounds, walks and snapshot reads must
 * agree with it while operands and range tombstones sit in memtables, level-0 tables and compacted levels,
 * with snapshots taken and released between them (so compaction meets every arrangement of snapshot zones and
 * tombstones among a key's operands), and after reopening. Runs per built-in operator.
 */
class MergeModelProperties {

    /** The built-in operators; {@code INT64_ADD_GENERAL} is int64Add without its folding fast path. */
    enum Operator {
        INT64_ADD_LE, INT64_ADD_GENERAL, APPEND, MAX;

        MergeOperator create() {
            return switch (this) {
                case INT64_ADD_LE -> MergeOperators.int64Add(ByteOrder.LITTLE_ENDIAN);
                case INT64_ADD_GENERAL -> MergeFastPathProperties.generalPath(
                        MergeOperators.int64Add(ByteOrder.LITTLE_ENDIAN));
                case APPEND -> MergeOperators.append(new byte[] {','});
                case MAX -> MergeOperators.max();
            };
        }
    }

    sealed interface Op permits Put, Delete, Merge, DeleteRange, MixedBatch, Get, MultiGet, TakeSnapshot,
            ReleaseSnapshot, ReadSnapshot, Scan, Walk, Flush, Compact, Reopen {
    }

    record Put(ModelKey key, long value) implements Op {
    }

    record Delete(ModelKey key) implements Op {
    }

    record Merge(ModelKey key, long operand, boolean inBatch) implements Op {
    }

    /** Deletes {@code [begin, end)}; skipped when begin is not below end. */
    record DeleteRange(ModelKey begin, ModelKey end, boolean inBatch) implements Op {
    }

    /** Puts, deletes, merges and range deletions applied in one batch, in order. */
    record MixedBatch(List<Op> writes) implements Op {
    }

    record Get(ModelKey key) implements Op {
    }

    record MultiGet(List<ModelKey> keys, boolean atSnapshot) implements Op {
    }

    record ReleaseSnapshot(int index) implements Op {
    }

    record TakeSnapshot() implements Op {
    }

    record ReadSnapshot(int index, ModelKey key, boolean backward) implements Op {
    }

    record Scan(ModelKey lower, ModelKey upper, boolean backward) implements Op {
    }

    record Walk(ModelKey start, List<Boolean> forwardMoves) implements Op {
    }

    record Flush() implements Op {
    }

    record Compact() implements Op {
    }

    record Reopen() implements Op {
    }

    @Property(tries = 400)
    void mergedReadsAgreeWithEagerModel(@ForAll("operations") List<Op> ops, @ForAll Operator which,
                                        @ForAll("successiveMergeLimits") int maxSuccessiveMerges) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Path dir = Path.of("/db");
        MergeOperator operator = which.create();
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                .withCompactionSettings(new CompactionSettings(2, 64 << 10, 4, 16 << 10))
                .withMergeOperator(operator).withMaxSuccessiveMerges(maxSuccessiveMerges);
        TreeMap<ModelKey, byte[]> model = new TreeMap<>();
        List<TreeMap<ModelKey, byte[]>> snapshotModels = new ArrayList<>();
        List<Snapshot> snapshots = new ArrayList<>();
        Db db = Db.open(dir, options);
        try {
            for (Op op : ops) {
                switch (op) {
                    case Put p -> {
                        byte[] value = encode(which, p.value);
                        db.put(p.key.bytes(), value);
                        model.put(p.key, value);
                    }
                    case Delete d -> {
                        db.delete(d.key.bytes());
                        model.remove(d.key);
                    }
                    case Merge m -> {
                        byte[] operand = encode(which, m.operand);
                        if (m.inBatch) {
                            db.write(new WriteBatch().merge(m.key.bytes(), operand), WriteOptions.DEFAULT);
                        } else {
                            db.merge(m.key.bytes(), operand);
                        }
                        applyMerge(model, operator, m.key, operand);
                    }
                    case DeleteRange r -> {
                        if (r.begin.compareTo(r.end) < 0) {
                            if (r.inBatch) {
                                db.write(new WriteBatch().deleteRange(r.begin.bytes(), r.end.bytes()), WriteOptions.DEFAULT);
                            } else {
                                db.deleteRange(r.begin.bytes(), r.end.bytes());
                            }
                            model.subMap(r.begin, true, r.end, false).clear();
                        }
                    }
                    case MixedBatch b -> {
                        WriteBatch batch = new WriteBatch();
                        for (Op write : b.writes) {
                            switch (write) {
                                case Put p -> {
                                    byte[] value = encode(which, p.value);
                                    batch.put(p.key.bytes(), value);
                                    model.put(p.key, value);
                                }
                                case Delete d -> {
                                    batch.delete(d.key.bytes());
                                    model.remove(d.key);
                                }
                                case Merge m -> {
                                    byte[] operand = encode(which, m.operand);
                                    batch.merge(m.key.bytes(), operand);
                                    applyMerge(model, operator, m.key, operand);
                                }
                                case DeleteRange r -> {
                                    if (r.begin.compareTo(r.end) < 0) {
                                        batch.deleteRange(r.begin.bytes(), r.end.bytes());
                                        model.subMap(r.begin, true, r.end, false).clear();
                                    }
                                }
                                default -> throw new AssertionError("not a write: " + write);
                            }
                        }
                        db.write(batch, WriteOptions.DEFAULT);
                    }
                    case MultiGet g -> {
                        ReadOptions read = ReadOptions.DEFAULT;
                        NavigableMap<ModelKey, byte[]> expected = model;
                        if (g.atSnapshot && !snapshots.isEmpty()) {
                            read = read.withSnapshot(snapshots.getLast());
                            expected = snapshotModels.getLast();
                        }
                        List<byte[]> keys = g.keys.stream().map(ModelKey::bytes).toList();
                        List<byte[]> values = db.multiGet(read, keys);
                        for (int i = 0; i < keys.size(); i++) {
                            ModelReads.assertValue(expected.get(g.keys.get(i)), values.get(i), g.keys.get(i));
                        }
                    }
                    case ReleaseSnapshot r -> {
                        if (!snapshots.isEmpty()) {
                            int i = r.index % snapshots.size();
                            snapshots.remove(i).close();
                            snapshotModels.remove(i);
                        }
                    }
                    case Get g -> {
                        ModelReads.assertValue(model.get(g.key), db.get(g.key.bytes()), g.key);
                        byte[] out = new byte[4];
                        long length = db.get(ReadOptions.DEFAULT, MemorySegment.ofArray(g.key.bytes()),
                                MemorySegment.ofArray(out));
                        byte[] expected = model.get(g.key);
                        assertEquals(expected == null ? -1 : expected.length, length, "length of " + g.key);
                    }
                    case TakeSnapshot t -> {
                        snapshots.add(db.snapshot());
                        snapshotModels.add(new TreeMap<>(model));
                    }
                    case ReadSnapshot r -> {
                        if (!snapshots.isEmpty()) {
                            int i = r.index % snapshots.size();
                            ReadOptions at = ReadOptions.DEFAULT.withSnapshot(snapshots.get(i));
                            ModelReads.assertValue(snapshotModels.get(i).get(r.key), db.get(at, r.key.bytes()), r.key);
                            ModelReads.scan(db, at, snapshotModels.get(i), r.backward);
                        }
                    }
                    case Scan s -> {
                        ReadOptions read = ReadOptions.DEFAULT;
                        NavigableMap<ModelKey, byte[]> expected = model;
                        if (s.lower != null) {
                            read = read.withLowerBound(s.lower.bytes());
                            expected = expected.tailMap(s.lower, true);
                        }
                        if (s.upper != null) {
                            read = read.withUpperBound(s.upper.bytes());
                            expected = s.lower != null && s.lower.compareTo(s.upper) > 0
                                    ? new TreeMap<>() : expected.headMap(s.upper, false);
                        }
                        ModelReads.scan(db, read, expected, s.backward);
                    }
                    case Walk w -> ModelReads.walk(db, model, w.start(), w.forwardMoves());
                    case Flush f -> db.flush();
                    case Compact c -> db.compactRange(null, null);
                    case Reopen r -> {
                        snapshots.clear();
                        snapshotModels.clear();
                        db.close();
                        db = Db.open(dir, options.withMergeOperator(which.create()));
                    }
                }
            }
            db.close();
            db = Db.open(dir, options);
            ModelReads.scan(db, ReadOptions.DEFAULT, model, false);
            ModelReads.scan(db, ReadOptions.DEFAULT, model, true);
        } finally {
            db.close();
        }
    }

    private static void applyMerge(TreeMap<ModelKey, byte[]> model, MergeOperator operator, ModelKey key, byte[] operand) {
        byte[] old = model.get(key);
        model.put(key, operator.fullMerge(MemorySegment.ofArray(key.bytes()),
                old == null ? null : MemorySegment.ofArray(old), List.of(MemorySegment.ofArray(operand))));
    }

    private static byte[] encode(Operator which, long value) {
        if (which == Operator.INT64_ADD_LE || which == Operator.INT64_ADD_GENERAL) {
            return MergeOperators.int64(value, ByteOrder.LITTLE_ENDIAN);
        }
        byte[] bytes = new byte[(int) Math.floorMod(value, 4L)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (value >>> (8 * i + 2));
        }
        return bytes;
    }

    /** Off, and small limits so that writes fold chains often (over snapshots, tombstones and batches). */
    @Provide
    Arbitrary<Integer> successiveMergeLimits() {
        return Arbitraries.of(0, 1, 2);
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<ModelKey> anyKey = Arbitraries.of((byte) 0x00, (byte) 0x01, (byte) 0x80, (byte) 0xFF)
                .list().ofMinSize(0).ofMaxSize(2).map(list -> {
                    byte[] b = new byte[list.size()];
                    for (int i = 0; i < b.length; i++) {
                        b[i] = list.get(i);
                    }
                    return new ModelKey(b);
                });
        // Mostly a few keys, so that operands, tombstones and snapshots meet on the same key.
        Arbitrary<ModelKey> keys = Arbitraries.frequencyOf(Tuple.of(1, anyKey), Tuple.of(3,
                Arbitraries.of(new ModelKey(new byte[] {0x01}), new ModelKey(new byte[] {(byte) 0x80}),
                        new ModelKey(new byte[] {(byte) 0x80, 0x00}), new ModelKey(new byte[] {(byte) 0xFF}))));
        // Small numbers, and a few near the ends of the range so that sums wrap around.
        Arbitrary<Long> numbers = Arbitraries.frequencyOf(Tuple.of(9, Arbitraries.longs().between(-1000, 1000)),
                Tuple.of(1, Arbitraries.of(Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 3, Long.MIN_VALUE + 5)));
        Arbitrary<ModelKey> optionalKey = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(null)), Tuple.of(2, keys));
        Arbitrary<Op> put = Combinators.combine(keys, numbers).as(Put::new);
        Arbitrary<Op> delete = keys.map(Delete::new);
        Arbitrary<Op> merge = Combinators.combine(keys, numbers, Arbitraries.of(true, false)).as(Merge::new);
        Arbitrary<Op> deleteRange = Combinators.combine(keys, keys, Arbitraries.of(true, false)).as(DeleteRange::new);
        Arbitrary<Op> mixed = Arbitraries.frequencyOf(Tuple.of(2, put), Tuple.of(1, delete), Tuple.of(5, merge),
                Tuple.of(2, deleteRange)).list().ofMinSize(1).ofMaxSize(6).map(MixedBatch::new);
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                Tuple.of(5, put),
                Tuple.of(2, delete),
                Tuple.of(12, merge),
                Tuple.of(3, deleteRange),
                Tuple.of(2, mixed),
                Tuple.of(5, keys.map(Get::new)),
                Tuple.of(2, Combinators.combine(keys.list().ofMaxSize(5), Arbitraries.of(true, false))
                        .as(MultiGet::new)),
                Tuple.of(4, Arbitraries.just(new TakeSnapshot())),
                Tuple.of(1, Arbitraries.integers().between(0, 100).map(ReleaseSnapshot::new)),
                Tuple.of(2, Combinators.combine(Arbitraries.integers().between(0, 100), keys,
                        Arbitraries.of(true, false)).as(ReadSnapshot::new)),
                Tuple.of(2, Combinators.combine(optionalKey, optionalKey, Arbitraries.of(true, false)).as(Scan::new)),
                Tuple.of(2, Combinators.combine(keys, Arbitraries.of(true, false).list().ofMaxSize(12)).as(Walk::new)),
                Tuple.of(2, Arbitraries.just(new Flush())),
                Tuple.of(3, Arbitraries.just(new Compact())),
                Tuple.of(1, Arbitraries.just(new Reopen())));
        return op.list().ofMinSize(1).ofMaxSize(100);
    }
}
