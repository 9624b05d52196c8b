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
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random puts, deletes and merges against a {@code TreeMap} that applies each merge at once: gets, scans both
 * ways with bounds, walks and snapshot reads must agree with it while operands sit in memtables, level-0
 * tables and compacted levels, and after reopening. One run per built-in operator.
 */
class MergeModelProperties {

    enum Operator {
        INT64_ADD_LE, APPEND, MAX;

        MergeOperator create() {
            return switch (this) {
                case INT64_ADD_LE -> MergeOperators.int64Add(ByteOrder.LITTLE_ENDIAN);
                case APPEND -> MergeOperators.append(new byte[] {','});
                case MAX -> MergeOperators.max();
            };
        }
    }

    sealed interface Op permits Put, Delete, Merge, Get, TakeSnapshot, ReadSnapshot, Scan, Walk, Flush, Compact,
            Reopen {
    }

    record Put(Key key, long value) implements Op {
    }

    record Delete(Key key) implements Op {
    }

    record Merge(Key key, long operand, boolean inBatch) implements Op {
    }

    record Get(Key key) implements Op {
    }

    record TakeSnapshot() implements Op {
    }

    record ReadSnapshot(int index, Key key, boolean backward) implements Op {
    }

    record Scan(Key lower, Key upper, boolean backward) implements Op {
    }

    record Walk(Key start, List<Boolean> forwardMoves) implements Op {
    }

    record Flush() implements Op {
    }

    record Compact() implements Op {
    }

    record Reopen() implements Op {
    }

    record Key(byte[] bytes) implements Comparable<Key> {
        @Override
        public int compareTo(Key other) {
            return Arrays.compareUnsigned(bytes, other.bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(bytes, k.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            return HexFormat.of().formatHex(bytes);
        }
    }

    @Property(tries = 150)
    void mergedReadsAgreeWithEagerModel(@ForAll("operations") List<Op> ops, @ForAll Operator which)
            throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Path dir = Path.of("/db");
        MergeOperator operator = which.create();
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                .withCompactionSettings(new CompactionSettings(2, 64 << 10, 4, 16 << 10))
                .withMergeOperator(operator);
        TreeMap<Key, byte[]> model = new TreeMap<>();
        List<TreeMap<Key, byte[]>> snapshotModels = new ArrayList<>();
        List<Snapshot> snapshots = new ArrayList<>();
        Db db = Db.open(dir, options);
        try {
            for (Op op : ops) {
                switch (op) {
                    case Put p -> {
                        byte[] value = encode(which, p.value);
                        db.put(p.key.bytes, value);
                        model.put(p.key, value);
                    }
                    case Delete d -> {
                        db.delete(d.key.bytes);
                        model.remove(d.key);
                    }
                    case Merge m -> {
                        byte[] operand = encode(which, m.operand);
                        if (m.inBatch) {
                            db.write(new WriteBatch().merge(m.key.bytes, operand), WriteOptions.DEFAULT);
                        } else {
                            db.merge(m.key.bytes, operand);
                        }
                        byte[] old = model.get(m.key);
                        model.put(m.key, operator.fullMerge(MemorySegment.ofArray(m.key.bytes),
                                old == null ? null : MemorySegment.ofArray(old), List.of(MemorySegment.ofArray(operand))));
                    }
                    case Get g -> {
                        assertValue(model.get(g.key), db.get(g.key.bytes), g.key);
                        byte[] out = new byte[4];
                        long length = db.get(ReadOptions.DEFAULT, MemorySegment.ofArray(g.key.bytes),
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
                            assertValue(snapshotModels.get(i).get(r.key), db.get(at, r.key.bytes), r.key);
                            scan(db, at, snapshotModels.get(i), r.backward);
                        }
                    }
                    case Scan s -> {
                        ReadOptions read = ReadOptions.DEFAULT;
                        NavigableMap<Key, byte[]> expected = model;
                        if (s.lower != null) {
                            read = read.withLowerBound(s.lower.bytes);
                            expected = expected.tailMap(s.lower, true);
                        }
                        if (s.upper != null) {
                            read = read.withUpperBound(s.upper.bytes);
                            expected = s.lower != null && s.lower.compareTo(s.upper) > 0
                                    ? new TreeMap<>() : expected.headMap(s.upper, false);
                        }
                        scan(db, read, expected, s.backward);
                    }
                    case Walk w -> walk(db, model, w);
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
            scan(db, ReadOptions.DEFAULT, model, false);
            scan(db, ReadOptions.DEFAULT, model, true);
        } finally {
            db.close();
        }
    }

    private static byte[] encode(Operator which, long value) {
        if (which == Operator.INT64_ADD_LE) {
            return MergeOperators.int64(value, ByteOrder.LITTLE_ENDIAN);
        }
        byte[] bytes = new byte[(int) Math.floorMod(value, 4L)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (value >>> (8 * i + 2));
        }
        return bytes;
    }

    static void scan(Db db, ReadOptions read, NavigableMap<Key, byte[]> expected, boolean backward) {
        List<Map.Entry<Key, byte[]>> actual = new ArrayList<>();
        try (DbIterator it = db.iterator(read)) {
            if (backward) {
                for (it.seekToLast(); it.valid(); it.prev()) {
                    actual.add(Map.entry(new Key(it.key()), it.value()));
                }
            } else {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    actual.add(Map.entry(new Key(it.key()), it.value()));
                }
            }
        }
        List<Map.Entry<Key, byte[]>> wanted = new ArrayList<>(
                (backward ? expected.descendingMap() : expected).entrySet());
        assertEquals(wanted.size(), actual.size(), () -> "entries: expected " + wanted + " got " + actual);
        for (int i = 0; i < wanted.size(); i++) {
            assertEquals(wanted.get(i).getKey(), actual.get(i).getKey());
            assertArrayEquals(wanted.get(i).getValue(), actual.get(i).getValue(), "value of " + wanted.get(i).getKey());
        }
    }

    private static void walk(Db db, TreeMap<Key, byte[]> model, Walk w) {
        try (DbIterator it = db.iterator()) {
            it.seek(w.start.bytes);
            Key expected = model.ceilingKey(w.start);
            for (boolean forward : w.forwardMoves) {
                if (expected == null) {
                    assertFalse(it.valid(), "iterator should be exhausted");
                    return;
                }
                assertTrue(it.valid());
                assertEquals(expected, new Key(it.key()));
                assertArrayEquals(model.get(expected), it.value(), "value of " + expected);
                if (forward) {
                    it.next();
                    expected = model.higherKey(expected);
                } else {
                    it.prev();
                    expected = model.lowerKey(expected);
                }
            }
        }
    }

    private static void assertValue(byte[] expected, byte[] actual, Key key) {
        if (expected == null) {
            assertNull(actual, () -> "key " + key + " should be absent");
        } else {
            assertArrayEquals(expected, actual, () -> "value of key " + key);
        }
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Key> keys = Arbitraries.of((byte) 0x00, (byte) 0x01, (byte) 0x80, (byte) 0xFF)
                .list().ofMinSize(0).ofMaxSize(2).map(list -> {
                    byte[] b = new byte[list.size()];
                    for (int i = 0; i < b.length; i++) {
                        b[i] = list.get(i);
                    }
                    return new Key(b);
                });
        Arbitrary<Long> numbers = Arbitraries.longs().between(-1000, 1000);
        Arbitrary<Key> optionalKey = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(null)), Tuple.of(2, keys));
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                Tuple.of(5, Combinators.combine(keys, numbers).as(Put::new)),
                Tuple.of(2, keys.map(Delete::new)),
                Tuple.of(12, Combinators.combine(keys, numbers, Arbitraries.of(true, false)).as(Merge::new)),
                Tuple.of(5, keys.map(Get::new)),
                Tuple.of(1, Arbitraries.just(new TakeSnapshot())),
                Tuple.of(2, Combinators.combine(Arbitraries.integers().between(0, 100), keys,
                        Arbitraries.of(true, false)).as(ReadSnapshot::new)),
                Tuple.of(2, Combinators.combine(optionalKey, optionalKey, Arbitraries.of(true, false)).as(Scan::new)),
                Tuple.of(2, Combinators.combine(keys, Arbitraries.of(true, false).list().ofMaxSize(12)).as(Walk::new)),
                Tuple.of(2, Arbitraries.just(new Flush())),
                Tuple.of(1, Arbitraries.just(new Compact())),
                Tuple.of(1, Arbitraries.just(new Reopen())));
        return op.list().ofMinSize(1).ofMaxSize(100);
    }
}
